// A detector-neutral description of "this goroutine blocks forever", so the schedlab
// detector and its peers (goroutine dumps, goleak, the goroutineleak profile) are scored
// by one matcher against manifest labels.

import type { PotentialDeadlock } from "../model/index.js";
import type { LeakFinding } from "./types.js";

export interface BlockedSignature {
  readonly program: string;
  /** "file.go:LINE" (base name) of the `go` statement; null for a root goroutine. */
  readonly siteKey: string | null;
  /** For a root goroutine: its function ("main.main", "pkg.TestX" or just "TestX"); else null. */
  readonly root: string | null;
  /** Block reason in trace terms ("chan receive", "select", "sync", …); null when the detector does not say. */
  readonly reason: string | null;
  /** What is claimed: blocked forever, or alive after its test ended; absent when the detector does not tell them apart (the peers). */
  readonly finding?: "blocked-forever" | "outlived" | "potential-deadlock";
  /** For a potential deadlock: "file.go:LINE" (base name) of every lock acquisition of its cycle; it matches a label naming any of them. */
  readonly lockSites?: readonly string[];
}

/**
 * Whether a finding claims something is wrong and so is scored against labels: blocked
 * forever (leak, deadlock) or outlived its test. Background and inconclusive findings
 * claim nothing about the program's own logic.
 */
export function isReportedFinding(finding: Pick<LeakFinding, "kind">): boolean {
  return finding.kind === "leak" || finding.kind === "deadlock" || finding.kind === "outlived";
}

/** The signature of a detector finding. */
export function signatureOfFinding(
  finding: Pick<LeakFinding, "program" | "isRoot" | "creationSiteKey" | "goroutine" | "reason" | "kind">,
): BlockedSignature {
  return {
    program: finding.program,
    siteKey: finding.isRoot ? null : finding.creationSiteKey,
    root: finding.isRoot ? finding.goroutine : null,
    reason: finding.reason,
    finding: finding.kind === "outlived" ? "outlived" : "blocked-forever",
  };
}

/** The signature of a potential deadlock: its goroutines' sites do not matter, its lock acquisitions do. */
export function signatureOfPotential(p: PotentialDeadlock): BlockedSignature {
  const key = (site: string | null): string => (site === null ? "" : (site.split(" ").pop() ?? site));
  return {
    program: p.program,
    siteKey: null,
    root: null,
    reason: "sync",
    finding: "potential-deadlock",
    lockSites: p.steps.map((s) => key(s.takenAt)).filter((k) => k !== ""),
  };
}

/** One key per distinct (site or root, reason): goroutines created in a loop collapse into one. */
export function signatureKey(s: BlockedSignature): string {
  return `${s.program}|${s.siteKey ?? `root:${s.root ?? ""}`}|${s.reason ?? "?"}|${s.finding ?? "?"}|${(s.lockSites ?? []).join(",")}`;
}

/** Distinct signatures, first occurrence kept. */
export function distinctSignatures(signatures: readonly BlockedSignature[]): BlockedSignature[] {
  const seen = new Map<string, BlockedSignature>();
  for (const s of signatures) if (!seen.has(signatureKey(s))) seen.set(signatureKey(s), s);
  return [...seen.values()];
}

/**
 * Whether two detectors' signatures name the same goroutine, by the rule scoring matches a
 * signature to a label (score.ts, matchesExpected): the same program; the `go` statement's
 * "file.go:LINE", or for root goroutines the same function (or its base name, a -test.count
 * repetition suffix "#N" aside); and the same reason when both give one. Potential deadlocks
 * match only each other, by a shared lock acquisition.
 */
export function sameGoroutine(a: BlockedSignature, b: BlockedSignature): boolean {
  if (a.program !== b.program) return false;
  const potential = a.finding === "potential-deadlock";
  if (potential !== (b.finding === "potential-deadlock")) return false;
  if (potential) return (a.lockSites ?? []).some((site) => (b.lockSites ?? []).includes(site));
  if (a.reason !== null && b.reason !== null && a.reason !== b.reason) return false;
  if (a.siteKey !== null || b.siteKey !== null) return a.siteKey === b.siteKey;
  if (a.root === null || b.root === null) return false;
  const rootName = (root: string): string => root.replace(/#\d+$/, "");
  return (
    rootName(a.root) === rootName(b.root) || functionBaseName(rootName(a.root)) === functionBaseName(rootName(b.root))
  );
}

/** The last dotted component of a function name: "schedlab.dev/x/pkg.TestFoo" → "TestFoo". */
export function functionBaseName(name: string): string {
  const slash = name.slice(name.lastIndexOf("/") + 1);
  return slash.slice(slash.lastIndexOf(".") + 1);
}
