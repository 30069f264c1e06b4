// Predictors on original programs against their metamorphic variants: states matched by
// abstraction key (program names differ), prediction flips and accuracy on both sides,
// and the teacher/student relations re-checked on the variants.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ingestedPrograms,
  loadSide,
  samplesWithPrefixes,
  type Abstraction,
  type DatasetProgram,
  type SampleRow,
  type State,
} from "../dataset/index.js";
import { UsageError } from "../errors.js";
import { clusterBootstrapMeanDifference, topLabel } from "../metrics/index.js";
import { createPredictor, predictWithCache, type PredictorOutput, type PredictorSettings } from "../predict/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES } from "../core/index.js";
import { FidelityInputError } from "./errors.js";
import { originalOfVariant, VARIANT_FILE, type MutationKind } from "./mutate.js";
import { checkFidelity } from "./relations.js";
import type { FidelityOptions, FidelityResult, RelationResult } from "./types.js";
import type { Progress } from "../progress.js";

/** An original program and one of its variants, both with ingested runs. */
export interface VariantPair {
  readonly original: string;
  readonly variant: string;
  readonly kind: MutationKind;
  readonly seed: number;
}

/** One predictor on one kind of rewrite, over every pair of that kind. */
export interface VariantFlips {
  readonly predictor: string;
  readonly kind: MutationKind;
  readonly pairs: number;
  /** States present under the same key in the original and the variant. */
  readonly matchedStates: number;
  /** States of either side without a counterpart (schedules that only one side showed). */
  readonly unmatchedStates: number;
  /** Share of matched states whose top label differs between original and variant; CI resamples originals. */
  readonly flipRate: number;
  readonly flipCi: RelationResult["ci"];
  /** Top label against each observed next event, on the matched states only. */
  readonly accuracyOriginal: number;
  readonly accuracyVariant: number;
}

export interface VariantComparison {
  readonly abstraction: Abstraction;
  readonly pairs: readonly VariantPair[];
  readonly flips: readonly VariantFlips[];
  /** Teacher/student relations on the matched original states and on the matched variant states. */
  readonly relations?: { readonly originals: FidelityResult; readonly variants: FidelityResult };
  readonly warnings: readonly string[];
}

export interface VariantComparisonOptions extends FidelityOptions {
  /** Predictor specs; with teacherStudent the first is the teacher and the second the student. */
  readonly predictors: readonly string[];
  readonly teacherStudent: boolean;
  readonly abstraction: Abstraction;
  readonly predictorContext?: PredictorSettings;
  readonly onProgress?: Progress;
}

function originalDirOf(program: DatasetProgram): string | undefined {
  const file = join(program.dir, VARIANT_FILE);
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { original?: unknown };
  return typeof parsed.original === "string" ? parsed.original : undefined;
}

/**
 * Pairs each variant in the database with its original: through the variant.json the
 * mutate command wrote (original directory), else by name (<base>__<kind>-s<seed>
 * against the one program whose name is or ends with /<base>).
 */
export function findVariantPairs(programs: readonly DatasetProgram[]): { pairs: VariantPair[]; warnings: string[] } {
  const pairs: VariantPair[] = [];
  const warnings: string[] = [];
  for (const p of programs) {
    const parsed = originalOfVariant(p.name);
    if (parsed === undefined) continue;
    const dir = originalDirOf(p);
    const testSuffix = p.name.endsWith("#test") ? "#test" : "";
    let candidates =
      dir === undefined
        ? []
        : programs.filter(
            (o) => o.dir === dir && o.name.endsWith(testSuffix) && originalOfVariant(o.name) === undefined,
          );
    if (candidates.length === 0)
      candidates = programs.filter(
        (o) =>
          (o.name === parsed.base || o.name.endsWith(`/${parsed.base}`)) && originalOfVariant(o.name) === undefined,
      );
    if (candidates.length !== 1) {
      const why =
        candidates.length === 0
          ? "its original has no ingested runs"
          : `several programs could be its original (${candidates.map((c) => c.name).join(", ")})`;
      warnings.push(`${p.name}: ${why}; skipped`);
      continue;
    }
    pairs.push({ original: candidates[0]!.name, variant: p.name, kind: parsed.kind, seed: parsed.seed });
  }
  return { pairs, warnings };
}

interface Matched {
  readonly pair: VariantPair;
  /** Indices into the dataset's states, original and variant, per shared key. */
  readonly original: number[];
  readonly variant: number[];
  readonly unmatched: number;
}

function matchStates(states: readonly State[], pairs: readonly VariantPair[]): Matched[] {
  const byProgram = new Map<string, Map<string, number>>();
  states.forEach((s, i) => {
    let keys = byProgram.get(s.program);
    if (keys === undefined) byProgram.set(s.program, (keys = new Map()));
    keys.set(s.key, i);
  });
  return pairs.map((pair) => {
    const o = byProgram.get(pair.original) ?? new Map<string, number>();
    const v = byProgram.get(pair.variant) ?? new Map<string, number>();
    const original: number[] = [];
    const variant: number[] = [];
    for (const [key, i] of o) {
      const j = v.get(key);
      if (j !== undefined) {
        original.push(i);
        variant.push(j);
      }
    }
    return { pair, original, variant, unmatched: o.size + v.size - 2 * original.length };
  });
}

