// The contract between the corpus generator and its program templates.

import type { ExpectedBlockReason } from "../manifest.js";
import type { Prng } from "../prng.js";

/** A goroutine an injected bug leaves blocked, located by a marker in the template's source. */
export interface MarkedBlockedGoroutine {
  /** Names the `go` statement: its source line starts with `@@marker@@`. */
  readonly marker: string;
  /** The function containing the `go` statement, as in stack traces ("main.main"). */
  readonly creator: string;
  readonly reason: ExpectedBlockReason;
}

export interface InjectedBug {
  /** The real-world bug class the injection models, e.g. "orphaned-send". */
  readonly bugClass: string;
  /** One sentence: what goes wrong and which goroutines stay blocked. */
  readonly description: string;
  /** Every goroutine left blocked when main returns; the generator turns markers into file:line. */
  readonly blocked: readonly MarkedBlockedGoroutine[];
}

/** One program drawn from a template. */
export interface TemplateProgram {
  /**
   * The complete main.go after the generated-code header: a doc comment, `package main`,
   * imports and code, gofmt-clean. Lines starting with `@@name@@` mark `go` statements
   * referenced by the bug; the marker is removed from the output.
   */
  readonly source: string;
  /** The concurrency pattern, as in manifests ("worker-pool", "pipeline", …). */
  readonly pattern: string;
  /** What the program does, with its drawn parameters. */
  readonly description: string;
  readonly tags: readonly string[];
  /** null for a clean program. */
  readonly bug: InjectedBug | null;
}

export interface ProgramTemplate {
  /** Stable name: part of generated directory names and of manifests' `generated.template`. */
  readonly name: string;
  /**
   * Draws parameters from `rng` and renders a program, with a leak injected when
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
