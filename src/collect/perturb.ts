// The overlay rewrites of collect --budget, through `go build -overlay` on the same line as
// the code they instrument (the user's tree is never written to):
// - seeded schedule perturbation: the Go helper's collect-perturb inserts
//   `schedlabPerturb(K)` at each synchronisation point of overlay copies of the package's
//   files and adds the decision function (src/gohelper/overlay/perturb.go states its invariants).
//   The seed is read at run time, so one perturbed binary serves every seed;
// - lock recording: collect-locks logs each Lock/RLock/Unlock/RUnlock statement and deferred
//   unlock as a runtime/trace user log "schedlab.lock" (src/gohelper/overlay/locks.go), on top
//   of perturbation in the same helper call (collect-perturb -locks) for a perturbed build.

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
  readonly kind:
    "send" | "recv" | "select" | "select-case" | "go" | "lock" | "unlock" | "wait" | "signal" | "done" | "close";
}

/**
 * Writes perturbed copies of `files` into `scratch` and returns `overlay` extended with
 * them (a file `overlay` already replaces, e.g. by the tracing harness, is perturbed from
 * its replacement) and the points inserted. With `recordLocks`, the same helper call also
 * rewrites the perturbed copies for lock recording (as writeLockRecordingOverlay does after
 * perturbation): `locked` is that overlay, else null. Throws when a file does not parse.
 */
export async function writePerturbOverlay(
  files: readonly string[],
  overlay: Overlay,
  scratch: string,
  recordLocks = false,
): Promise<{ overlay: Overlay; points: PerturbPoint[]; locked: Overlay | null }> {
  const result = (await runRewrite(
    "collect-perturb",
    "perturb",
    files,
    overlay,
    scratch,
    recordLocks ? ["-locks"] : [],
  )) as {
    replace: Record<string, string>;
    points: PerturbPoint[];
    locks?: { replace: Record<string, string> };
  };
  return {
    overlay: { Replace: result.replace },
    points: result.points,
    locked: result.locks === undefined ? null : { Replace: result.locks.replace },
  };
}

/**
 * Writes lock-recording copies of `files` into `scratch` and returns `overlay` extended
 * with them and the number of statements rewritten. Like writePerturbOverlay, a file
 * `overlay` replaces is rewritten from its replacement; it runs after perturbation, so
 * perturbation points are the same with or without lock recording and a lock's "got" is
 * logged before the perturbation point that follows the Lock. Each Lock/RLock statement
 * logs its want and got in its first executions of a run only (the helper's budget,
 * docs/leaks.md "The budget"); a -race build counts them without synchronisation the race
 * detector would see and logs every drop, chosen by the `race` build constraint, so one
 * rewrite serves a package's plain and race builds. Throws when a file does not parse.
 */
export async function writeLockRecordingOverlay(
  files: readonly string[],
  overlay: Overlay,
  scratch: string,
): Promise<{ overlay: Overlay; statements: number }> {
  const result = (await runRewrite("collect-locks", "locks", files, overlay, scratch)) as {
    replace: Record<string, string>;
    statements: number;
  };
  return { overlay: { Replace: result.replace }, statements: result.statements };
}

/** Runs the helper's rewrite `subcommand` on `files` over `overlay`, its copies in scratch/`dir`; returns its JSON report. */
async function runRewrite(
  subcommand: string,
  dir: string,
  files: readonly string[],
  overlay: Overlay,
  scratch: string,
  flags: readonly string[] = [],
): Promise<unknown> {
  const helper = await goHelperPath();
  const out = join(scratch, dir);
  mkdirSync(out, { recursive: true });
  const input = join(scratch, `${dir}-input.json`);
  writeFileSync(input, JSON.stringify(overlay));
  const { stdout } = await execa(helper, [subcommand, "-out", out, "-overlay", input, ...flags, ...files]);
  return JSON.parse(stdout) as unknown;
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
