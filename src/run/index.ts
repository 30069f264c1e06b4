// The run stage: `schedlab run`, the whole pipeline on a corpus with skip-if-unchanged stages.
export { runPipeline, pipelineSettings, pipelineHoldout, PIPELINE_STUDENTS, PIPELINE_BASELINES } from "./pipeline.js";
export { summaryLines, predictorSummaries, bestStudentOf, leakSummaryOf } from "./summary.js";
export { programCategory, stratifiedSubset } from "./corpus-subset.js";
export { contentHash, readStage, writeStage, clearStages, ingestedDataHash, type StageRecord } from "./stages.js";
export * from "./types.js";
