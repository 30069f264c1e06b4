// `leaks --compare goleak,leakprofile`: which detectors report each goroutine left blocked,
// read from the same runs, with no manifest needed. One row per goroutine any detector
// reported (schedlab's findings, each named peer's signatures as scoreLeaks reads them),
// matched by the scoring's rule (signature.ts, sameGoroutine), and agreement per pair.

import { fixed } from "../core/index.js";
import { UsageError } from "../errors.js";
import type { FindingKind } from "../model/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import {
  analyseLeaks,
  DETECTORS,
  peerSignatures,
  type AnalyseOptions,
  type DetectorName,
  type LeakAnalysis,
} from "./from-database.js";
import { storedPrograms } from "./load.js";
import { isReportedFinding, sameGoroutine, signatureOfFinding, type BlockedSignature } from "./signature.js";
import type { LeakFinding } from "./types.js";

/** Version of the `leaks --compare --json` object; raised when a field changes meaning or goes away. */
export const COMPARISON_JSON_VERSION = 1;

/** A detector `--compare` can hold against schedlab's own: the peers read from a run's files. */
export type PeerDetector = Exclude<DetectorName, "schedlab">;

const PEER_DETECTORS = DETECTORS.filter((d): d is PeerDetector => d !== "schedlab");

/** Parses "goleak,leakprofile" (also "dump"; "schedlab" is always compared and may be named). */
export function parseCompareDetectors(text: string): PeerDetector[] {
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && s !== "schedlab");
  for (const name of names) {
    if (!(PEER_DETECTORS as readonly string[]).includes(name)) {
      throw new UsageError(
        `unknown detector ${JSON.stringify(name)} for --compare`,
        `Compare schedlab with any of ${PEER_DETECTORS.join(", ")}, comma-separated, e.g. --compare goleak,leakprofile.`,
      );
    }
  }
  if (names.length === 0)
    throw new UsageError(
      "--compare needs a detector to compare schedlab with",
      `Give any of ${PEER_DETECTORS.join(", ")}, comma-separated, e.g. --compare goleak,leakprofile.`,
    );
  return [...new Set(names)] as PeerDetector[];
}

/**
 * What one detector says of one goroutine: reported it (schedlab with the kind it found);
 * `seen` — schedlab judged it but does not report it (background, inconclusive), so it
 * counts as not reported; `silent` — it had output for the program and did not report it;
 * `no-output` — it produced nothing for the program (not collected, or it could not run).
 */
export type DetectorVerdict =
  | { readonly status: "reported"; readonly kind?: FindingKind }
  | { readonly status: "seen"; readonly kind: FindingKind }
  | { readonly status: "silent" }
  | { readonly status: "no-output" };

/** One goroutine (a `go` statement's site, or a root function) and each detector's verdict on it. */
export interface ComparisonRow {
  readonly program: string;
  /** "file.go:LINE" of the `go` statement; null for a root goroutine. */
  readonly siteKey: string | null;
  /** The root goroutine's function ("main.main", "TestX"); null otherwise. */
  readonly root: string | null;
  /** Block reason in trace terms; null when no detector gave one. */
  readonly reason: string | null;
  /** From schedlab, when it found the goroutine: its function, test path and bug fingerprints. */
  readonly entry: string | null;
  readonly test: string | null;
  readonly bugs: readonly string[];
  /** Verdict per compared detector, schedlab first. */
  readonly detectors: Readonly<Partial<Record<DetectorName, DetectorVerdict>>>;
}

/** How two detectors agree over the rows. */
export interface PairAgreement {
  readonly a: DetectorName;
  readonly b: DetectorName;
  readonly both: number;
  /** Reported by `a` only, in programs `b` had output for. */
  readonly onlyA: number;
  readonly onlyB: number;
  /** Reported by one of them in a program the other had no output for: not counted above. */
  readonly notComparable: number;
  /** both / (both + onlyA + onlyB); null when neither reported a comparable goroutine. */
  readonly agreement: number | null;
}

export interface DetectorCoverage {
  readonly detector: DetectorName;
  /** Programs it produced output for (schedlab: programs with ingested runs). */
  readonly programsWithOutput: number;
  /** Rows it reports. */
  readonly reported: number;
  /** Why it produced no output at all, with what to do; null when it did. */
  readonly missing: string | null;
  /** Why collect left it out of some builds (its `schedlab --peers:` build notes), distinct. */
  readonly skipped: readonly string[];
}

