// The list of commands, in pipeline order (the order `schedlab --help` shows them).

import type { Command } from "commander";
import { registerCollect } from "./collect.js";
import { registerCorpus } from "./corpus.js";
import { registerDist } from "./dist.js";
import { registerDoctor } from "./doctor.js";
import { registerEval } from "./eval.js";
import { registerEvents } from "./events.js";
import { registerExport } from "./export.js";
import { registerFidelity } from "./fidelity.js";
import { registerHunt } from "./hunt.js";
import { registerIngest } from "./ingest.js";
import { registerLeaks } from "./leaks.js";
import { registerMerge } from "./merge.js";
import { registerMutate } from "./mutate.js";
import { registerPredict } from "./predict.js";
import { registerReport } from "./report.js";
import { registerRollout } from "./rollout.js";
import { registerRun } from "./run.js";
import { registerShow } from "./show.js";
import { registerTrain } from "./train.js";

export function registerCommands(program: Command): void {
  registerRun(program);
  registerDoctor(program);
  registerCollect(program);
  registerMerge(program);
  registerIngest(program);
  registerEvents(program);
  registerDist(program);
  registerExport(program);
  registerTrain(program);
  registerPredict(program);
  registerEval(program);
  registerLeaks(program);
  registerHunt(program);
  registerShow(program);
  registerRollout(program);
  registerFidelity(program);
  registerMutate(program);
  registerReport(program);
  registerCorpus(program);
}
