// The report stage: sections that render as HTML (inline SVG), Markdown and JSON,
// written together by writeReport.
export type { ReportMeta, ReportSection } from "./types.js";
export { writeReport, ReportWriteError, type WrittenReport } from "./write.js";
export { htmlDocument, htmlTable, type HtmlTable } from "./html.js";
export { markdownDocument, markdownTable } from "./markdown.js";
export { escapeXml, escapeMarkdownCell } from "./escape.js";
export {
  evaluationSections,
  evaluationSummarySection,
  comparisonsSection,
  predictorDetailSection,
  slug,
} from "./sections/evaluation.js";
export type { SectionScope } from "./sections/evaluation.js";
export { evaluationHistorySection } from "./sections/history.js";
export { rolloutSurvivalSection, survivalByPredictor } from "./sections/rollout.js";
export { fidelitySection } from "./sections/fidelity.js";
export {
  crossValidationBoard,
  crossValidationLine,
  crossValidationSection,
  crossValidationTitle,
  type CrossValidationBoard,
} from "./sections/crossValidation.js";
export {
  TRAINING_SETS_HEADERS,
  trainingSetsMarkdown,
  trainingSetsRows,
  type TrainingSetScore,
} from "./sections/trainingSets.js";
export { overviewSection, rolloutSection, type OverviewInput, type OverviewPredictor } from "./sections/pipeline.js";
export { leakSection, flakySection } from "./sections/leakTables.js";
export {
  bugSection,
  bugEntries,
  bugEntryJson,
  bugHead,
  bugViewHtml,
  bugViewMarkdown,
  BUG_VERDICTS,
  NO_PICTURES,
  type BugEntry,
  type BugPictures,
  type BugStack,
  type BugVerdict,
} from "./sections/bugs.js";
export { reportPictures } from "./pictures.js";
export {
  findBug,
  bugPageHtml,
  bugPageJson,
  bugPictureSvg,
  parseFingerprintPrefix,
  BugNotFoundError,
  NoPictureError,
  type FoundBug,
} from "./bug-page.js";
export { accuracyMeansText, estimateWithInterval, halfSamplesText } from "./sections/evaluationTables.js";
export { crossValidationText } from "./cv.js";
export {
  collectionReportSections,
  hasEvaluation,
  reportSections,
  type CollectionReportOptions,
  type ReportSourceOptions,
} from "./build.js";
export { evaluationText, textTable } from "./terminal.js";
export * from "./svg/index.js";
