// Types of the corpus stage: what a program on disk is, as discovery finds it and as
// `corpus check` and collect build it.

import type { ProgramKind } from "../core/index.js";
import type { Manifest } from "./manifest.js";

/** What building a program needs: its package directory, kind and Go files (absolute, after build constraints). */
export interface BuildTarget {
  readonly dir: string;
  readonly kind: ProgramKind;
  /** The package's non-test Go files. */
  readonly goFiles: readonly string[];
  /** The package's _test.go files; absent when the caller builds by package directory only. */
  readonly testFiles?: readonly string[];
}

/** A program found by discovery: one main package, test package, or test function. */
export interface ProgramSpec extends BuildTarget {
  /** Directory relative to the root given ("." → the root's base name), after "<label>/" for a test corpus; "#TestXxx" for a split test. */
  readonly name: string;
  readonly root: string;
  /** Absolute package directory. */
  readonly dir: string;
  /** The test function run, for split tests; null otherwise. */
  readonly testName: string | null;
  /** Absolute paths of the package's non-test Go files (after build constraints). */
  readonly goFiles: readonly string[];
  /** Absolute paths of the package's _test.go files (after build constraints). */
  readonly testFiles: readonly string[];
  /** sha256 of the package's Go sources; a change invalidates recorded runs. */
  readonly sourceHash: string;
  /** The parsed schedlab.json, or null when absent or invalid (see `manifestProblems`). */
  readonly manifest: Manifest | null;
  readonly manifestProblems: readonly string[];
}
