// The `corpus` command group: checking (and generating) the Go programs schedlab studies.

import { Command } from "commander";
import { registerCorpusCheck } from "./corpus-check.js";
import { registerCorpusGenerate } from "./corpus-generate.js";

export function registerCorpus(program: Command): void {
  const corpus = program.command("corpus").description("Check and generate corpora of labelled Go programs.");
  registerCorpusCheck(corpus);
  registerCorpusGenerate(corpus);
}
