// Normalises collect options once, at the entry point: defaults, validation and
// duration parsing. Inner modules take NormalizedCollectOptions and never re-check.

import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { isPackagePattern, type ProgramKind } from "../corpus/index.js";
import { UsageError } from "../errors.js";
import { configKey } from "./strategy.js";
import { GO_TEST_DEFAULT_TIMEOUT_MS } from "./timeout.js";
import {
  FINDING_CLASSES,
  type BudgetModeOptions,
  type CollectMode,
  type CollectOptions,
  type FindingClass,
  type NormalizedCollectOptions,
  type RunConfig,
  type RunsModeOptions,
  type Shard,
} from "./types.js";

/** The classes a budgeted hunt stops on unless told otherwise: the leaks it is for. */
export const DEFAULT_STOP_ON: readonly FindingClass[] = ["leak"];

/**
 * Parses `collect --stop-on` values, each a class or a comma list of them ("leak",
 * "leak,race", "any" for every class), into the classes without repeats.
 */
export function parseStopOn(values: readonly string[]): FindingClass[] {
  const words = values
    .flatMap((v) => v.split(","))
    .map((w) => w.trim())
    .filter((w) => w !== "");
  const classes = new Set<FindingClass>();
  for (const word of words) {
    if (word === "any") FINDING_CLASSES.forEach((c) => classes.add(c));
    else if ((FINDING_CLASSES as readonly string[]).includes(word)) classes.add(word as FindingClass);
    else
      throw new UsageError(
        `invalid --stop-on ${JSON.stringify(word)}`,
        `Give ${FINDING_CLASSES.join(", ")} or any, repeated or separated by commas, e.g. --stop-on leak,failure.`,
      );
  }
  if (classes.size === 0)
    throw new UsageError(
      "--stop-on needs a class",
      `Give ${FINDING_CLASSES.join(", ")} or any, e.g. --stop-on leak,race.`,
    );
  return [...classes];
}

/** A field of one mode: the flag that sets it, and what to do when it is given in the other mode. */
interface ModeField {
  readonly flag: string;
  readonly hint: string;
}

/** The fields only a collect of a fixed number of runs takes. */
const RUNS_FIELDS: Record<keyof RunsModeOptions, ModeField> = {
  runs: {
    flag: "--runs",
    hint:
      "A budgeted collect runs each program until its budget is spent or a finding ends its hunt: drop " +
      "--runs, or drop --budget to collect a fixed number of runs per configuration.",
  },
  race: {
    flag: "--race",
    hint: "A budgeted collect already explores -race builds among its strategies; drop --race, or drop --budget to build every run with -race.",
  },
};

/** The fields only a budgeted collect takes. */
const BUDGET_FIELDS: Record<Exclude<keyof BudgetModeOptions, "budgetMs">, ModeField> = {
  exhaustBudget: {
    flag: "--exhaust-budget",
    hint: "It makes a hunt spend its whole budget after a finding: add --budget DURATION to hunt, or drop --exhaust-budget.",
  },
  recordLocks: {
    flag: "--no-lock-recording",
    hint: "Only a hunt (collect --budget) records lock operations; a plain collect never does.",
  },
  stopOn: {
    flag: "--stop-on",
    hint: "It says which findings end a program's hunt: run e.g. `schedlab collect DIR --budget 30s --stop-on leak,failure`.",
  },
};

/** The mode fields as a caller may give them before the mode is known (the CLI's flags). */
export type CollectModeFields = Partial<RunsModeOptions & BudgetModeOptions>;

/**
 * The mode `fields` ask for, defaulted: a hunt when `budgetMs` is given, else a collect of
 * `runs` runs. A field of the other mode means nothing there: it is refused with a UsageError
 * naming its flag and what to do, never ignored.
 */
