// The wait-for graph of a bug, as data for a picture: its goroutines and the ones they wait
// for as nodes, "waits-for" and "holds" edges, the cycle in order, and the verdict's evidence.
// Derived only from the explanations (src/model/explain.ts) of the bug's goroutines, so the
// graph is their waits-for relation and cycle exactly; and the same for a potential deadlock
// (lock-order steps). Pure.

import {
  goroutineLabel,
  siteLine,
  type EndState,
  type Explanation,
  type PotentialDeadlock,
  type WaitForBasis,
} from "../model/index.js";
import type { BugReport } from "./from-database.js";
import { evidenceText } from "./format.js";
import type { LeakFinding } from "./types.js";

/** A goroutine of the picture: one of the bug's (`member`) or one they wait for. */
export interface GoroutineNode {
  readonly kind: "goroutine";
  /** The canonical goroutine id (a potential deadlock's queued writer: "writer@<site>"). */
  readonly id: string;
  /** Its readable name (goroutineLabel). */
  readonly label: string;
  /** "function file:line" where it waits (blocked) or last stood; null when unknown. */
  readonly site: string | null;
  /** What it waits on (Mutex.Lock, chan send, …) when blocked; null otherwise. */
  readonly wait: string | null;
  /** Its state when the trace of the run explained stopped; "unknown" when no explanation says. */
  readonly state: EndState | "unknown";
  readonly member: boolean;
}

/** A lock the explanation knows: named by where its holder took it (lock addresses differ between runs). */
export interface LockNode {
  readonly kind: "lock";
  /** "lock@<site of its acquisition>@<holder>". */
  readonly id: string;
  readonly label: string;
  readonly site: string | null;
}

export type GraphNode = GoroutineNode | LockNode;

/** How an edge is known: an explanation's basis, a step of its cycle, or a recorded acquisition order of a potential deadlock. */
export type EdgeBasis = WaitForBasis | "cycle" | "lock-order" | "queued-writer";

/**
 * `from` waits for `to` (a goroutine, or for a potential deadlock a lock), or `from` holds
 * the lock `to`. Every waits-for edge between goroutines is a WaitFor of an explanation or a
 * step of its cycle.
 */
export interface GraphEdge {
  readonly kind: "waits-for" | "holds";
  readonly from: string;
  readonly to: string;
  readonly basis: EdgeBasis;
  /** What the waiting side waits in (chan send, Mutex.Lock, …), or a lock's mode; null when unknown. */
  readonly label: string | null;
}

export interface WaitForGraph {
  /** What it pictures, e.g. "PROVEN deadlock — kernels/abba/mirrorsync TestMirror". */
  readonly title: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  /** The cycle as node ids in wait-for order (each waits for, or is held by, the next; the last closes on the first); null when none. */
  readonly cycle: readonly string[] | null;
  /** The verdict and its evidence, then the explanation's paragraph: text beside the picture. */
  readonly evidence: readonly string[];
  /** Said when no explanation names a waited-for goroutine (e.g. "no waiter is known"); else null. */
  readonly note: string | null;
}

/** What the graph reads of a bug. */
export type PicturedBug = Pick<
  BugReport,
  "program" | "test" | "kind" | "verdict" | "why" | "evidence" | "goroutines" | "explained" | "runIds"
>;

/** What the graph reads of a finding: where its goroutine blocks, on what, and why. */
export type PicturedFinding = Pick<LeakFinding, "program" | "goroutine" | "blockingSite" | "wait" | "explanation">;

/** The explanation of each of the bug's goroutines that has one, in the bug's order. */
export function memberExplanations(
  bug: PicturedBug,
  findings: readonly PicturedFinding[],
): { readonly goroutine: string; readonly explanation: Explanation }[] {
  const byGoroutine = new Map(
    findings.filter((f) => f.program === bug.program).map((f) => [f.goroutine, f.explanation] as const),
  );
  return bug.goroutines.flatMap((goroutine) => {
    const explanation =
      byGoroutine.get(goroutine) ?? (bug.explained?.goroutine === goroutine ? bug.explained.explanation : null) ?? null;
    return explanation === null ? [] : [{ goroutine, explanation }];
  });
}