export interface DetectorComparison {
  readonly version: number;
  /** Programs compared (every program in the database, or the one --program names). */
  readonly programs: number;
  readonly detectors: readonly DetectorCoverage[];
  readonly rows: readonly ComparisonRow[];
  readonly pairs: readonly PairAgreement[];
  /** What limits the comparison, to print with it. */
  readonly notes: readonly string[];
}

/** One peer's output over the programs compared. */
export interface PeerOutput {
  readonly detector: PeerDetector;
  /** Programs it produced output for in at least one run. */
  readonly programsWithOutput: ReadonlySet<string>;
  readonly signatures: readonly BlockedSignature[];
  /** Its build notes ("the package defines its own TestMain", …), distinct. */
  readonly skipped: readonly string[];
}

/** What the comparison reads of a schedlab finding. */
export type OwnFinding = Pick<
  LeakFinding,
  "program" | "goroutine" | "isRoot" | "creationSiteKey" | "reason" | "kind" | "entry" | "test" | "bug"
>;

/** schedlab's side: its findings, and the programs it had ingested runs for. */
export interface OwnOutput {
  readonly findings: readonly OwnFinding[];
  readonly programsWithOutput: ReadonlySet<string>;
}

interface Building {
  readonly signature: BlockedSignature;
  entry: string | null;
  test: string | null;
  readonly bugs: Set<string>;
  readonly verdicts: Map<DetectorName, DetectorVerdict>;
}

/**
 * Puts schedlab's findings and each peer's signatures side by side. A row is made for each
 * goroutine some detector reports (schedlab's leak, deadlock and outlived findings; any
 * peer signature); schedlab's background and inconclusive findings only mark the rows they
 * match. Rows come in program order, schedlab's first. Pure.
 */
export function compareDetectors(
  programs: readonly string[],
  own: OwnOutput,
  peers: readonly PeerOutput[],
): DetectorComparison {
  const rows: Building[] = [];
  const rowOf = (signature: BlockedSignature): Building | undefined =>
    rows.find((r) => sameGoroutine(r.signature, signature));
  const add = (
    signature: BlockedSignature,
    detector: DetectorName,
    verdict: DetectorVerdict,
    create: boolean,
  ): Building | undefined => {
    let row = rowOf(signature);
    if (row === undefined) {
      if (!create) return undefined;
      row = { signature, entry: null, test: null, bugs: new Set(), verdicts: new Map() };
      rows.push(row);
    }
    const before = row.verdicts.get(detector);
    if (before === undefined || (before.status !== "reported" && verdict.status === "reported"))
      row.verdicts.set(detector, verdict);
    return row;
  };
  const addOwn = (finding: OwnFinding, isReported: boolean): void => {
    const row = add(
      signatureOfFinding(finding),
      "schedlab",
      isReported ? { status: "reported", kind: finding.kind } : { status: "seen", kind: finding.kind },
      isReported,
    );
    if (row === undefined) return;
    row.entry ??= finding.isRoot ? null : finding.entry;
    row.test ??= finding.test;
    row.bugs.add(finding.bug);
  };
  for (const finding of own.findings) if (isReportedFinding(finding)) addOwn(finding, true);
  for (const peer of peers)
    for (const signature of peer.signatures) add(signature, peer.detector, { status: "reported" }, true);
  for (const finding of own.findings) if (!isReportedFinding(finding)) addOwn(finding, false);

  const detectors: DetectorName[] = ["schedlab", ...peers.map((p) => p.detector)];
  const covered = new Map<DetectorName, ReadonlySet<string>>([
    ["schedlab", own.programsWithOutput],
    ...peers.map((p): [DetectorName, ReadonlySet<string>] => [p.detector, p.programsWithOutput]),
  ]);
  const order = new Map(programs.map((p, i) => [p, i]));
  const finished: ComparisonRow[] = rows
    .map((r, i) => ({ r, i }))
    .sort((x, y) => (order.get(x.r.signature.program) ?? 0) - (order.get(y.r.signature.program) ?? 0) || x.i - y.i)
    .map(({ r }) => ({
      program: r.signature.program,
      siteKey: r.signature.siteKey,
      root: r.signature.root,
      reason: r.signature.reason,
      entry: r.entry,
      test: r.test,
      bugs: [...r.bugs],
      detectors: Object.fromEntries(
        detectors.map((d) => [
          d,
          r.verdicts.get(d) ??
            (covered.get(d)?.has(r.signature.program) === true ? { status: "silent" } : { status: "no-output" }),
        ]),
      ),
    }));
  const pairs: PairAgreement[] = [];
  for (const [i, a] of detectors.entries())
    for (const b of detectors.slice(i + 1)) pairs.push(pairAgreement(finished, a, b));
  return {
    version: COMPARISON_JSON_VERSION,
    programs: programs.length,
    detectors: detectors.map((d) => {
      const programsWithOutput = covered.get(d)?.size ?? 0;
      const peer = peers.find((p) => p.detector === d);
      return {
        detector: d,
        programsWithOutput,
        reported: finished.filter((r) => r.detectors[d]?.status === "reported").length,
        missing:
          programsWithOutput > 0 || programs.length === 0
            ? null
            : missingOutput(d, programs.length, peer?.skipped ?? []),
        skipped: peer?.skipped ?? [],
      };
    }),
    rows: finished,
    pairs,
    notes: [],
  };
}

