// Seeded schedule perturbation through `go build -overlay` (collect --budget): the Go
// helper's collect-perturb inserts `schedlabPerturb(K)` at each synchronisation point of
// overlay copies of the package's files, on the same line, and adds the decision function
// (src/gohelper/perturb.go states its invariants). The seed is read at run time, so one
// perturbed binary serves every seed; the user's tree is never written to.

import { execa } from "execa";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { goHelperPath } from "../gohelper/index.js";
import type { Overlay } from "./harness.js";

/** The environment variable a perturbed binary reads its seed from (unset: no perturbation). */
export const PERTURB_SEED_ENV = "SCHEDLAB_PERTURB_SEED";

/** One inserted call, as the helper reports it. */
export interface PerturbPoint {
  readonly id: number;
  readonly file: string;
  readonly line: number;
  readonly kind: "send" | "recv" | "select" | "select-case" | "go" | "lock" | "unlock" | "wait" | "signal" | "done" | "close";
}

/**
 * Writes perturbed copies of `files` into `scratch` and returns `overlay` extended with
 * them (a file `overlay` already replaces, e.g. by the tracing harness, is perturbed from
 * its replacement) and the points inserted. Throws when a file does not parse.
 */
export async function writePerturbOverlay(files: readonly string[], overlay: Overlay, scratch: string): Promise<{ overlay: Overlay; points: PerturbPoint[] }> {
  const helper = await goHelperPath();
  const dir = join(scratch, "perturb");
  mkdirSync(dir, { recursive: true });
  const input = join(scratch, "perturb-input.json");
  writeFileSync(input, JSON.stringify(overlay));
  const { stdout } = await execa(helper, ["collect-perturb", "-out", dir, "-overlay", input, ...files]);
  const result = JSON.parse(stdout) as { replace: Record<string, string>; points: PerturbPoint[] };
  return { overlay: { Replace: result.replace }, points: result.points };
}

/**
 * The seed of run `index` of the perturb configuration `config`: the first 48 bits of
 * sha256("config#index"). Deterministic, so a budgeted collect explores the same seeds
 * every time it runs, and distinct across configurations, so GOMAXPROCS variants do not
 * repeat each other's perturbation decisions (which matter more than GOMAXPROCS).
 */
export function perturbSeed(config: string, index: number): number {
  return createHash("sha256").update(`${config}#${index}`).digest().readUIntBE(0, 6);
}
