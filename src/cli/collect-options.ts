// The collect options `collect` and `hunt` share — go test's selection (--run, --skip, --tags,
// --race, --count, --cpu, --timeout, --split-tests), --program, the budget and where results
// go — defined once as commander options and turned into CollectOptions once.

import { Option } from "commander";
import { parsePositiveInteger } from "./options.js";
import {
  collectModeOf,
  DERIVED_TIMEOUT,
  GO_TEST_DEFAULT_TIMEOUT_MS,
  MAIN_FIRST_RUN_TIMEOUT_MS,
  parseDuration,
  parseProcsList,
  parseStopOn,
  type CollectCommonOptions,
  type CollectMode,
  type CollectModeFields,
  type CollectModeOptions,
  type CollectOptions,
} from "../collect/index.js";
import { UsageError } from "../errors.js";

/** The flags of the shared options as commander parses them. */
export interface CollectSelectionFlags {
  corpusFile?: string;
  program?: string[];
  timeout?: string;
  /** Set by the action: whether --timeout was given (if not, later runs derive their deadline from a program's first). */
  timeoutGiven?: boolean;
  procs?: string;
  jobs?: string;
  db: string;
  traces: string;
  force?: boolean;
  splitTests?: boolean;
  testCount?: string;
  count?: string;
  cpu?: string;
  tags?: string[];
  run?: string;
  skip?: string;
  race?: boolean;
  budget?: string;
  exhaustBudget?: boolean;
  lockRecording?: boolean;
  /** false: --no-leak-profile. */
  leakProfile?: boolean;
  stopOn?: string[];
  quiet?: boolean;
  progressInterval: string;
}

/** Commander accumulator of a repeatable flag (--program, --tags, --stop-on, --fail-on). */
export function collectNames(name: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), name];
}

interface OptionDefinition {
  readonly flags: string;
  readonly description: string;
  readonly defaultValue?: string;
  readonly repeatable?: boolean;
}

const OPTIONS = {
  corpusFile: {
    flags: "--corpus-file <file>",
    description:
      "also collect the modules this file lists, pinned by version (TSV: module, version, exclude_packages; or JSON); " +
      "one the module proxy cannot serve is skipped, said why (docs/collect.md, Modules)",
  },
  program: {
    flags: "--program <name>",
    description: "collect only this program, named as collect names it (path relative to the path given); repeatable",
    repeatable: true,
  },
  timeout: {
    flags: "--timeout <duration>",
    description:
      `deadline per run and -test.timeout of test binaries (e.g. 500ms, 10s, 2m); not given: go test's own ` +
      `${GO_TEST_DEFAULT_TIMEOUT_MS / 60_000}m for a test binary (a main program: ${MAIN_FIRST_RUN_TIMEOUT_MS / 1000}s, ` +
      `in a hunt its budget) until one of its plain runs has ended by itself, then ${DERIVED_TIMEOUT.factor}× that run ` +
      `(at least ${DERIVED_TIMEOUT.floorMs / 1000}s)`,
  },
  procs: {
    flags: "--procs <list>",
    description: "GOMAXPROCS values, comma-separated, one configuration each (default: the number of CPUs)",
  },
  jobs: { flags: "--jobs <n>", description: "concurrent builds and runs (default: the number of CPUs)" },
  db: { flags: "--db <file>", description: "SQLite database", defaultValue: "schedlab.db" },
  traces: { flags: "--traces <dir>", description: "directory for traces and goroutine dumps", defaultValue: "traces" },
  force: { flags: "--force", description: "redo runs already recorded (default: resume)" },
  splitTests: {
    flags: "--split-tests",
    description:
      "one program per TestXxx or ExampleXxx function (run with -test.run=^Name$) instead of one per test package",
  },
  testCount: { flags: "--test-count <n>", description: "repeat the tests inside one traced run (-test.count)" },
  count: { flags: "--count <n>", description: "go test -count: the same as --test-count" },
  cpu: { flags: "--cpu <list>", description: "go test -cpu: the same as --procs" },
  tags: {
    flags: "--tags <list>",
    description: "build tags, comma-separated (go test -tags), for discovery and builds; repeatable",
    repeatable: true,
  },
  run: {
    flags: "--run <regexp>",
    description:
      "go test -run: collect only the tests and examples it selects, and pass it to test binaries (-test.run)",
  },
  skip: {
    flags: "--skip <regexp>",
    description: "go test -skip: leave out the tests and examples it matches (-test.skip)",
  },
  race: {
    flags: "--race",
    description: "build and run every program with -race (not with --budget, which explores -race itself)",
  },
  budget: {
    flags: "--budget <duration>",
    description:
      "hunt leaks: per-program time to spend exploring schedules (GOMAXPROCS, -test.count, -race, seeded " +
      "perturbation); stops at the first confirmed finding (not with --runs or --race)",
  },
  exhaustBudget: {
    flags: "--exhaust-budget",
    description: "with --budget: spend the whole budget even after a finding is confirmed",
  },
  lockRecording: {
    flags: "--no-lock-recording",
    description:
      "with --budget: build without recording lock operations (no lock holders, no potential deadlocks; for measuring its cost)",
  },
  leakProfile: {
    flags: "--no-leak-profile",
    description:
      "build and run without the run agent: no goroutine leak profile at the end of each run (no " +
      "GOEXPERIMENT=goroutineleakprofile build on Go 1.26), and no watchdog that proves a deadlocked run " +
      "hung and stops it within seconds (such a run then waits for its deadline)",
  },
  stopOn: {
    flags: "--stop-on <classes>",
    description:
      "with --budget: the findings that end a program's hunt: leak, race, failure or any; repeatable or " +
      "comma-separated (default: leak); the others are still recorded",
    repeatable: true,
  },
  quiet: { flags: "--quiet", description: "no progress on stderr (warnings and errors still show)" },
  progressInterval: {
    flags: "--progress-interval <duration>",
    description: "without a terminal (CI logs): a progress line this often",
    defaultValue: "10s",
  },
} satisfies Record<Exclude<keyof CollectSelectionFlags, "timeoutGiven">, OptionDefinition>;

