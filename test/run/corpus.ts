// A small corpus for pipeline tests: a few programs of go-programs/ copied, with the
// module's go.mod, into a temporary directory.

import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const CORPUS = resolve(import.meta.dirname, "../../go-programs");

/** Copies go.mod and the given programs (paths relative to go-programs/) into a new temp dir; returns it. */
export function smallCorpus(programs: readonly string[], prefix = "schedlab-run-"): { root: string; corpus: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const corpus = join(root, "corpus");
  cpSync(join(CORPUS, "go.mod"), join(corpus, "go.mod"));
  for (const program of programs) cpSync(join(CORPUS, program), join(corpus, program), { recursive: true });
  return { root, corpus };
}
