// The run stage: `schedlab run`, the whole pipeline on a corpus with skip-if-unchanged stages.
export { runPipeline, pipelineSettings, pipelineHoldout, PIPELINE_STUDENTS, PIPELINE_BASELINES } from "./pipeline.js";
export { runStage, stageInputHash, type Say, type StageContext, type StageDescriptor } from "./stage.js";
export { summaryLines, predictorSummaries, bestStudentOf, leakSummaryOf } from "./summary.js";
export { stratifiedSubset } from "./corpus-subset.js";
export { contentHash, readStage, writeStage, clearStages, ingestedDataHash, type StageRecord } from "./store.js";
export * from "./types.js";
