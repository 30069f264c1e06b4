// Bugs, not rows: the goroutines of one owner (a test, repetitions of -test.count folded
// together, or the program) that end blocked together, or wait for one another, form one
// bug with a stable fingerprint — package-qualified function names and precise waits,
// never goroutine numbers, lines or machine paths — and a verdict read first: proven (a
// hung run, or a cycle), likely (blocked forever in a finished run), inconclusive
// (docs/leaks.md, "Bugs"). Pure.

import { createHash } from "node:crypto";
import { explanationWeight, type Explanation } from "./explain.js";
import { endWaitOf, type GoroutineJudgement } from "./leak-rule.js";
import type { AnalysedRun, Evidence, FindingKind, ProgramRuns, Verdict } from "./types.js";
import { parseFrame, parseStack } from "./waits.js";

/** One bug of a program. */
export interface Bug {
  /** 16 hex digits, stable across runs, machines and edits that move lines (docs/leaks.md, "Fingerprints"). */
  readonly fingerprint: string;
  readonly program: string;
  /** The owner: the test (without a -test.count repetition suffix), "main.main", or a background root. */
  readonly owner: string;
  /** The strongest kind among its goroutines. */
  readonly kind: FindingKind;
  readonly verdict: Verdict;
  /** Counted by --fail-on-leak. */
  readonly gating: boolean;
  /** Canonical ids of its goroutines, sorted. */
  readonly goroutines: readonly string[];
  /** Runs (non-crashed) in which any of them ended blocked. */
  readonly runIds: readonly number[];
  /** The explanation that says the most, and its goroutine. */
  readonly explained: { readonly goroutine: string; readonly explanation: Explanation } | null;
  /** One sentence: why this verdict. */
  readonly why: string;
  /** What decided the verdict, by kind of evidence (the deciding goroutine's; a cycle's trace evidence is "cycle"). */
  readonly evidence: Evidence;
  /** Its goroutines whose own kind or verdict is not the bug's, each with its own and why (sorted by goroutine); [] when all agree. */
  readonly differing: readonly MemberJudgement[];
}

/** A goroutine of a bug as the rule judged it on its own. */
export interface MemberJudgement {
  readonly goroutine: string;
  readonly kind: FindingKind;
  readonly verdict: Verdict;
  readonly why: string;
}