function accuracyOn(
  indices: ReadonlySet<number>,
  samplesByState: ReadonlyMap<number, number[]>,
  labels: readonly number[],
): number {
  let hits = 0;
  let n = 0;
  for (const i of indices) {
    for (const observed of samplesByState.get(i) ?? []) {
      n++;
      if (labels[i] === observed) hits++;
    }
  }
  return n === 0 ? NaN : hits / n;
}

function flipsOf(
  output: PredictorOutput,
  matched: readonly Matched[],
  samplesByState: ReadonlyMap<number, number[]>,
  options: FidelityOptions,
): VariantFlips[] {
  const labels = output.predictions.map((p) => topLabel(p.probabilities));
  const kinds = [...new Set(matched.map((m) => m.pair.kind))].sort();
  return kinds.map((kind) => {
    const ofKind = matched.filter((m) => m.pair.kind === kind);
    const groups: string[] = [];
    const flipped: number[] = [];
    const originals = new Set<number>();
    const variants = new Set<number>();
    for (const m of ofKind) {
      m.original.forEach((i, k) => {
        const j = m.variant[k]!;
        groups.push(m.pair.original);
        flipped.push(labels[i] === labels[j] ? 0 : 1);
        originals.add(i);
        variants.add(j);
      });
    }
    const b = clusterBootstrapMeanDifference(
      groups,
      flipped,
      flipped.map(() => 0),
      { resamples: options.resamples, seed: options.seed, confidence: options.ciLevel },
    );
    return {
      predictor: output.name,
      kind,
      pairs: ofKind.length,
      matchedStates: flipped.length,
      unmatchedStates: ofKind.reduce((n, m) => n + m.unmatched, 0),
      flipRate: b.estimate,
      flipCi: {
        lower: b.lower,
        upper: b.upper,
        confidence: b.confidence,
        resamples: b.resamples,
        programs: b.clusters,
      },
      accuracyOriginal: accuracyOn(originals, samplesByState, labels),
      accuracyVariant: accuracyOn(variants, samplesByState, labels),
    };
  });
}

function relationsOn(
  indices: readonly number[],
  states: readonly State[],
  samples: readonly SampleRow[],
  outputs: readonly PredictorOutput[],
  options: FidelityOptions,
): FidelityResult {
  const chosen = [...new Set(indices)].sort((a, b) => a - b);
  const subset = chosen.map((i) => states[i]!);
  const ids = new Set(subset.map((s) => s.id));
  const pick = (o: PredictorOutput): PredictorOutput => ({ ...o, predictions: chosen.map((i) => o.predictions[i]!) });
  return checkFidelity(
    subset,
    samples.filter((s) => ids.has(s.stateId)),
    pick(outputs[0]!),
    pick(outputs[1]!),
    options,
  );
}

/**
 * Compares predictors on every (original, variant) pair in the database. States are
 * matched by key within each pair, so use an abstraction whose keys do not name the
 * program's code: split, depth or goroutine (not the pooled context). Fitted predictors
 * train on the programs that are neither originals nor variants.
 */
export async function compareVariants(
  db: SchedlabDatabase,
  options: VariantComparisonOptions,
): Promise<VariantComparison> {
  if (options.abstraction === "context") {
    throw new UsageError(
      "--variants needs a per-program abstraction",
      "Use --abstraction split, depth or goroutine: context states are pooled over programs and cannot be matched between an original and its variant.",
    );
  }
  const programs = ingestedPrograms(db);
  const { pairs, warnings } = findVariantPairs(programs);
  if (pairs.length === 0) {
    throw new FidelityInputError(
      "no variant with an ingested original in the database",
      "Run `schedlab mutate PROGRAM --out DIR`, then `schedlab collect DIR` and collect the original into the same --db.",
    );
  }
  const involved = [...new Set(pairs.flatMap((p) => [p.original, p.variant]))].sort();
  const others = programs.map((p) => p.name).filter((n) => !involved.includes(n) && originalOfVariant(n) === undefined);
  const data = loadSide(db, options.abstraction, involved);
  const train = loadSide(db, options.abstraction, others);
  options.onProgress?.(
    `${pairs.length} original/variant pairs, ${data.states.length} states; fitted predictors train on ${others.length} other programs`,
  );
  const index = new Map(data.states.map((s, i) => [s.id, i] as const));
  const samplesByState = new Map<number, number[]>();
  for (const s of data.samples) {
    const i = index.get(s.stateId);
    if (i === undefined) continue;
    const list = samplesByState.get(i) ?? [];
    list.push(EVENT_TYPES.indexOf(s.next));
    samplesByState.set(i, list);
  }
  const training = { samples: samplesWithPrefixes(train), states: train.states };
  const outputs: PredictorOutput[] = [];
  for (const spec of options.predictors) {
    const predictor = await createPredictor(spec, { ...options.predictorContext, training });
    const answered = await predictWithCache(db, predictor, data.states);
    outputs.push({ name: spec, configHash: predictor.configHash, predictions: answered.predictions });
  }
  const matched = matchStates(data.states, pairs);
  const flips = outputs.flatMap((o) => flipsOf(o, matched, samplesByState, options));
  const relations = options.teacherStudent
    ? {
        originals: relationsOn(
          matched.flatMap((m) => m.original),
          data.states,
          data.samples,
          outputs,
          options,
        ),
        variants: relationsOn(
          matched.flatMap((m) => m.variant),
          data.states,
          data.samples,
          outputs,
          options,
        ),
      }
    : undefined;
  return { abstraction: options.abstraction, pairs, flips, relations, warnings };
}
