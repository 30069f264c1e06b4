// The list of commands. Add one line per command file.

import type { Command } from "commander";
import { registerCorpus } from "./corpus.js";

export function registerCommands(program: Command): void {
  // @commands
  registerCorpus(program);
}
