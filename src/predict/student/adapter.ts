// Loading adapters: adapters/NAME/ holds weights.json (parameters, standardiser, calibration),
// features.json (the feature specification, per-program static features and the stacked
// n-gram) and card.json + card.md (src/train writes them). A loaded adapter is checked against
// this build's feature spec.

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SchedlabError } from "../../errors.js";
import { EVENT_TYPES } from "../../core/index.js";
import type { NgramModel } from "../baselines.js";
import { FEASIBILITY_RULES } from "./calibration.js";
import { FEATURE_SPEC, FEATURE_VERSION } from "./features.js";
import { modelLayout } from "./model.js";
import type { SavedNgram, StudentFeatureFile, StudentWeights } from "./types.js";

/** An adapter directory is missing, incomplete, corrupt or from another feature version. */
export class AdapterError extends SchedlabError {}

export const ADAPTER_FILES = {
  weights: "weights.json",
  features: "features.json",
  card: "card.json",
  cardMarkdown: "card.md",
} as const;

export interface LoadedAdapter {
  readonly dir: string;
  readonly weights: StudentWeights;
  readonly features: StudentFeatureFile;
  /** The raw bytes of weights.json and features.json, for the predictor's config hash. */
  readonly raw: string;
}

function readJson(dir: string, name: string): { text: string; value: unknown } {
  const file = join(dir, name);
  if (!existsSync(file)) {
    throw new AdapterError(
      `${dir} is not a schedlab adapter: ${name} is missing`,
      "Pass the directory `schedlab train --out` wrote, e.g. student:adapters/kl.",
    );
  }
  const text = readFileSync(file, "utf8");
  try {
    return { text, value: JSON.parse(text) as unknown };
  } catch (error) {
    throw new AdapterError(
      `${file} is not valid JSON: ${(error as Error).message}`,
      "Re-train the adapter with `schedlab train`, or restore the file.",
    );
  }
}

/**
 * weights.json as format version 2, or null when it is not a student's. Version 1 (before the
 * prior) becomes priorWeight 0 with a uniform prior, which predicts exactly what it did.
 */
function upgradeWeights(value: unknown): StudentWeights | null {
  const v = value as { format?: unknown; formatVersion?: unknown } | null;
  if (v === null || typeof v !== "object" || v.format !== "schedlab-student") return null;
  if (v.formatVersion === 2) return value as StudentWeights;
  if (v.formatVersion !== 1) return null;
  const k = EVENT_TYPES.length;
  return {
    ...(value as Omit<StudentWeights, "formatVersion" | "priorWeight" | "prior">),
    formatVersion: 2,
    priorWeight: 0,
    prior: new Array<number>(k).fill(1 / k),
  };
}

/** The prior is a distribution over the events and its weight is in [0, 1). */
function validPrior(weights: StudentWeights): boolean {
  const { prior, priorWeight, expertWeight, mixtureTemperature, expertTemperature } = weights;
  if (typeof priorWeight !== "number" || !(priorWeight >= 0 && priorWeight < 1)) return false;
  if (expertWeight !== undefined && !(typeof expertWeight === "number" && expertWeight >= 0 && expertWeight < 1))
    return false;
  for (const t of [mixtureTemperature, expertTemperature])
    if (t !== undefined && !(typeof t === "number" && t > 0 && Number.isFinite(t))) return false;
  if (
    !Array.isArray(prior) ||
    prior.length !== EVENT_TYPES.length ||
    prior.some((p) => typeof p !== "number" || !(p >= 0))
  )
    return false;
  const cap = weights.infeasibleCap;
  if (cap !== undefined && !(typeof cap === "number" && cap >= 0 && cap < 1)) return false;
  if (weights.feasibility !== undefined && !(FEASIBILITY_RULES as readonly string[]).includes(weights.feasibility))
    return false;
  return Math.abs(prior.reduce((a, b) => a + b, 0) - 1) < 1e-6;
}

/** A fixed-share mixture's saved parameters (evidence.ts): an object with a prior in (0, 1) and a switch rate in (0, 1]. */
function fixedShareMixture(value: unknown): value is { prior: number; switchRate: number } {
  return (
    typeof value === "object" &&
    value !== null &&
    "prior" in value &&
    "switchRate" in value &&
    typeof value.prior === "number" &&
    typeof value.switchRate === "number" &&
    value.prior > 0 &&
    value.prior < 1 &&
    value.switchRate > 0 &&
    value.switchRate <= 1
  );
}