export function collectModeOf(fields: CollectModeFields): CollectMode {
  const refuse = (table: Record<string, ModeField>, relation: "with" | "without"): void => {
    for (const [name, field] of Object.entries(table)) {
      if ((fields as Record<string, unknown>)[name] !== undefined)
        throw new UsageError(`${field.flag} goes ${relation} --budget`, field.hint);
    }
  };
  if (fields.budgetMs === undefined) {
    refuse(BUDGET_FIELDS, "with");
    return { kind: "runs", runs: positiveInteger("--runs", fields.runs, 5), race: fields.race ?? false };
  }
  refuse(RUNS_FIELDS, "without");
  return {
    kind: "budget",
    budgetMs: positiveInteger("--budget (ms)", fields.budgetMs, 1),
    exhaustBudget: fields.exhaustBudget ?? false,
    recordLocks: fields.recordLocks ?? true,
    stopOn: fields.stopOn === undefined ? DEFAULT_STOP_ON : parseStopOn(fields.stopOn),
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses "500ms", "10s", "1.5m", "1h" or a bare number of seconds into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (match === null) {
    throw new UsageError(
      `invalid duration ${JSON.stringify(text)}`,
      'Write a duration such as "500ms", "10s" or "2m".',
    );
  }
  const ms = Number(match[1]) * UNITS[match[2] ?? "s"];
  if (ms <= 0)
    throw new UsageError(`duration ${JSON.stringify(text)} must be positive`, 'Write a duration such as "10s".');
  return Math.round(ms);
}

/** Parses a GOMAXPROCS list such as "1,2,4". */
export function parseProcsList(text: string): number[] {
  const values = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  const procs = values.map(Number);
  if (procs.length === 0 || procs.some((p) => !Number.isInteger(p) || p < 1)) {
    throw new UsageError(
      `invalid --procs ${JSON.stringify(text)}`,
      'Give GOMAXPROCS values as positive integers separated by commas, e.g. "1,2,4".',
    );
  }
  return [...new Set(procs)];
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new UsageError(
      `${name} must be a positive integer, got ${String(value)}`,
      `Pass ${name} as a whole number ≥ 1.`,
    );
  }
  return value;
}

/** Parses "I/N" (0 ≤ I < N), the shard of `collect --shard`. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const shard = match === null ? null : { index: Number(match[1]), count: Number(match[2]) };
  if (shard === null || shard.count < 1 || shard.index >= shard.count) {
    throw new UsageError(
      `invalid --shard ${JSON.stringify(text)}`,
      'Give the shard as I/N with 0 ≤ I < N, e.g. "0/4" … "3/4" for four shards (a Kubernetes Indexed Job passes $JOB_COMPLETION_INDEX as I).',
    );
  }
  return shard;
}

function checkShard(shard: Shard | undefined): Shard | null {
  if (shard === undefined) return null;
  if (
    !Number.isInteger(shard.count) ||
    !Number.isInteger(shard.index) ||
    shard.count < 1 ||
    shard.index < 0 ||
    shard.index >= shard.count
  ) {
    throw new UsageError(`invalid shard ${shard.index}/${shard.count}`, "A shard is I/N with whole numbers 0 ≤ I < N.");
  }
  return shard;
}

/** Validates `options` and fills in defaults; paths become absolute. */
export function normalizeCollectOptions(options: CollectOptions): NormalizedCollectOptions {
  if (options.paths.length === 0 && options.corpusFile === undefined) {
    throw new UsageError(
      "collect needs at least one path",
      "Give a program directory, a tree of programs, a Go module root or a module of the module proxy " +
        "(github.com/x/y@v1.2.3/...), e.g. `schedlab collect go-programs`, or --corpus-file FILE.",
    );
  }
  const cores = availableParallelism();
  const timeoutMs = positiveInteger("--timeout (ms)", options.timeoutMs, GO_TEST_DEFAULT_TIMEOUT_MS);
  const procs = options.procs === undefined || options.procs.length === 0 ? [cores] : [...new Set(options.procs)];
  for (const p of procs) positiveInteger("--procs", p, 1);
  return {
    // Package patterns (./..., import paths) and module sources (path@version) stay as given.
    paths: options.paths.map((path) => (isPackagePattern(path, process.cwd()) ? path : resolve(path))),
    corpusFile: options.corpusFile === undefined ? null : resolve(options.corpusFile),
    programs: programSelection(options.programs),
    timeoutMs,
    timeoutGiven: options.timeoutMs !== undefined,
    graceMs: Math.min(5_000, Math.max(500, Math.round(timeoutMs / 2))),
    procs,
    jobs: positiveInteger("--jobs", options.jobs, cores),
    db: resolve(options.db ?? "schedlab.db"),
    traces: resolve(options.traces ?? "traces"),
    force: options.force ?? false,
    splitTests: options.splitTests ?? false,
    testCount: options.testCount === undefined ? null : positiveInteger("--test-count", options.testCount, 1),
    tags: parseTags(options.tags ?? []),
    run: nonEmpty("--run", options.run),
    skip: nonEmpty("--skip", options.skip),
    peers: [...new Set(options.peers ?? [])],
    leakProfile: leakProfileOption(options),
    testCorpus: options.testCorpus ?? false,
    mode: collectModeOf(options),
    ingest: options.ingest ?? null,
    procsGiven: options.procs !== undefined && options.procs.length > 0,
    shard: checkShard(options.shard),
    signal: options.signal,
    onProgress: options.onProgress,
    onExplored: options.onExplored,
  };
}

