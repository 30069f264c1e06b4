// The leaks stage: goroutines that block forever (P(GoUnblock) = 0 after their last block),
// found across repeated runs, scored against manifest labels beside peer detectors.
export * from "./types.js";
export { clopperPearsonUpper, binomialCdf } from "./bound.js";
export { runGoroutineStates, blockKey } from "./final-state.js";
export { detectLeaks, earlyDetection, creationSiteKey } from "./detect.js";
export { storedPrograms, loadProgramRuns, type StoredProgram } from "./load.js";
export { saveFindings, loadFindings } from "./store.js";
export { signatureOfFinding, signatureKey, distinctSignatures, type BlockedSignature } from "./signature.js";
export { scoreSignatures, scoreProgram, matchesExpected, counts, type Counts, type LeakScore, type ProgramScore, type LabelledProgram } from "./score.js";
export { parseGoroutineDump, traceReasonOfDumpStatus } from "./dump.js";
export { PEER_ARTIFACTS, parseGoleakReport, parsePeerArtifact, type PeerName, type PeerArtifact } from "./peers.js";
export { analyseLeaks, scoreLeaks, DETECTORS, type AnalyseOptions, type LeakAnalysis, type ProgramAnalysis, type LeakScoreReport, type DetectorScore, type DetectorName } from "./analyse.js";
export { formatFindings, formatScore, analysisJson, findingJson, BOUND_FORMULA } from "./format.js";