/** A test root without its -test.count repetition suffix: "TestPool#3" → "TestPool". */
export function ownerRoot(canonicalId: string): string {
  return canonicalId.split("/", 1)[0].replace(/#\d+$/, "");
}

/** The id of a goroutine with the repetition suffix of its root removed: the same goroutine in every repetition. */
function withoutRepetition(canonicalId: string): string {
  const slash = canonicalId.indexOf("/");
  return slash < 0 ? ownerRoot(canonicalId) : ownerRoot(canonicalId) + canonicalId.slice(slash);
}

const KIND_ORDER: readonly FindingKind[] = ["deadlock", "leak", "outlived", "inconclusive", "background"];
const VERDICT_ORDER: readonly Verdict[] = ["proven", "likely", "inconclusive"];

/** The part of a member that the fingerprint keeps: owner, the function it is blocked in, and its wait. */
function signature(
  judgement: GoroutineJudgement,
  runs: readonly AnalysedRun[],
  explanation: Explanation | undefined,
): string {
  let site: string | null = null;
  let wait = explanation?.wait ?? "";
  for (const r of runs) {
    const block = endWaitOf(r, judgement.goroutine);
    if (block === undefined) continue;
    site =
      ("stack" in block ? parseStack(block.stack).frames[0]?.function : undefined) ??
      (block.blockingSite === null ? null : (parseFrame(block.blockingSite)?.function ?? null));
    if (wait === "") wait = block.wait;
    break;
  }
  return `${ownerRoot(judgement.goroutine)}|${site ?? ""}|${wait}`;
}

/** A program's name without the "#TestName" of a split test: the same program whichever tests were split out. */
export function fingerprintProgram(program: string): string {
  return program.replace(/#.*$/, "");
}

/** Fingerprint of a bug from its members' signatures (sorted, deduplicated) and its program's kind of owner. */
export function fingerprintOf(signatures: Iterable<string>): string {
  return createHash("sha256")
    .update([...new Set(signatures)].sort().join("\n"))
    .digest("hex")
    .slice(0, 16);
}

class UnionFind {
  private readonly parent = new Map<string, string>();
  find(x: string): string {
    let root = x;
    while ((this.parent.get(root) ?? root) !== root) root = this.parent.get(root) as string;
    this.parent.set(x, root);
    return root;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
}

/**
 * Groups a program's judged goroutines into bugs. Two goroutines belong to one bug when
 * they are the same goroutine in two -test.count repetitions, wait for each other (an
 * explanation names the other), or end blocked in a common run under the same owner.
 * Background goroutines are never grouped with a test's.
 */
export function groupBugs(
  program: ProgramRuns,
  judgements: readonly GoroutineJudgement[],
  explanations: ReadonlyMap<string, Explanation>,
): Bug[] {
  const runs = program.runs.filter((r) => !r.run.crashed);
  const judged = new Map(judgements.map((j) => [j.goroutine, j]));
  const sets = new UnionFind();
  const byId = new Map<string, string>();
  for (const j of judgements) {
    const same = withoutRepetition(j.goroutine);
    const seen = byId.get(same);
    if (seen === undefined) byId.set(same, j.goroutine);
    else sets.union(seen, j.goroutine);
    for (const w of explanations.get(j.goroutine)?.waitsFor ?? [])
      if (judged.has(w.goroutine) && judged.get(w.goroutine)?.owner.kind === j.owner.kind)
        sets.union(j.goroutine, w.goroutine);
    for (const step of explanations.get(j.goroutine)?.cycle ?? [])
      if (judged.has(step.goroutine)) sets.union(j.goroutine, step.goroutine);
  }
  for (const r of runs) {
    const firstOfOwner = new Map<string, string>();
    for (const id of r.states.finalBlocks.keys()) {
      const j = judged.get(id);
      if (j === undefined || j.kind === "background" || j.kind === "outlived") continue;
      const owner = ownerRoot(id);
      const first = firstOfOwner.get(owner);
      if (first === undefined) firstOfOwner.set(owner, id);
      else sets.union(first, id);
    }
  }
  const members = new Map<string, GoroutineJudgement[]>();
  for (const j of judgements) {
    const root = sets.find(j.goroutine);
    members.set(root, [...(members.get(root) ?? []), j]);
  }
  const bugs: Bug[] = [];
  for (const group of members.values()) {
    const goroutines = group.map((j) => j.goroutine).sort();
    const kind = KIND_ORDER.find((k) => group.some((j) => j.kind === k)) as FindingKind;
    const explained =
      group
        .map((j) => ({ goroutine: j.goroutine, explanation: explanations.get(j.goroutine) }))
        .filter((e): e is { goroutine: string; explanation: Explanation } => e.explanation !== undefined)
        .sort(
          (a, b) =>
            explanationWeight(b.explanation) - explanationWeight(a.explanation) || (a.goroutine < b.goroutine ? -1 : 1),
        )[0] ?? null;
    const runIds = [...new Set(group.flatMap((j) => j.runs.filter((x) => x.kind !== null).map((x) => x.runId)))].sort(
      (a, b) => a - b,
    );
    const { verdict, why, evidence } = verdictOf(kind, group, explained?.explanation ?? null);
    const differing = group
      .filter((j) => j.kind !== kind || j.verdict !== verdict)
      .map((j) => ({ goroutine: j.goroutine, kind: j.kind, verdict: j.verdict, why: j.why }))
      .sort((a, b) => (a.goroutine < b.goroutine ? -1 : 1));
    bugs.push({
      fingerprint: fingerprintOf(
        group.map((j) => `${fingerprintProgram(program.program)}|${signature(j, runs, explanations.get(j.goroutine))}`),
      ),
      program: program.program,
      owner: ownerRoot(goroutines[0]),
      kind,
      verdict,
      gating: group.some((j) => j.gating),
      goroutines,
      runIds,
      explained,
      why,
      evidence,
      differing,
    });
  }
  return distinctFingerprints(bugs).sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict) ||
      (a.goroutines[0] < b.goroutines[0] ? -1 : 1),
  );
}

/**
 * Two bugs of one program can share every part of the fingerprint (the same function
 * started by two `go` statements of one test, never blocked in the same run): the second
 * and later, in the order of their goroutine ids, get an occurrence number mixed in, stable
 * while the code keeps that order.
 */
function distinctFingerprints(bugs: readonly Bug[]): Bug[] {
  const seen = new Map<string, number>();
  return [...bugs]
    .sort((a, b) => (a.goroutines[0] < b.goroutines[0] ? -1 : 1))
    .map((bug) => {
      const n = seen.get(bug.fingerprint) ?? 0;
      seen.set(bug.fingerprint, n + 1);
      return n === 0 ? bug : { ...bug, fingerprint: fingerprintOf([bug.fingerprint, `#${n}`]) };
    });
}

/**
 * The verdict a reader sees first, the one place a bug's verdict comes from its goroutines'.
 * Blocked forever: proven by the runtime (its leak profile, or a hang of the whole process)
 * or by a cycle of blocked goroutines, else the best verdict of its goroutines of that kind
 * (likely: it stayed blocked in a finished run, or for most of a run the deadline cut — not
 * gating then —, or every user goroutine hung but the rest of the process was not seen).
 * Other kinds keep the strongest verdict of their goroutines. Never weaker than the best of
 * its goroutines of its kind, so a bug never heads rows that claim more than it does.
 */
function verdictOf(
  kind: FindingKind,
  group: readonly GoroutineJudgement[],
  explanation: Explanation | null,
): { verdict: Verdict; why: string; evidence: Evidence } {
  const strongest = (k: FindingKind): GoroutineJudgement | undefined =>
    [...group]
      .filter((j) => j.kind === k)
      .sort((a, b) => VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict))[0];
  const cycle = (j: GoroutineJudgement | undefined) => ({
    verdict: "proven" as const,
    why: "its goroutines wait for one another in a cycle",
    evidence: { ...(j?.evidence ?? group[0].evidence), trace: "cycle" as const },
  });
  if (kind === "deadlock") {
    const best = strongest("deadlock");
    if (best?.verdict !== "proven" && explanation?.cycle != null) return cycle(best);
    return { verdict: best?.verdict ?? "likely", why: best?.why ?? "", evidence: (best ?? group[0]).evidence };
  }
  if (kind === "leak") {
    const proven = strongest("leak");
    if (proven?.verdict === "proven" && proven.gating)
      return { verdict: "proven", why: proven.why, evidence: proven.evidence };
    if (explanation?.cycle != null) return cycle(proven);
    // A gating leak decides; else one seen only in cut runs, with its own (likely) verdict.
    const decides = group.find((j) => j.kind === "leak" && j.gating) ?? proven ?? group[0];
    return { verdict: decides.verdict, why: decides.why, evidence: decides.evidence };
  }
  const best = [...group].sort((a, b) => VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict))[0];
  return { verdict: best.verdict, why: best.why, evidence: best.evidence };
}