export type CollectOptionName = keyof typeof OPTIONS;

/**
 * A fresh commander option of the shared set; `override` changes its description or default
 * for one command (hunt's --budget defaults to 20s and its --race means more than collect's).
 */
export function collectOption(
  name: CollectOptionName,
  override: { readonly description?: string; readonly defaultValue?: string } = {},
): Option {
  const definition: OptionDefinition = OPTIONS[name];
  const option = new Option(definition.flags, override.description ?? definition.description);
  if (definition.repeatable === true) option.argParser(collectNames);
  const defaultValue = override.defaultValue ?? definition.defaultValue;
  if (defaultValue !== undefined) option.default(defaultValue);
  return option;
}

function integer(flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : parsePositiveInteger(flag, text);
}

/** --procs, or its go test spelling --cpu (not both). */
function procsOf(flags: CollectSelectionFlags): number[] | undefined {
  if (flags.procs !== undefined && flags.cpu !== undefined)
    throw new UsageError("--cpu is --procs: give one of them", "Use --procs 1,2,4 or --cpu 1,2,4.");
  const list = flags.procs ?? flags.cpu;
  return list === undefined ? undefined : parseProcsList(list);
}

/** --test-count, or its go test spelling --count (not both). */
function testCountOf(flags: CollectSelectionFlags): number | undefined {
  if (flags.testCount !== undefined && flags.count !== undefined)
    throw new UsageError("--count is --test-count: give one of them", "Use --count N or --test-count N.");
  return flags.count !== undefined ? integer("--count", flags.count) : integer("--test-count", flags.testCount);
}

/** The library options of the shared flags every mode takes; the command adds its own (peers, shard, callbacks). */
export function collectCommonOptionsOf(paths: readonly string[], flags: CollectSelectionFlags): CollectCommonOptions {
  return {
    paths,
    ...(flags.corpusFile === undefined ? {} : { corpusFile: flags.corpusFile }),
    programs: flags.program,
    // Not given: each program's later runs take their deadline from its first (docs/collect.md, "Deadlines").
    timeoutMs: flags.timeoutGiven === true && flags.timeout !== undefined ? parseDuration(flags.timeout) : undefined,
    procs: procsOf(flags),
    jobs: integer("--jobs", flags.jobs),
    db: flags.db,
    traces: flags.traces,
    force: flags.force === true,
    splitTests: flags.splitTests === true,
    testCount: testCountOf(flags),
    tags: flags.tags,
    run: flags.run,
    skip: flags.skip,
    ...(flags.leakProfile === false ? { leakProfile: false } : {}),
  };
}

/** The budget's fields of the shared flags, each only when given (collect adds --runs and --race; hunt's --race is its own). */
export function budgetFieldsOf(flags: CollectSelectionFlags): CollectModeFields {
  return {
    budgetMs: flags.budget === undefined ? undefined : parseDuration(flags.budget),
    exhaustBudget: flags.exhaustBudget,
    recordLocks: flags.lockRecording === false ? false : undefined,
    stopOn: flags.stopOn === undefined ? undefined : parseStopOn(flags.stopOn),
  };
}

/**
 * The library options of the shared flags in the mode `fields` ask for: collectModeOf refuses
 * a flag of the other mode (--runs with --budget, --exhaust-budget without) with a UsageError.
 */
export function collectOptionsOf(
  paths: readonly string[],
  flags: CollectSelectionFlags,
  fields: CollectModeFields,
): CollectOptions {
  return { ...collectCommonOptionsOf(paths, flags), ...modeOptionsOf(collectModeOf(fields)) };
}

/** `mode` as the fields of CollectOptions. */
function modeOptionsOf(mode: CollectMode): CollectModeOptions {
  if (mode.kind === "runs") return { runs: mode.runs, race: mode.race };
  const { budgetMs, exhaustBudget, recordLocks, stopOn } = mode;
  return { budgetMs, exhaustBudget, recordLocks, stopOn };
}