/** Reads and checks an adapter directory. */
export function loadAdapter(path: string): LoadedAdapter {
  const dir = resolve(path);
  const w = readJson(dir, ADAPTER_FILES.weights);
  const f = readJson(dir, ADAPTER_FILES.features);
  const features = f.value as StudentFeatureFile;
  const retrain = "Re-train it with this schedlab (`schedlab train ... --out " + path + "`).";
  const weights = upgradeWeights(w.value);
  if (weights === null) {
    throw new AdapterError(
      `${dir}/weights.json is not a schedlab student (format ${String((w.value as { format?: unknown } | null)?.format)})`,
      retrain,
    );
  }
  if (weights.featureVersion !== FEATURE_VERSION || features?.spec?.version !== FEATURE_VERSION) {
    throw new AdapterError(
      `adapter ${dir} uses feature version ${String(weights.featureVersion)}; this schedlab computes version ${FEATURE_VERSION}`,
      retrain,
    );
  }
  const names = features.spec.names;
  if (
    !Array.isArray(names) ||
    names.length !== FEATURE_SPEC.names.length ||
    names.some((n, i) => n !== FEATURE_SPEC.names[i])
  ) {
    throw new AdapterError(`adapter ${dir} was trained on a different feature list`, retrain);
  }
  const ngram = features.ngram as SavedNgram | undefined;
  if (
    ngram === undefined ||
    !Number.isInteger(ngram.order) ||
    ngram.order < 1 ||
    !(ngram.addK > 0) ||
    !Array.isArray(ngram.table) ||
    ngram.table.some(
      (row) =>
        !Array.isArray(row) ||
        typeof row[0] !== "string" ||
        !Array.isArray(row[1]) ||
        row[1].length !== EVENT_TYPES.length,
    )
  ) {
    throw new AdapterError(`adapter ${dir} has no valid stacked n-gram in features.json`, retrain);
  }
  const size = modelLayout(weights.shape).size;
  const finite = (v: unknown): boolean =>
    Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x));
  const moreMembers = weights.moreMembers ?? [];
  if (!Array.isArray(moreMembers) || moreMembers.some((m) => !finite(m) || m.length !== size)) {
    throw new AdapterError(
      `adapter ${dir} has malformed ensemble members (each needs ${size} finite parameters)`,
      retrain,
    );
  }
  const memberTemperatures = weights.memberTemperatures;
  if (
    memberTemperatures !== undefined &&
    (!finite(memberTemperatures) ||
      memberTemperatures.length !== 1 + moreMembers.length ||
      memberTemperatures.some((t) => !(t > 0)))
  ) {
    throw new AdapterError(
      `adapter ${dir} has malformed member temperatures (one positive number per ensemble member)`,
      retrain,
    );
  }
  const context = weights.contextTemperature;
  if (
    context !== undefined &&
    (!names.includes(context.feature) || !Number.isFinite(context.centre) || !Number.isFinite(context.slope))
  ) {
    throw new AdapterError(
      `adapter ${dir} has a malformed in-context temperature (a known feature, a finite centre and slope)`,
      retrain,
    );
  }
  const evidence: unknown = weights.expertEvidence;
  if (
    evidence !== undefined &&
    !(
      fixedShareMixture(evidence) &&
      "maxShare" in evidence &&
      typeof evidence.maxShare === "number" &&
      evidence.maxShare > 0 &&
      evidence.maxShare <= 1
    )
  ) {
    throw new AdapterError(
      `adapter ${dir} has a malformed expert evidence (a prior in (0, 1), a switch rate and a largest share in (0, 1])`,
      retrain,
    );
  }
  const confidence: unknown = weights.confidenceEvidence;
  if (
    confidence !== undefined &&
    !(
      fixedShareMixture(confidence) &&
      "levels" in confidence &&
      Array.isArray(confidence.levels) &&
      confidence.levels.every((l: unknown) => typeof l === "number" && l > 0 && Number.isFinite(l)) &&
      confidence.levels.includes(1) &&
      evidence !== undefined
    )
  ) {
    throw new AdapterError(
      `adapter ${dir} has a malformed confidence evidence (positive levels including 1, a prior in (0, 1), ` +
        "a switch rate in (0, 1], and an expert evidence beside it)",
      retrain,
    );
  }
  const { low, high } = weights;
  if (
    (low === undefined) !== (high === undefined) ||
    (low !== undefined &&
      high !== undefined &&
      (!finite(low) ||
        !finite(high) ||
        low.length !== names.length ||
        high.length !== names.length ||
        low.some((l, j) => !(l <= high[j]!))))
  ) {
    throw new AdapterError(
      `adapter ${dir} has a malformed feature range (low and high: one finite bound per feature, low ≤ high)`,
      retrain,
    );
  }
  const skip: unknown = weights.shape.skip;
  if (
    skip !== undefined &&
    (!Array.isArray(skip) || skip.some((j) => !Number.isInteger(j) || j < 0 || j >= names.length))
  ) {
    throw new AdapterError(`adapter ${dir} has malformed skip columns (indices of its features)`, retrain);
  }
  if (
    weights.shape.inputs !== names.length ||
    weights.shape.events !== EVENT_TYPES.length ||
    !finite(weights.params) ||
    weights.params.length !== size ||
    !finite(weights.mean) ||
    weights.mean.length !== names.length ||
    !finite(weights.std) ||
    weights.std.length !== names.length ||
    !(weights.temperature > 0) ||
    !validPrior(weights) ||
    typeof weights.usesStaticFeatures !== "boolean"
  ) {
    throw new AdapterError(
      `adapter ${dir} has malformed weights (expected ${size} finite parameters for its shape, ` +
        "a temperature > 0, a prior weight in [0, 1) and a prior distribution over " +
        `the ${EVENT_TYPES.length} events)`,
      retrain,
    );
  }
  return { dir, weights, features, raw: w.text + "\0" + f.text };
}

/** The saved n-gram back as a model. */
export function loadedNgram(saved: SavedNgram): NgramModel {
  return {
    order: saved.order,
    addK: saved.addK,
    table: new Map(saved.table.map(([key, counts]) => [key, [...counts]])),
  };
}
