// The package's public entry (`import … from "schedlab"`): the library call behind each
// command, with its options and result types, and the error classes. Each stage's whole
// API is its own entry, `schedlab/<stage>` (package.json "exports").

export {
  SchedlabError,
  UsageError,
  SchemaVersionError,
  DatabaseUnavailableError,
  ToolchainMissingError,
} from "./errors.js";
export { SCHEDLAB_VERSION } from "./version.js";

export { openDatabase, openExistingDatabase, mergeDatabases } from "./store/index.js";
export type { SchedlabDatabase, OpenDatabaseOptions, MergeSummary } from "./store/index.js";
export { checkCorpus, generateCorpus } from "./corpus/index.js";
export type { CorpusCheckOptions, CorpusCheckReport } from "./corpus/index.js";
export { collect, replayRun, diagnose } from "./collect/index.js";
export type { CollectOptions, CollectResult, ReplayOptions, ReplayResult } from "./collect/index.js";
export { ingestRuns } from "./trace/index.js";
export type { IngestOptions, IngestSummary } from "./trace/index.js";
export { refreshDataset, loadDataset } from "./dataset/index.js";
export type { Dataset, DatasetOptions, LoadDatasetOptions, RefreshReport } from "./dataset/index.js";
export { createPredictor, predictDataset } from "./predict/index.js";
export type { Predictor, PredictDatasetOptions, PredictedDataset } from "./predict/index.js";
export { trainFromDatabase } from "./train/index.js";
export type { TrainFromDatabaseOptions, TrainedStudent } from "./train/index.js";
export { evaluate, compare } from "./eval/index.js";
export { runRollouts } from "./rollout/index.js";
export type { RolloutRunOptions, RolloutReport } from "./rollout/index.js";
export { runFidelity, mutateProgram } from "./fidelity/index.js";
export type { FidelityRunOptions, FidelityRun } from "./fidelity/index.js";
export { analyseLeaks } from "./leaks/index.js";
export type { AnalyseOptions, LeakAnalysis } from "./leaks/index.js";
export { reportSections, writeReport } from "./report/index.js";
export type { ReportSection, WrittenReport } from "./report/index.js";
export { runPipeline } from "./run/index.js";
export type { RunPipelineOptions, PipelineSummary } from "./run/index.js";
