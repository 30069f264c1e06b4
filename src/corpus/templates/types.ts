// The contract between the corpus generator and its program templates.

import type { ExpectedBlockReason } from "../manifest.js";
import type { Prng } from "../prng.js";
import type { ProgramKind } from "../../core/index.js";

/**
 * A goroutine an injected bug leaves blocked. Either a goroutine started by a `go`
 * statement located by a marker in one of the template's files, or (marker null) the
 * program's root goroutine itself: main's goroutine, or the goroutine running a test.
 */
export interface MarkedBlockedGoroutine {
  /** Names the `go` statement: its source line starts with `@@marker@@`. null for the root goroutine. */
  readonly marker: string | null;
  /**
   * The function containing the `go` statement (for a root: the root function), as the
   * runtime prints it without the package qualifier: "main", "produce", "(*Pool).Run",
   * "TestFetch.func1". The generator qualifies it: "main." for main programs, the
   * package's import path for test programs.
   */
  readonly creator: string;
  readonly reason: ExpectedBlockReason;
}

export interface InjectedBug {
  /**
   * "leak": the program returns (the tests pass) with goroutines still blocked;
   * "deadlock": the root goroutine blocks too and the program hangs until its deadline.
   */
  readonly outcome: "leak" | "deadlock";
  /** The real-world bug class the injection models, e.g. "orphaned-send". */
  readonly bugClass: string;
  /** One sentence: what goes wrong and which goroutines stay blocked. */
  readonly description: string;
  /**
   * Every goroutine left blocked; the generator turns markers into file:line. Parameters
   * must make the set certain, so the manifest can say `showsOn: "every"`.
   */
  readonly blocked: readonly MarkedBlockedGoroutine[];
}

/** One Go file of a drawn program, before the generated-code header is prepended. */
export interface TemplateFile {
  /** Base name, e.g. "main.go", "cache.go", "cache_test.go". */
  readonly name: string;
  /**
   * The complete file after the generated-code header: a doc comment, the package
   * clause, imports and code, gofmt-clean. Lines starting with `@@name@@` mark `go`
   * statements referenced by the bug; the marker is removed from the output.
   */
  readonly source: string;
}

/** One program drawn from a template. */
export interface TemplateProgram {
  /**
   * "main": one `package main` file, main.go. "test": a package (named after the
   * template) whose `_test.go` files define one or more `func TestXxx(t *testing.T)` and
   * no main, the layout of most real-world bug kernels.
   */
  readonly form: ProgramKind;
  /** The program's Go files; marker names are unique across all of them. */
  readonly files: readonly TemplateFile[];
  /** The concurrency pattern, as in manifests ("worker-pool", "pipeline", …). */
  readonly pattern: string;
  /** What the program does, with its drawn parameters. */
  readonly description: string;
  readonly tags: readonly string[];
  /** null for a clean program. */
  readonly bug: InjectedBug | null;
}

export interface ProgramTemplate {
  /**
   * Stable name, lower-case letters only: part of generated directory names, of
   * manifests' `generated.template` (the program's family), and the package name of
   * test-form programs.
   */
  readonly name: string;
  /** The form every program of this template takes. */
  readonly form: ProgramKind;
  /**
   * Draws parameters from `rng` and renders a program, with a bug injected when
   * `injectBug` is set. Pure: the same rng state and flag give the same program.
   */
  generate(rng: Prng, injectBug: boolean): TemplateProgram;
}

/** Go import block for the given standard-library packages (sorted, de-duplicated). */
export function importBlock(packages: readonly string[]): string {
  const sorted = [...new Set(packages)].sort();
  if (sorted.length === 1) return `import "${sorted[0]}"\n`;
  return `import (\n${sorted.map((p) => `\t"${p}"\n`).join("")})\n`;
}

/** The single file of a main-form program. */
export function mainFile(source: string): readonly TemplateFile[] {
  return [{ name: "main.go", source }];
}

/**
 * How long a program waits (ms) before it gives up on goroutines it expected to finish.
 * A buggy program waits only after its bug has been triggered, so a short wait settles
 * which goroutines stay blocked and keeps runs short; a clean program must never give up
 * (giving up would leave goroutines behind and make it look leaky), so it waits far
 * longer than its work takes even on a heavily loaded machine.
 */
export function patienceMs(injectBug: boolean): number {
  return injectBug ? 30 : 1000;
}

/**
 * A Go statement block that waits while `pending` holds: each poll sleeps `sleepMicros`,
 * or, with style "gosched", yields with runtime.Gosched for the first YIELD_BUDGET polls
 * and sleeps after that, so a long wait cannot flood the trace with GoSched events.
 * Needs "time" (and "runtime" for gosched) imported; `indent` is the block's indentation.
 */
export function pollLoop(
  pending: string,
  style: "sleep" | "gosched",
  sleepMicros: number,
  indent: string,
  before = "",
): string {
  const sleep = `time.Sleep(${sleepMicros} * time.Microsecond)`;
  if (style === "sleep") return `${indent}for ${pending} {\n${before}${indent}\t${sleep}\n${indent}}\n`;
  return `${indent}for polls := 0; ${pending}; polls++ {
${before}${indent}\tif polls < ${YIELD_BUDGET} {
${indent}\t\truntime.Gosched()
${indent}\t} else {
${indent}\t\t${sleep}
${indent}\t}
${indent}}
`;
}

/** How many times a generated poll or idle loop yields before it falls back to sleeping. */
export const YIELD_BUDGET = 100;
