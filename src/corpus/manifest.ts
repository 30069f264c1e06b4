// The program manifest (`schedlab.json` in a program directory): ground-truth labels
// for leak detection and corpus statistics. Documented in docs/manifest.md.
// Programs without a manifest work everywhere in schedlab; only scoring needs labels.

import type { ProgramKind } from "../core/index.js";

/**
 * "potential-deadlock": every run ends cleanly (nothing hangs or leaks on any schedule),
 * yet the runs take locks in a pattern that could deadlock on another interleaving (a
 * lock-order cycle, a recursive read lock); its expected entries are all potential deadlocks.
 * "fail": tests that fail on every schedule, for reasons the scheduler has no part in; the
 * manifest lists them in `failures`.
 */
export const OUTCOMES = ["clean", "leak", "deadlock", "race", "panic", "flaky", "potential-deadlock", "fail"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * What the detector should report for an expected goroutine: blocked for ever (a leak, or
 * a deadlock when the run hung), alive after the test that created it ended (a loop on a
 * ticker that nothing stops: what goleak reports), or a potential deadlock (a lock
 * acquisition that closes a lock-order cycle or re-takes a read lock, in runs where it
 * did not block).
 */
export const FINDING_KINDS = ["blocked-forever", "outlived", "potential-deadlock"] as const;
export type ExpectedFinding = (typeof FINDING_KINDS)[number];

export const BLOCK_REASONS = [
  "chan send",
  "chan receive",
  "select",
  "sync",
  "sync.(*Cond).Wait",
  "sleep",
  "forever",
  "network",
  "syscall",
] as const;
export type ExpectedBlockReason = (typeof BLOCK_REASONS)[number];

/**
 * Waits that end by themselves when the outside world acts (a connection arrives, a system
 * call returns): a goroutine in one is never blocked for ever, so an entry with such a
 * reason is always `finding: "outlived"` (a server goroutine that outlives its test).
 */
export const OUTLIVED_ONLY_REASONS: readonly ExpectedBlockReason[] = ["network", "syscall"];

/**
 * How an expected failure shows: "fail", the test reports failure (t.Error, t.Fatal, an
 * Example's output mismatch); "panic", a Go panic; "fatal", a runtime fatal error
 * ("fatal error: concurrent map writes") or a fatal signal ("SIGSEGV: segmentation violation").
 */
export const FAILURE_KINDS = ["fail", "panic", "fatal"] as const;
export type ExpectedFailureKind = (typeof FAILURE_KINDS)[number];

/**
 * A failure expected on every schedule, the manifest's counterpart of collect's
 * `TestFailure` (src/collect/types.ts) with fatal errors told apart from panics.
 */
export interface ExpectedFailure {
  /** The test as `go test -run` names it ("TestX", "TestX/sub", "ExampleX"); null for a main program. */
  readonly test: string | null;
  readonly kind: ExpectedFailureKind;
  /** A substring expected in the failure's message ("want 3 items, got 2", "concurrent map writes"). */
  readonly message?: string;
  /** True when it happens only under the execution tracer (untraced, the test passes). */
  readonly tracerInduced?: boolean;
}

/**
 * A goroutine the program is expected to leave blocked (leak), hang on (deadlock), or,
 * for a potential deadlock, to take a lock at `lockSite` that could block on another schedule.
 */
export interface ExpectedBlockedGoroutine {
  /**
   * Function containing the `go` statement, e.g. "main.main" or "corpus/kernels/abba.TestABBA". For the root goroutine
   * itself (main or the test), the root function and site null.
   */
  readonly creator: string;
  /** The `go` statement, "file.go:LINE" relative to the program directory; null for the root goroutine. */
  readonly site: string | null;
  /** The block reason the trace is expected to show. */
  readonly reason: ExpectedBlockReason;
  /** The kind of finding expected; absent means "blocked-forever". "outlived" needs a test program and a site. */
  readonly finding?: ExpectedFinding;
  /**
   * Required with finding "potential-deadlock" and refused otherwise: "file.go:LINE" of the
   * Lock/RLock call that would block (the acquisition closing the lock-order cycle, or the
   * nested RLock). `site` still names the goroutine's `go` statement.
   */
  readonly lockSite?: string;
}

export interface Manifest {
  readonly kind: ProgramKind;
  /** The concurrency pattern, e.g. "worker-pool", "pipeline", "select-timeout". */
  readonly pattern: string;
  readonly outcome: Outcome;
  /** The real-world bug class modelled, e.g. "double-lock", "abba", "lock-order-inversion"; null for clean programs. */
  readonly bugClass: string | null;
  readonly expected: readonly ExpectedBlockedGoroutine[];
  /** Whether the bug shows on every schedule or only on some; "never" for clean programs. */
  readonly showsOn: "every" | "some" | "never";
  readonly tags: readonly string[];
  readonly description: string;
  /** For generated programs: the generator template and seed that reproduce it. */
  readonly generated?: { readonly template: string; readonly seed: number };
  /**
   * Optional per-run deadline in milliseconds that collection may use instead of its
   * default, e.g. to cut short a program known to deadlock. A positive integer.
   */
  readonly timeoutMs?: number;
  /**
   * For outcome "flaky" only, and required there: the tests that fail only under some
   * schedules, named as `go test -run` names them ("TestX", "TestX/sub").
   */
  readonly flakyTests?: readonly string[];
  /** Failures expected on every schedule, with any outcome; required and non-empty with outcome "fail". */
  readonly failures?: readonly ExpectedFailure[];
}

export const MANIFEST_FILE = "schedlab.json";

const FILE_LINE = /^[^:]+\.go:\d+$/;

/**
 * The expected goroutines a run itself shows blocked or alive: all but the potential
 * deadlocks, whose lock acquisitions never blocked in any run.
 */
export function runTimeExpected(manifest: Manifest): ExpectedBlockedGoroutine[] {
  return manifest.expected.filter((e) => e.finding !== "potential-deadlock");
}

/** Returns the problems with `value` as a manifest; an empty list means valid. */
export function manifestProblems(value: unknown): string[] {
  const problems: string[] = [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return ["manifest is not a JSON object"];
  const m = value as Record<string, unknown>;
  if (m.kind !== "main" && m.kind !== "test")
    problems.push(`kind must be "main" or "test", got ${JSON.stringify(m.kind)}`);
  if (typeof m.pattern !== "string" || m.pattern === "") problems.push("pattern must be a non-empty string");
  if (!OUTCOMES.includes(m.outcome as Outcome))
    problems.push(`outcome must be one of ${OUTCOMES.join(", ")}, got ${JSON.stringify(m.outcome)}`);
  if (m.bugClass !== null && typeof m.bugClass !== "string") problems.push("bugClass must be a string or null");
  if (!["every", "some", "never"].includes(m.showsOn as string))
    problems.push(`showsOn must be "every", "some" or "never"`);
  if (!Array.isArray(m.tags) || !m.tags.every((t) => typeof t === "string"))
    problems.push("tags must be an array of strings");
  if (typeof m.description !== "string" || m.description === "")
    problems.push("description must be a non-empty string");
  if (
    m.timeoutMs !== undefined &&
    (typeof m.timeoutMs !== "number" || !Number.isInteger(m.timeoutMs) || m.timeoutMs <= 0)
  ) {
    problems.push("timeoutMs must be a positive integer (milliseconds) when present");
  }
  if (!Array.isArray(m.expected)) {
    problems.push("expected must be an array");
  } else {
    m.expected.forEach((e: unknown, i: number) => {
      const g = e as Record<string, unknown>;
      if (typeof g !== "object" || g === null) return problems.push(`expected[${i}] is not an object`);
      if (typeof g.creator !== "string") problems.push(`expected[${i}].creator must be a string`);
      if (g.site !== null && (typeof g.site !== "string" || !FILE_LINE.test(g.site)))
        problems.push(`expected[${i}].site must be "file.go:LINE" or null`);
      if (!BLOCK_REASONS.includes(g.reason as ExpectedBlockReason))
        problems.push(`expected[${i}].reason must be one of ${BLOCK_REASONS.join(", ")}`);
      if (g.finding !== undefined && !FINDING_KINDS.includes(g.finding as ExpectedFinding))
        problems.push(`expected[${i}].finding must be one of ${FINDING_KINDS.join(", ")} when present`);
      if (g.finding === "outlived" && g.site === null)
        problems.push(`expected[${i}]: a root goroutine (site null) cannot outlive its own test`);
      if (OUTLIVED_ONLY_REASONS.includes(g.reason as ExpectedBlockReason) && g.finding !== "outlived")
        problems.push(
          `expected[${i}]: reason ${JSON.stringify(g.reason)} needs finding "outlived" (network and syscall waits end by themselves)`,
        );
      problems.push(...potentialDeadlockProblems(g, i, m.outcome));
    });
    if (
      (m.outcome === "leak" || m.outcome === "deadlock" || m.outcome === "potential-deadlock") &&
      m.expected.length === 0
    ) {
      problems.push(`outcome ${String(m.outcome)} needs at least one expected goroutine`);
    }
    if (m.outcome === "clean" && m.expected.length > 0) problems.push("a clean program expects no blocked goroutines");
  }
  problems.push(...flakyTestsProblems(m.outcome, m.flakyTests));
  problems.push(...failuresProblems(m.outcome, m.failures));
  return problems;
}

/**
 * A potential deadlock names the lock call that would block (`lockSite`) and blocks in sync;
 * outcome "potential-deadlock" lists only potential deadlocks (its runs leave nothing
 * blocked), and only that outcome lists them.
 */
function potentialDeadlockProblems(g: Record<string, unknown>, i: number, outcome: unknown): string[] {
  const problems: string[] = [];
  const potential = g.finding === "potential-deadlock";
  if (!potential && g.lockSite !== undefined)
    problems.push(`expected[${i}].lockSite is only allowed with finding "potential-deadlock"`);
  if (potential && (typeof g.lockSite !== "string" || !FILE_LINE.test(g.lockSite)))
    problems.push(
      `expected[${i}].lockSite must be "file.go:LINE" (the lock call that would block) for a potential deadlock`,
    );
  if (potential && g.reason !== "sync")
    problems.push(`expected[${i}]: a potential deadlock would block in "sync", got ${JSON.stringify(g.reason)}`);
  if (potential && outcome !== "potential-deadlock")
    problems.push(`expected[${i}]: finding "potential-deadlock" needs outcome "potential-deadlock"`);
  if (!potential && outcome === "potential-deadlock")
    problems.push(
      `expected[${i}]: outcome potential-deadlock lists only finding "potential-deadlock" (its runs leave nothing blocked)`,
    );
  return problems;
}

/** A test name as `go test -run` takes it: a top-level Test/Example/Fuzz function, optionally "/subtest" parts, no spaces. */
const TEST_NAME = /^(Test|Example|Fuzz)[A-Za-z0-9_]*(\/\S+)?$/;

/** `flakyTests` is required and non-empty with outcome "flaky", and refused with any other. */
function flakyTestsProblems(outcome: unknown, flakyTests: unknown): string[] {
  if (outcome !== "flaky") return flakyTests === undefined ? [] : [`flakyTests is only allowed with outcome "flaky"`];
  if (!Array.isArray(flakyTests) || flakyTests.length === 0)
    return [`outcome flaky needs flakyTests, a non-empty array of test names`];
  return flakyTests.flatMap((name: unknown, i: number) =>
    typeof name === "string" && TEST_NAME.test(name)
      ? []
      : [
          `flakyTests[${i}] must be a test name as go test -run takes it ("TestX", "TestX/sub"), got ${JSON.stringify(name)}`,
        ],
  );
}

/** `failures` is allowed with any outcome and required non-empty with outcome "fail"; each entry is checked. */
function failuresProblems(outcome: unknown, failures: unknown): string[] {
  if (failures === undefined)
    return outcome === "fail" ? [`outcome fail needs failures, a non-empty array of expected failures`] : [];
  if (!Array.isArray(failures)) return ["failures must be an array of expected failures when present"];
  if (outcome === "fail" && failures.length === 0)
    return [`outcome fail needs failures, a non-empty array of expected failures`];
  return failures.flatMap((f: unknown, i: number) => failureProblems(f, i));
}

function failureProblems(value: unknown, i: number): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`failures[${i}] is not an object`];
  const f = value as Record<string, unknown>;
  const problems: string[] = [];
  if (f.test !== null && (typeof f.test !== "string" || !TEST_NAME.test(f.test)))
    problems.push(
      `failures[${i}].test must be a test name as go test -run takes it ("TestX", "ExampleX") or null (a main program), got ${JSON.stringify(f.test)}`,
    );
  if (!FAILURE_KINDS.includes(f.kind as ExpectedFailureKind))
    problems.push(`failures[${i}].kind must be one of ${FAILURE_KINDS.join(", ")}, got ${JSON.stringify(f.kind)}`);
  if (f.message !== undefined && (typeof f.message !== "string" || f.message === ""))
    problems.push(`failures[${i}].message must be a non-empty string when present`);
  if (f.tracerInduced !== undefined && typeof f.tracerInduced !== "boolean")
    problems.push(`failures[${i}].tracerInduced must be true or false when present`);
  return problems;
}
