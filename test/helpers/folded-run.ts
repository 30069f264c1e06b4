// A run built by hand for the model's tests: goroutines named canonically and the records and
// lock operations of each, folded as the leaks stage folds a decoded run (src/model/goroutine-fold.ts).

import { runStateFold, type AnalysedRun, type LeakRun, type RunEnd } from "../../src/model/index.js";
import type { GoroutineInfo, GoroutineRecord, LockOp, RecordKind } from "../../src/core/index.js";

/** One record: its kind, subject and, as the kind needs, reason, site, stack and actor (null: a timer). */
export interface RecordStep {
  readonly kind: RecordKind;
  readonly g: number;
  readonly reason?: string;
  readonly site?: string;
  readonly stack?: string;
  readonly actor?: number | null;
}

/** One recorded lock operation of goroutine g at `site` (mode w unless said). */
export interface LockStep {
  readonly op: "want" | "got" | "drop";
  readonly g: number;
  readonly mode?: "w" | "r";
  readonly lock: string;
  readonly site: string;
}

export type Step = RecordStep | LockStep;

/** A test goroutine started at `file:line` of the test `root` (a root of its own when func is the test). */
export function testGoroutine(gid: number, root: string, pkg: string, func: string, siteKey: string): GoroutineInfo {
  if (func === root)
    return {
      goroutine: gid,
      canonicalId: root,
      parent: null,
      entry: `${pkg}.${root}`,
      creationSite: null,
      isRoot: true,
    };
  return {
    goroutine: gid,
    canonicalId: `${root}/${pkg.slice(pkg.lastIndexOf("/") + 1)}.${func}@${siteKey}#0`,
    parent: 1,
    entry: `${pkg}.${func}`,
    creationSite: `${pkg}.${root} ${siteKey}`,
    isRoot: false,
  };
}

/** Run `runId` of `goroutines` made of `steps` (records and lock operations) in order, one millisecond apart, folded. */
export function foldedRun(
  runId: number,
  goroutines: readonly GoroutineInfo[],
  steps: readonly Step[],
  outcome: RunEnd = "ok",
): AnalysedRun {
  const header: LeakRun = {
    runId,
    runIndex: runId,
    config: "procs-2",
    outcome,
    runtimeDeadlock: false,
    crashed: false,
    wallMs: null,
    goroutines,
  };
  const fold = runStateFold(header);
  // A lock operation carries the sequence number of the record that follows it.
  let seq = 0;
  steps.forEach((step, i) => {
    if ("op" in step) {
      const op: LockOp = {
        seq,
        timeNs: i * 1_000_000,
        goroutine: step.g,
        phase: step.op,
        mode: step.mode ?? "w",
        lock: step.lock,
        site: step.site,
        stack: `;${step.site}`,
      };
      fold.addLockOp(op);
      return;
    }
    const record: GoroutineRecord = {
      seq: seq++,
      timeNs: i * 1_000_000,
      kind: step.kind,
      goroutine: step.g,
      actor: step.kind === "GoUnblock" ? (step.actor ?? null) : null,
      reason: step.reason ?? "",
      site: step.site ?? null,
      stack: step.stack ?? null,
    };
    fold.add(record);
  });
  return { run: header, states: fold.finish() };
}
