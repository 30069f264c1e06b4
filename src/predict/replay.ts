// replay:FILE.jsonl — predictions made elsewhere (another machine, another toolkit),
// keyed by State.id. Format (docs/predictors.md): one JSON object per line,
// {"stateId": "...", "probabilities": {"GoCreate": p, ...}} or an array in EVENT_TYPES order,
// optionally with the "prefixHash" of the prefix it was made for (export writes it): a line
// whose prefix hash differs from the state's was made for another prefix and is not used.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { State } from "../dataset/index.js";
import { EVENT_TYPES } from "../core/index.js";
import { ReplayFormatError, ReplayMissingStatesError } from "./errors.js";
import { probabilityVectorProblem, SUM_TOLERANCE } from "./probabilities.js";
import type { Prediction, Predictor, ReasoningTags } from "./types.js";

/** One line of a replay file, as written by writeReplayFile. */
export interface ReplayLine {
  readonly stateId: string;
  /** The content hash of the prefix the prediction was made for (State.prefixHash), when known. */
  readonly prefixHash?: string;
  readonly probabilities: Readonly<Record<string, number>> | readonly number[];
  readonly tags?: ReasoningTags;
}

/** A parsed line: the prediction and the prefix it was made for, if the file says. */
export interface ReplayEntry {
  readonly prediction: Prediction;
  readonly prefixHash: string | undefined;
}

/** Sums further from 1 than this are rejected rather than silently renormalised. */
const RENORMALISE_TOLERANCE = 1e-3;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The probability vector of one line's `probabilities` field, in EVENT_TYPES order, or a
 * problem description. Missing labels in the object form count as 0; sums within 1e-3 of 1
 * are renormalised (rounding in other tools), anything else is an error.
 */
export function parseReplayProbabilities(field: unknown): number[] | string {
  let vector: unknown[];
  if (Array.isArray(field)) {
    vector = field;
  } else if (isRecord(field)) {
    const unknownLabels = Object.keys(field).filter((k) => !(EVENT_TYPES as readonly string[]).includes(k));
    if (unknownLabels.length > 0)
      return `unknown label ${JSON.stringify(unknownLabels[0])} (labels: ${EVENT_TYPES.join(", ")})`;
    vector = EVENT_TYPES.map((e) => field[e] ?? 0);
  } else {
    return `"probabilities" must be an object keyed by event type or an array of ${EVENT_TYPES.length} numbers`;
  }
  const sum = vector.reduce<number>((a, p) => a + (typeof p === "number" ? p : 0), 0);
  // Vectors that already sum to 1 are kept bit for bit, so a replay round trip is exact.
  const needsScaling = Math.abs(sum - 1) > SUM_TOLERANCE && Math.abs(sum - 1) <= RENORMALISE_TOLERANCE;
  const scaled = needsScaling ? vector.map((p) => (typeof p === "number" ? p / sum : p)) : vector;
  const problem = probabilityVectorProblem(scaled);
  if (problem !== null) return `"probabilities" ${problem}`;
  return scaled as number[];
}

/** Parses a whole replay file's text into entries by state id; a malformed line is an error naming it. */
export function parseReplayText(text: string, file: string): Map<string, ReplayEntry> {
  const byState = new Map<string, ReplayEntry>();
  const lines = text.split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const where = `${file}:${index + 1}`;
    const hint =
      `Each line must be {"stateId": "...", "probabilities": {"GoCreate": p, ` +
      `...}} (or an array in the order ${EVENT_TYPES.join(", ")}); see docs/predictors.md.`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new ReplayFormatError(`${where}: not valid JSON (${(error as Error).message})`, hint);
    }
    if (!isRecord(parsed) || typeof parsed.stateId !== "string" || parsed.stateId === "") {
      throw new ReplayFormatError(`${where}: missing string field "stateId"`, hint);
    }
    const probabilities = parseReplayProbabilities(parsed.probabilities);
    if (typeof probabilities === "string") throw new ReplayFormatError(`${where}: ${probabilities}`, hint);
    if (parsed.prefixHash !== undefined && typeof parsed.prefixHash !== "string")
      throw new ReplayFormatError(`${where}: "prefixHash" must be a string`, hint);
    const tags = isRecord(parsed.tags) ? (parsed.tags as ReasoningTags) : undefined;
    byState.set(parsed.stateId, {
      prediction: tags === undefined ? { probabilities } : { probabilities, tags },
      prefixHash: parsed.prefixHash as string | undefined,
    });
  }
  return byState;
}

/** Writes predictions as a replay file (object form), one line per state with its prefix hash, in the given order. */
export function writeReplayFile(
  file: string,
  entries: ReadonlyArray<readonly [state: Pick<State, "id" | "prefixHash">, prediction: Prediction]>,
): void {
  const lines = entries.map(([state, p]) => {
    const probabilities = Object.fromEntries(EVENT_TYPES.map((e, i) => [e, p.probabilities[i]]));
    const base = { stateId: state.id, prefixHash: state.prefixHash, probabilities };
    const line: ReplayLine = p.tags === undefined ? base : { ...base, tags: p.tags };
    return JSON.stringify(line);
  });
  writeFileSync(file, lines.join("\n") + (lines.length > 0 ? "\n" : ""));
}

/**
 * replay:FILE — answers from the file; asking for a state the file lacks is an error naming
 * how many are missing and one example. The configHash is the file's content hash, so an
 * edited file never reuses stale cache entries.
 */
export function replayPredictor(file: string): Predictor {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ReplayFormatError(
      `cannot read replay file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      "Pass replay:PATH with the path of a JSONL file of predictions (see docs/predictors.md).",
    );
  }
  const byState = parseReplayText(text, path);
  return {
    id: `replay:${file}`,
    configHash: createHash("sha256").update(text).digest("hex").slice(0, 16),
    predict: async (states: readonly State[]) => {
      const usable = (s: State): boolean => {
        const entry = byState.get(s.id);
        return entry !== undefined && (entry.prefixHash === undefined || entry.prefixHash === s.prefixHash);
      };
      const missing = states.filter((s) => !usable(s));
      if (missing.length > 0) {
        const stale = missing.filter((s) => byState.has(s.id)).length;
        throw new ReplayMissingStatesError(
          `replay file ${path} has no prediction for ${missing.length} of ${states.length} states (e.g. ` +
            `state ${missing[0].id}, ${missing[0].program} ${missing[0].key})` +
            (stale > 0
              ? `; ${stale} of them have a line made for another prefix (another collection or other runs)`
              : ""),
          "Regenerate the file from an export of this database (same abstraction and holdout), or score only the states it covers.",
          missing.length,
        );
      }
      return states.map((s) => byState.get(s.id)!.prediction);
    },
  };
}
