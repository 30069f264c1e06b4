// The `student:` predictor backend: a saved adapter as a Predictor. Predictions are made
// from each state's representative prefix, with the adapter's standardiser and calibration
// (per-member temperatures and the in-context temperature when the adapter has them).

import { createHash } from "node:crypto";
import type { State } from "../../dataset/index.js";
import { softmaxInPlace } from "../calibration.js";
import type { Prediction, Predictor, ReasoningTags } from "../types.js";
import { loadAdapter, loadedNgram } from "./adapter.js";
import { atContext, calibrateRow, type StudentCalibration } from "./calibration.js";
import { FEATURE_COUNT, FEATURE_SPEC, featurizePrefixes } from "./features.js";
import { forward, newWorkspace } from "./model.js";
import { staticFeaturesOf, type StaticFeatures } from "./static-features.js";
import { TAG_CLASSES } from "./tags.js";

export interface StudentPredictorOptions {
  /**
   * Source directory of a program, for static features of programs the adapter has not
   * seen. Programs it has seen use the static features stored in features.json.
   */
  readonly programDir?: (program: string) => string | undefined;
}

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

  return {
    id: `student:${path}`,
    configHash,
    async predict(states: readonly State[]): Promise<Prediction[]> {
      for (const program of new Set(states.map((s) => s.representative.program))) await staticFor(program);
      const { x, feasible } = featurizePrefixes(
        states.map((s) => s.representative),
        {
          staticOf: (program) => (weights.usesStaticFeatures ? (known.get(program) ?? null) : null),
          ngram,
        },
      );
      const ws = newWorkspace(shape);
      const row = new Float64Array(FEATURE_COUNT);
      const q = new Float64Array(shape.events);
      const tagMean = new Float64Array(Math.max(1, shape.tags));
      return states.map((_, i) => {
        for (let j = 0; j < FEATURE_COUNT; j++) row[j] = (x[i * FEATURE_COUNT + j] - weights.mean[j]) / weights.std[j];
        if (members.length === 1) {
          forward(shape, members[0], row, 0, ws);
          q.set(ws.eventLogits.subarray(0, shape.events));
          tagMean.set(ws.tagLogits.subarray(0, tagMean.length));
        } else {
          // The members' mean distribution, as logits (ensembleLogits in fit.ts does the same).
          q.fill(0);
          tagMean.fill(0);
          for (const [m, member] of members.entries()) {
            forward(shape, member, row, 0, ws);
            softmaxInPlace(ws.eventLogits, shape.events, memberTemperatures[m]);
            for (let c = 0; c < shape.events; c++) q[c] += ws.eventLogits[c] / members.length;
            if (shape.tags > 0) {
              softmaxInPlace(ws.tagLogits, shape.tags);
              for (let c = 0; c < shape.tags; c++) tagMean[c] += ws.tagLogits[c] / members.length;
            }
          }
          for (let c = 0; c < shape.events; c++) q[c] = Math.log(Math.max(q[c], 1e-300));
        }
        const rowCalibration =
          context === undefined ? calibration : atContext(calibration, context, x[i * FEATURE_COUNT + contextColumn]);
        calibrateRow(q, shape.events, rowCalibration, feasible, i * shape.events, x);
        const probabilities = Array.from(q);
        if (shape.tags === 0) return { probabilities };
        return { probabilities, tags: reasoningTags(tagMean, shape.tags, q) };
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
