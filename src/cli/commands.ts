// The list of commands. Add one line per command file.

import type { Command } from "commander";
import { registerCorpus } from "./corpus.js";
import { registerDist } from "./dist.js";

export function registerCommands(program: Command): void {
  // @commands
  registerDist(program);
  registerCorpus(program);
}