function pairAgreement(rows: readonly ComparisonRow[], a: DetectorName, b: DetectorName): PairAgreement {
  let both = 0;
  let onlyA = 0;
  let onlyB = 0;
  let notComparable = 0;
  for (const row of rows) {
    const va = row.detectors[a];
    const vb = row.detectors[b];
    const ra = va?.status === "reported";
    const rb = vb?.status === "reported";
    if (ra && rb) both++;
    else if (ra && vb?.status === "no-output") notComparable++;
    else if (ra) onlyA++;
    else if (rb && va?.status === "no-output") notComparable++;
    else if (rb) onlyB++;
  }
  const compared = both + onlyA + onlyB;
  return { a, b, both, onlyA, onlyB, notComparable, agreement: compared === 0 ? null : both / compared };
}

/** The message for a detector that produced nothing for any program compared. */
function missingOutput(detector: DetectorName, programs: number, skipped: readonly string[]): string {
  const of = `in any run of the ${programs} program(s) compared`;
  const why = skipped.length > 0 ? ` Its builds say: ${skipped.join("; ")}.` : "";
  switch (detector) {
    case "schedlab":
      return `schedlab has no ingested run ${of}: run \`schedlab ingest\` (collect does it unless --no-ingest).`;
    case "dump":
      return (
        `no goroutine dump was kept ${of}: a dump is kept only for a main program's runs and for test runs ` +
        `that crashed or timed out, so passing tests have none.`
      );
    case "goleak":
      return (
        `goleak produced no output ${of}: it was not collected. Collect with \`--peers goleak\` ` +
        `(add --force to redo runs already recorded) and compare again.${why}`
      );
    case "leakprofile":
      return (
        `the goroutine leak profile produced no output ${of}: the runs were collected with --no-leak-profile, ` +
        `or by a toolchain without one (Go 1.26 or newer takes it at the end of every run). Collect again ` +
        `without --no-leak-profile (add --force to redo runs already recorded) and compare again.${why}`
      );
  }
}

/** Distinct `schedlab --peers: <detector>: why` notes in the program's recorded build outputs. */
function peerBuildNotes(db: SchedlabDatabase, programId: number, detector: PeerDetector): string[] {
  const rows = db.prepare("SELECT output FROM builds WHERE program_id = ?").all(programId) as {
    output: string | null;
  }[];
  const prefix = `schedlab --peers: ${detector}: `;
  const notes = rows.flatMap((r) =>
    (r.output ?? "")
      .split("\n")
      .filter((line) => line.startsWith(prefix))
      .map((line) => line.slice(prefix.length)),
  );
  return [...new Set(notes)];
}

/**
 * Compares schedlab's findings with `peers` over the programs of the database (or the one
 * `options.program` names): schedlab's from `given` (an analysis already made) or analysed
 * afresh and stored, the peers' from the files collect wrote beside each run's trace, read
 * as scoreLeaks reads them. Manifests are not used.
 */
