// Seeded schedule perturbation through `go build -overlay` (collect --budget): the Go
// helper's collect-perturb inserts `schedlabPerturb(K)` at each synchronisation point of
// overlay copies of the package's files, on the same line, and adds the decision function
// (src/gohelper/perturb.go states its invariants). The seed is read at run time, so one
// perturbed binary serves every seed; the user's tree is never written to.

import { execa } from "execa";
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
 * The seed of run `index` of a perturb configuration: index + 1, so a budgeted collect
 * explores the same seeds every time it is run (0 is left out: it reads as "no seed").
 */
export function perturbSeed(index: number): number {
  return index + 1;
}
