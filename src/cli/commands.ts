// The list of commands. Add one line per command file.

import type { Command } from "commander";
import { registerEval } from "./eval.js";
import { registerReport } from "./report.js";
import { registerCollect } from "./collect.js";
import { registerDoctor } from "./doctor.js";
import { registerCorpus } from "./corpus.js";
import { registerDist } from "./dist.js";
import { registerIngest } from "./ingest.js";
import { registerEvents } from "./events.js";
import { registerTrain } from "./train.js";
import { registerExport } from "./export.js";
import { registerPredict } from "./predict.js";
import { registerRollout } from "./rollout.js";
import { registerLeaks } from "./leaks.js";
import { registerFidelity } from "./fidelity.js";
import { registerMutate } from "./mutate.js";
import { registerRun } from "./run.js";

export function registerCommands(program: Command): void {
  // @commands
  registerFidelity(program);
  registerMutate(program);
  registerRun(program);
  registerRollout(program);
  registerLeaks(program);
  registerPredict(program);
  registerEval(program);
  registerReport(program);
  registerExport(program);
  registerIngest(program);
  registerEvents(program);
  registerTrain(program);
  registerCollect(program);
  registerDoctor(program);
  registerDist(program);
  registerCorpus(program);
}