export async function compareLeaks(
  db: SchedlabDatabase,
  peers: readonly PeerDetector[],
  options: AnalyseOptions = {},
  given?: LeakAnalysis,
): Promise<DetectorComparison> {
  const analysis = given ?? (await analyseLeaks(db, options));
  const programs = storedPrograms(db, options.program);
  const outputs: PeerOutput[] = peers.map((detector) => {
    const programsWithOutput = new Set<string>();
    const signatures: BlockedSignature[] = [];
    const skipped = new Set<string>();
    for (const program of programs) {
      const peer = peerSignatures(db, program, detector);
      if (peer.covered) programsWithOutput.add(program.name);
      signatures.push(...peer.signatures);
      if (detector !== "dump")
        for (const note of peerBuildNotes(db, program.id, detector)) skipped.add(`${program.name}: ${note}`);
    }
    return { detector, programsWithOutput, signatures, skipped: [...skipped] };
  });
  const own = { findings: analysis.findings, programsWithOutput: new Set(analysis.programs.map((p) => p.program)) };
  const comparison = compareDetectors(
    programs.map((p) => p.name),
    own,
    outputs,
  );
  const potential = analysis.potentialDeadlocks.length;
  const notes = [
    ...(potential > 0
      ? [
          `schedlab's ${potential} potential deadlock(s) are left out: no goroutine was left blocked by them, so no peer can report them.`,
        ]
      : []),
    ...analysis.notes,
  ];
  return { ...comparison, notes };
}

const CELL: Record<DetectorVerdict["status"], (v: DetectorVerdict) => string> = {
  reported: (v) => (v.status === "reported" && v.kind !== undefined ? v.kind : "yes"),
  seen: (v) => (v.status === "seen" ? `(${v.kind})` : ""),
  silent: () => "-",
  "no-output": () => "no output",
};

function padded(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
}

/** The goroutine of a row as the text names it: "main.go:23 (main.watch)", "root TestX". */
function goroutineLabel(row: ComparisonRow): string {
  if (row.siteKey === null) return `root ${row.root ?? "?"}`;
  return row.entry === null ? row.siteKey : `${row.siteKey} (${row.entry.slice(row.entry.lastIndexOf("/") + 1)})`;
}

/** The comparison as text: coverage and missing peers first, then one line per goroutine, then agreement per pair. */
export function formatComparison(c: DetectorComparison): string {
  const names = c.detectors.map((d) => d.detector);
  const head = [
    `Detectors on the same runs of ${c.programs} program(s), no manifest needed: ${names.join(", ")}.`,
    `Output for: ${c.detectors.map((d) => `${d.detector} ${d.programsWithOutput}/${c.programs} programs`).join(", ")}.`,
    ...c.detectors.flatMap((d) => (d.missing === null ? [] : [d.missing])),
    ...c.detectors
      .filter((d) => d.missing === null && d.skipped.length > 0)
      .map((d) => `${d.detector} was left out of some builds: ${d.skipped.join("; ")}`),
  ];
  const table =
    c.rows.length === 0
      ? "No detector reported a goroutine left blocked."
      : padded([
          ["program", "goroutine", "reason", ...names],
          ...c.rows.map((r) => [
            r.program,
            goroutineLabel(r),
            r.reason ?? "?",
            ...names.map((d) => {
              const v = r.detectors[d] ?? { status: "no-output" as const };
              return CELL[v.status](v);
            }),
          ]),
        ]).join("\n");
  const pairs =
    c.pairs.length === 0
      ? ""
      : [
          "Agreement per pair (both: reported by the two; only: by one, where the other had output; not comparable: the other had none):",
          ...padded([
            ["pair", "both", "only first", "only second", "not comparable", "agreement"],
            ...c.pairs.map((p) => [
              `${p.a} / ${p.b}`,
              String(p.both),
              String(p.onlyA),
              String(p.onlyB),
              String(p.notComparable),
              fixed(p.agreement, 2),
            ]),
          ]).map((line) => `  ${line}`),
        ].join("\n");
  return [head.join("\n"), table, pairs, c.notes.map((n) => `note: ${n}`).join("\n")]
    .filter((s) => s !== "")
    .join("\n\n");
}
