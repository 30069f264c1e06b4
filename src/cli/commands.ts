// The list of commands. Add one line per command file.

import type { Command } from "commander";
import { registerCollect } from "./collect.js";
import { registerDoctor } from "./doctor.js";
import { registerCorpus } from "./corpus.js";
import { registerDist } from "./dist.js";
import { registerTrain } from "./train.js";

export function registerCommands(program: Command): void {
  // @commands
  registerTrain(program);
  registerCollect(program);
  registerDoctor(program);
  registerDist(program);
  registerCorpus(program);
}