/** Whether the run agent is on (default): the leakprofile peer reads its profile, so it cannot go without it. */
function leakProfileOption(options: Pick<CollectOptions, "leakProfile" | "peers">): boolean {
  const on = options.leakProfile ?? true;
  if (!on && (options.peers ?? []).includes("leakprofile"))
    throw new UsageError(
      "--peers leakprofile reads the run agent's goroutine leak profile, which --no-leak-profile turns off",
      "Drop --no-leak-profile, or drop leakprofile from --peers.",
    );
  return on;
}

/** Build tags from `--tags a,b` values (repeatable), without blanks or repeats, as go accepts them. */
export function parseTags(values: readonly string[]): string[] {
  const tags = values
    .flatMap((v) => v.split(","))
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const bad = tags.find((t) => !/^[A-Za-z0-9_.-]+$/.test(t));
  if (bad !== undefined)
    throw new UsageError(
      `invalid build tag ${JSON.stringify(bad)}`,
      "Give build tags as go test -tags does: names separated by commas, e.g. --tags integration,linux.",
    );
  return [...new Set(tags)];
}

/**
 * The GOFLAGS value with `tags` merged into its -tags flag: the union of both, so tags
 * given to collect and tags set in GOFLAGS reach every go command (builds, peers' go get).
 */
export function goflagsWithTags(goflags: string, tags: readonly string[]): string {
  if (tags.length === 0) return goflags;
  const words = goflags.split(/\s+/).filter((w) => w !== "");
  const present = words.filter((w) => /^--?tags=/.test(w)).flatMap((w) => w.replace(/^--?tags=/, "").split(","));
  const merged = [...new Set([...present, ...tags].filter((t) => t !== ""))];
  return [...words.filter((w) => !/^--?tags=/.test(w)), `-tags=${merged.join(",")}`].join(" ");
}

/** The build tags a GOFLAGS value sets (-tags=a,b), for discovery. */
export function tagsOfGoflags(goflags: string): string[] {
  return goflags
    .split(/\s+/)
    .filter((w) => /^--?tags=/.test(w))
    .flatMap((w) => w.replace(/^--?tags=/, "").split(","))
    .filter((t) => t !== "");
}

function nonEmpty(flag: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value === "")
    throw new UsageError(
      `${flag} needs a regular expression`,
      `Give ${flag} a Go regexp as go test takes it, e.g. ${flag} 'Test(A|B)'.`,
    );
  return value;
}

/** A program selection without blanks or repeats; undefined means every program. */
function programSelection(names: readonly string[] | undefined): readonly string[] | null {
  if (names === undefined) return null;
  if (names.length === 0 || names.some((name) => name.trim() === "")) {
    throw new UsageError(
      "--program needs a program name",
      "Name a program by its path relative to the collect path, e.g. --program kernels/abba/transfer.",
    );
  }
  return [...new Set(names)];
}

/**
 * The configurations a program runs under, e.g. "procs-2", or "procs-2-count-3" for
 * a test program with --test-count 3 (the count means nothing to a main package).
 */
export function runConfigs(options: NormalizedCollectOptions, kind: ProgramKind): RunConfig[] {
  const testCount = kind === "test" ? options.testCount : null;
  // --race: every run is a race run, keyed like the budget's race configurations ("procs-2-race").
  const strategy = options.mode.kind === "runs" && options.mode.race ? "race" : "plain";
  return options.procs.map((procs) => ({
    key: configKey(strategy, procs, testCount),
    strategy,
    procs,
    testCount,
    ...testSelection(options, kind),
  }));
}

/** -test.run / -test.skip of a test program's runs: --run and --skip as given (nothing for main packages). */
export function testSelection(
  options: Pick<NormalizedCollectOptions, "run" | "skip">,
  kind: ProgramKind,
): Pick<RunConfig, "testRun" | "testSkip"> {
  if (kind !== "test") return {};
  return {
    ...(options.run === null ? {} : { testRun: options.run }),
    ...(options.skip === null ? {} : { testSkip: options.skip }),
  };
}