/**
 * The node id of the lock `holder` took at `site`: lock addresses differ between runs, and two
 * goroutines may take two different locks at one line (an AB-BA transfer), so the holder is part of the name.
 */
function lockId(holder: string, site: string | null): string {
  return `lock@${site ?? "?"}@${holder}`;
}

/**
 * The wait-for graph of `bug` from the explanations of its goroutines (the findings of
 * `analysis`): every WaitFor is a waits-for edge (and, for a lock holder that says where it
 * took the lock, a holds edge to that lock), every step of a cycle one to the next; the cycle
 * drawn as such is the bug's explained cycle, else the first member's that has one.
 */
export function waitForGraph(
  bug: PicturedBug,
  analysis: { readonly findings: readonly PicturedFinding[] },
): WaitForGraph {
  const findings = new Map(
    analysis.findings.filter((f) => f.program === bug.program).map((f) => [f.goroutine, f] as const),
  );
  const explained = memberExplanations(bug, analysis.findings);
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const addEdge = (edge: GraphEdge): void => {
    const key = `${edge.kind} ${edge.from} ${edge.to}`;
    if (!edges.has(key)) edges.set(key, edge);
  };
  const explanationOf = new Map(explained.map((e) => [e.goroutine, e.explanation]));
  for (const goroutine of bug.goroutines) {
    const finding = findings.get(goroutine);
    const explanation = explanationOf.get(goroutine);
    // Where its explanation's run left it (the top frame of its stack there), which the finding's
    // most frequent site may not be when the schedule decides where it blocks.
    nodes.set(goroutine, {
      kind: "goroutine",
      id: goroutine,
      label: goroutineLabel(goroutine),
      site: explanation?.stack[0] ?? finding?.blockingSite ?? null,
      wait: explanation?.wait ?? finding?.wait ?? null,
      state: explanation !== undefined ? "blocked" : "unknown",
      member: true,
    });
  }
  // The bug's own explanation first: its run decides the state of a goroutine others also name.
  const ordered = [...explained].sort(
    (a, b) => Number(b.goroutine === bug.explained?.goroutine) - Number(a.goroutine === bug.explained?.goroutine),
  );
  for (const { goroutine, explanation } of ordered) {
    for (const w of explanation.waitsFor) {
      if (!nodes.has(w.goroutine))
        nodes.set(w.goroutine, {
          kind: "goroutine",
          id: w.goroutine,
          label: goroutineLabel(w.goroutine),
          site: w.state === "blocked" ? w.blockedAt : null,
          wait: w.state === "blocked" ? w.wait : null,
          state: w.state,
          member: false,
        });
      addEdge({ kind: "waits-for", from: goroutine, to: w.goroutine, basis: w.basis, label: explanation.wait });
      if (w.basis === "holds-lock" && w.tookLockAt !== null) {
        const lock = lockId(w.goroutine, w.tookLockAt);
        if (!nodes.has(lock))
          nodes.set(lock, {
            kind: "lock",
            id: lock,
            label: `lock taken at ${siteLine(w.tookLockAt)}`,
            site: w.tookLockAt,
          });
        addEdge({ kind: "holds", from: w.goroutine, to: lock, basis: "holds-lock", label: null });
      }
    }
  }
  // Every member's cycle is part of the relation; the one drawn as the cycle is the bug's own, else the first.
  for (const { explanation } of ordered) {
    const steps = explanation.cycle ?? [];
    steps.forEach((step, i) => {
      const next = steps[(i + 1) % steps.length];
      if (!nodes.has(step.goroutine))
        nodes.set(step.goroutine, {
          kind: "goroutine",
          id: step.goroutine,
          label: goroutineLabel(step.goroutine),
          site: step.site,
          wait: step.wait,
          state: "blocked",
          member: false,
        });
      addEdge({ kind: "waits-for", from: step.goroutine, to: next.goroutine, basis: "cycle", label: step.wait });
    });
  }
  const steps = ordered.find((e) => e.explanation.cycle !== null)?.explanation.cycle ?? null;
  const waited = [...edges.values()].some((e) => e.kind === "waits-for");
  const text = bug.explained?.explanation.text ?? bug.why;
  return {
    title: `${bug.verdict.toUpperCase()} ${bug.kind} — ${bug.program}${bug.test === null ? "" : ` ${bug.test}`}`,
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    cycle: steps === null ? null : steps.map((s) => s.goroutine),
    evidence: [`${bug.verdict}: ${bug.why}`, `Evidence: ${evidenceText(bug.evidence)}.`, text],
    note: waited
      ? null
      : explained.length === 0
        ? "No run left these goroutines blocked with an explanation: no waiter is known."
        : "No explanation names a goroutine they wait for: no waiter is known.",
  };
}

