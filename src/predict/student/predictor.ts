// The `student:` predictor backend: a saved adapter as a Predictor. Predictions are made
// from each state's representative prefix, with the adapter's standardiser and calibration
// (per-member temperatures and the in-context temperature when the adapter has them); the
// in-context expert's share is fixed, or earned by the run's earlier events (evidence.ts).

import { createHash } from "node:crypto";
import type { State } from "../../dataset/index.js";
import type { Prediction, Predictor, ReasoningTags } from "../types.js";
import { loadAdapter, loadedNgram } from "./adapter.js";
import { atContext, calibrateRow, type StudentCalibration } from "./calibration.js";
import { FEATURE_COUNT, FEATURE_SPEC, featurizePrefixes, runMemo, type PrefixFeaturizer } from "./features.js";
import { studentExpertShares, withEarned, type RunWalk } from "./evidence.js";
import { networkReader } from "./inference.js";
import { staticFeaturesOf, type StaticFeatures } from "./static-features.js";
import { TAG_CLASSES } from "./tags.js";

export interface StudentPredictorOptions {
  /**
   * Source directory of a program, for static features of programs the adapter has not
   * seen. Programs it has seen use the static features stored in features.json.
   */
  readonly programDir?: (program: string) => string | undefined;
}

/** Runs whose walks a predictor keeps between calls: more than a rollout's live samples (10 by default). */
const RUNS_REMEMBERED = 32;

/** Loads adapters/NAME as a predictor; `path` is the directory (without the `student:` prefix). */
export async function loadStudentPredictor(path: string, options: StudentPredictorOptions = {}): Promise<Predictor> {
  const adapter = loadAdapter(path);
  const { weights, features } = adapter;
  const shape = weights.shape;
  const members = [weights.params, ...(weights.moreMembers ?? [])].map((p) => Float64Array.from(p));
  const calibration: StudentCalibration = {
    temperature: weights.temperature,
    priorWeight: weights.priorWeight,
    prior: weights.prior,
    feasibility: weights.feasibility ?? "none",
    infeasibleCap: weights.infeasibleCap ?? 0,
    ...(weights.expertWeight === undefined ? {} : { expertWeight: weights.expertWeight }),
    ...(weights.mixtureTemperature === undefined ? {} : { mixtureTemperature: weights.mixtureTemperature }),
    ...(weights.expertTemperature === undefined ? {} : { expertTemperature: weights.expertTemperature }),
  };
  const known = new Map<string, StaticFeatures | null>(Object.entries(features.staticFeatures));
  const ngram = loadedNgram(features.ngram);
  const configHash = createHash("sha256").update(adapter.raw).digest("hex").slice(0, 16);
  const memberTemperatures = weights.memberTemperatures ?? members.map(() => 1);
  const context = weights.contextTemperature;
  const contextColumn = context === undefined ? -1 : FEATURE_SPEC.names.indexOf(context.feature);

  async function staticFor(program: string): Promise<void> {
    if (known.has(program) || !weights.usesStaticFeatures) return;
    const dir = options.programDir?.(program);
    if (dir === undefined) {
      known.set(program, null);
      return;
    }
    try {
      known.set(program, await staticFeaturesOf(dir));
    } catch {
      // An unreadable program still gets a prediction, from its trace features alone.
      known.set(program, null);
    }
  }

  const network = networkReader({
    shape,
    members,
    mean: weights.mean,
    std: weights.std,
    ...(weights.low === undefined || weights.high === undefined ? {} : { low: weights.low, high: weights.high }),
    memberTemperatures,
  });
  const rowCalibration = (x: ArrayLike<number>, offset: number): StudentCalibration =>
    context === undefined ? calibration : atContext(calibration, context, x[offset + contextColumn]);
  const evidence = weights.expertEvidence;
  // The walks of the runs asked about last, so consecutive batches (and a rollout's steps) go on
  // where the last one stopped instead of walking each run from its start again.
  const rowWalks = runMemo<PrefixFeaturizer>(RUNS_REMEMBERED);
  const evidenceWalks = runMemo<RunWalk>(RUNS_REMEMBERED);

  return {
    id: `student:${path}`,
    configHash,
    async predict(states: readonly State[]): Promise<Prediction[]> {
      for (const program of new Set(states.map((s) => s.representative.program))) await staticFor(program);
      const inputs = {
        staticOf: (program: string) => (weights.usesStaticFeatures ? (known.get(program) ?? null) : null),
        ngram,
      };
      const prefixes = states.map((s) => s.representative);
      const { x, feasible } = featurizePrefixes(prefixes, inputs, rowWalks);
      // With evidence, the expert's share of each row is what the run's earlier events earned it.
      const shares =
        evidence === undefined
          ? null
          : studentExpertShares(
              prefixes,
              inputs,
              network,
              (row) => rowCalibration(row, 0),
              evidence,
              evidenceWalks,
              weights.confidenceEvidence,
            );
      const q = new Float64Array(shape.events);
      return states.map((_, i) => {
        network.read(x, i * FEATURE_COUNT, q);
        const at = rowCalibration(x, i * FEATURE_COUNT);
        calibrateRow(q, shape.events, shares === null ? at : withEarned(at, shares, i), feasible, i * shape.events, x);
        const probabilities = Array.from(q);
        if (shape.tags === 0) return { probabilities };
        return { probabilities, tags: reasoningTags(network.tags, shape.tags, q) };
      });
    },
  };
}

/** The tag head's class, reported as the block reason if GoBlock is likelier than GoUnblock, else as the wake-up cause. */
function reasoningTags(tagLogits: Float64Array, classes: number, q: Float64Array): ReasoningTags | undefined {
  let best = 0;
  for (let c = 1; c < classes; c++) if (tagLogits[c] > tagLogits[best]) best = c;
  const tag = TAG_CLASSES[best];
  if (tag === "none") return undefined;
  return q[2] >= q[3] ? { blockReason: tag } : { wakeCause: tag };
}
