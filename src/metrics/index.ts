// The pure metric functions: arrays in, numbers out, no I/O. One function per file.
export { topLabel, modeLabels } from "./topLabel.js";
export { accuracy } from "./accuracy.js";
export { modeAccuracy } from "./modeAccuracy.js";
export { majorityAccuracy, majorityLabel } from "./majorityAccuracy.js";
export { confusionMatrix } from "./confusionMatrix.js";
export { classScores, type ClassScores } from "./classScores.js";
export { macroF1 } from "./macroF1.js";
export {
  reliabilityBins,
  reliabilityBinsOfSums,
  calibrationBin,
  DEFAULT_CALIBRATION_BINS,
  type ReliabilityBin,
} from "./reliabilityBins.js";
export { expectedCalibrationError, expectedCalibrationErrorOfBins } from "./expectedCalibrationError.js";
export { overconfidenceOfBins } from "./overconfidence.js";
export { brierScore } from "./brierScore.js";
export { PROBABILITY_FLOOR } from "./probabilityFloor.js";
export { negativeLogLikelihood } from "./negativeLogLikelihood.js";
export { klDivergence } from "./klDivergence.js";
export { l1Distance } from "./l1Distance.js";
export { entropy } from "./entropy.js";
export { empiricalDistribution } from "./empiricalDistribution.js";
export { regularizedIncompleteBeta } from "./regularizedIncompleteBeta.js";
export { studentTTwoSidedPValue } from "./studentTTwoSidedPValue.js";
export { correlationPValue } from "./correlationPValue.js";
export { isConstantRange, pearson, spearman, type CorrelationResult } from "./correlation.js";
export { complementaryErrorFunction } from "./complementaryErrorFunction.js";
export { mcnemar, MCNEMAR_EXACT_BELOW, type McNemarResult } from "./mcnemar.js";
export {
  clusterBootstrapDraws,
  clusterBootstrapMeanDifference,
  clusterBootstrapMeanDifferenceOfSums,
  clusterBootstrapStatistic,
  clusterIndex,
  DEFAULT_RESAMPLES,
  type BootstrapOptions,
  type BootstrapInterval,
  type ClusterIndex,
  type ClusterStatistic,
} from "./clusterBootstrap.js";
export {
  expectedCalibrationErrorInterval,
  expectedCalibrationErrorIntervalOfCells,
  type CalibrationCells,
  type CalibrationIntervalOptions,
} from "./expectedCalibrationErrorInterval.js";
export { topLabels, TIE_TOLERANCE } from "./topLabel.js";
export { tieCredit } from "./tieCredit.js";
export {
  clusterSignFlipTest,
  clusterSignFlipTestOfSums,
  SIGN_FLIP_EXACT_UP_TO,
  type SignFlipResult,
} from "./clusterSignFlipTest.js";
export { clusterSpearman, spearmanOfRanks, type ClusterCorrelation } from "./clusterCorrelation.js";
export { midranks, rankOrder, rankValues, type Ranking } from "./midranks.js";
export { conformalThreshold } from "./conformalThreshold.js";
export { labelScore, predictionSet, predictionSetSize } from "./conformalPredictionSet.js";