/** The call that takes a lock in `mode` ("w" or "r", OrderStep.modes). */
function lockCall(mode: string | undefined): string {
  return mode === "r" ? "RLock" : "Lock";
}

/**
 * The graph of a potential deadlock: for a lock-order inversion, goroutine i holds lock i
 * (taken at its heldAt) and waits for lock i+1, the one the next goroutine holds; for a
 * recursive read lock, the goroutine holds the read lock, a writer queues for it, and the
 * second read waits behind that writer.
 */
export function potentialDeadlockGraph(p: PotentialDeadlock): WaitForGraph {
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const goroutine = (id: string, site: string | null, wait: string | null): void => {
    if (!nodes.has(id))
      nodes.set(id, { kind: "goroutine", id, label: goroutineLabel(id), site, wait, state: "unknown", member: true });
  };
  const lock = (holder: string, site: string | null): string => {
    const id = lockId(holder, site);
    if (!nodes.has(id)) nodes.set(id, { kind: "lock", id, label: `lock taken at ${siteLine(site)}`, site });
    return id;
  };
  let cycle: string[];
  if (p.pattern === "lock-order") {
    // Each step holds the lock the previous step asks for: name a lock by its holder's acquisition.
    const held = p.steps.map((s) => lock(s.goroutine, s.heldAt));
    cycle = [];
    p.steps.forEach((s, i) => {
      const asked = held[(i + 1) % held.length];
      const wants = lockCall(s.modes[1]);
      goroutine(s.goroutine, s.takenAt, wants);
      edges.push({ kind: "holds", from: s.goroutine, to: held[i], basis: "lock-order", label: lockCall(s.modes[0]) });
      edges.push({ kind: "waits-for", from: s.goroutine, to: asked, basis: "lock-order", label: wants });
      cycle.push(s.goroutine, asked);
    });
  } else {
    const [s] = p.steps;
    const held = lock(s.goroutine, s.heldAt);
    const writer = `writer@${p.writerAt ?? "?"}`;
    goroutine(s.goroutine, s.takenAt, "RLock");
    nodes.set(writer, {
      kind: "goroutine",
      id: writer,
      label: "a writer",
      site: p.writerAt,
      wait: "Lock",
      state: "unknown",
      member: false,
    });
    edges.push({ kind: "holds", from: s.goroutine, to: held, basis: "lock-order", label: "RLock" });
    edges.push({ kind: "waits-for", from: writer, to: held, basis: "lock-order", label: "Lock" });
    edges.push({ kind: "waits-for", from: s.goroutine, to: writer, basis: "queued-writer", label: "RLock" });
    cycle = [s.goroutine, writer, held];
  }
  return {
    title: `POTENTIAL ${p.pattern} — ${p.program} ${p.owner}`,
    nodes: [...nodes.values()],
    edges,
    cycle,
    evidence: [p.why, `Seen in ${p.runIds.length} run${p.runIds.length === 1 ? "" : "s"}, none of which hung on it.`],
    note: null,
  };
}
