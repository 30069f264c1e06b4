// JSONL export of a dataset for fine-tuning models elsewhere (docs/export.md): one record per
// sample (objective ce, a hard label per observed run) or per state (objective kl, the soft
// target p̂), each keyed by the stable state id. The format is documented in docs/export.md.

import { readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { modeEvent, probabilities } from "./distribution.js";
import { DEFAULT_MAX_TOKENS, renderPrefix } from "./render.js";
import { resolveHoldout } from "./split.js";
import { ingestedPrograms, loadDataset } from "./store.js";
import type { DatasetProgram } from "./store.js";
import type { Abstraction, EventCounts, RunSelection, SampleRow, State } from "./types.js";

export const EXPORT_OBJECTIVES = ["ce", "kl"] as const;
export type ExportObjective = (typeof EXPORT_OBJECTIVES)[number];
export const EXPORT_SPLITS = ["train", "test", "all"] as const;
export type ExportSplit = (typeof EXPORT_SPLITS)[number];

/** Default cap on the program source included in each record, in approximate tokens. */
export const DEFAULT_MAX_SOURCE_TOKENS = 2048;

export interface ExportOptions {
  readonly abstraction: Abstraction;
  readonly objective: ExportObjective;
  /** Holdout spec (default: the default holdout); decides each program's train/test side. */
  readonly holdout?: string;
  /** Which runs feed the states (default plain). */
  readonly runs?: RunSelection;
  /**
   * Which side to export. Default "train": a model fine-tuned on the export can then be
   * scored on the test side without having seen it. "all" gives train records first, then test.
   */
  readonly split?: ExportSplit;
  /** Emit system/user/assistant messages instead of source/prompt fields. */
  readonly chat?: boolean;
  /** Token budget of the trace rendering (chars / 4). */
  readonly maxTokens?: number;
  /** Token budget of the program source (chars / 4). */
  readonly maxSourceTokens?: number;
}

export interface ExportSummary {
  readonly records: number;
  readonly states: number;
  readonly programs: number;
  /** Programs whose source could not be read (their records have source ""). */
  readonly missingSources: readonly string[];
}

/** The system message of the chat variant. */
export const EXPORT_SYSTEM_PROMPT =
  `You predict the next goroutine scheduling event in an execution trace of a Go program. ` +
  `Answer with exactly one of: ${EVENT_TYPES.join(", ")}.`;

/** Fields every record carries. */
interface RecordBase {
  readonly id: string;
  /** Content hash of the prefix shown (State.prefixHash); replay files carry it back. */
  readonly prefixHash: string;
  readonly abstraction: Abstraction;
  readonly program: string;
  readonly key: string;
  readonly split: "train" | "test";
}

/**
 * Writes one JSON line per record through `write`, train side first, states in dataset
 * order, a state's CE records in (run id, position) order. Deterministic.
 */
export function exportDataset(
  db: SchedlabDatabase,
  options: ExportOptions,
  write: (line: string) => void,
): ExportSummary {
  const holdout = resolveHoldout(db, options.holdout, options.runs);
  const sides: ("train" | "test")[] =
    options.split === "all" ? ["train", "test"] : options.split === "test" ? ["test"] : ["train"];
  const programInfo = new Map(ingestedPrograms(db, options.runs).map((p) => [p.name, p]));
  const sources = new Map<string, string>();
  const missingSources = new Set<string>();
  const sourceOf = (name: string): string => {
    let text = sources.get(name);
    if (text === undefined) {
      const program = programInfo.get(name);
      text =
        program === undefined
          ? undefined
          : programSource(program, (options.maxSourceTokens ?? DEFAULT_MAX_SOURCE_TOKENS) * 4);
      if (text === undefined) {
        missingSources.add(name);
        text = "";
      }
      sources.set(name, text);
    }
    return text;
  };
  let records = 0;
  let states = 0;
  const programs = new Set<string>();
  for (const side of sides) {
    const names = side === "train" ? holdout.train : holdout.test;
    if (names.length === 0) continue;
    const dataset = loadDataset(db, {
      abstraction: options.abstraction,
      programs: names,
      samples: options.objective === "ce",
      runs: options.runs,
    });
    const samplesByState = groupSamples(dataset.samples);
    for (const state of dataset.states) {
      states++;
      programs.add(state.program);
      const base: RecordBase = {
        id: state.id,
        prefixHash: state.prefixHash,
        abstraction: state.abstraction,
        program: state.program,
        key: state.key,
        split: side,
      };
      const prompt = renderPrefix(state.representative, { maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS });
      const source = sourceOf(state.program);
      if (options.objective === "kl") {
        write(JSON.stringify(klRecord(base, state, source, prompt, options.chat ?? false)));
        records++;
      } else {
        for (const sample of samplesByState.get(state.id) ?? []) {
          write(JSON.stringify(ceRecord(base, sample, source, prompt, options.chat ?? false)));
          records++;
        }
      }
    }
  }
  return { records, states, programs: programs.size, missingSources: [...missingSources].sort() };
}

function groupSamples(samples: readonly SampleRow[]): Map<string, SampleRow[]> {
  const byState = new Map<string, SampleRow[]>();
  for (const s of samples) {
    const list = byState.get(s.stateId);
    if (list === undefined) byState.set(s.stateId, [s]);
    else list.push(s);
  }
  return byState;
}

/** p̂ as an object in EVENT_TYPES order. */
function softTarget(counts: EventCounts): Record<EventType, number> {
  const p = probabilities(counts);
  return Object.fromEntries(EVENT_TYPES.map((e, i) => [e, p[i]])) as Record<EventType, number>;
}

function userMessage(source: string, prompt: string): string {
  return source === ""
    ? `Trace so far:\n${prompt}`
    : `Go program:\n\`\`\`go\n${source}\n\`\`\`\n\nTrace so far:\n${prompt}`;
}

function messages(source: string, prompt: string, answer: string) {
  return [
    { role: "system", content: EXPORT_SYSTEM_PROMPT },
    { role: "user", content: userMessage(source, prompt) },
    { role: "assistant", content: answer },
  ];
}

function klRecord(base: RecordBase, state: State, source: string, prompt: string, chat: boolean): object {
  const target = softTarget(state.counts);
  const tail = { target, counts: state.counts, runs: state.runs };
  if (chat) return { ...base, messages: messages(source, prompt, modeEvent(state.counts) ?? ""), ...tail };
  return { ...base, source, prompt, ...tail };
}

function ceRecord(base: RecordBase, sample: SampleRow, source: string, prompt: string, chat: boolean): object {
  if (chat)
    return { ...base, runId: sample.runId, messages: messages(source, prompt, sample.next), target: sample.next };
  return { ...base, runId: sample.runId, source, prompt, target: sample.next };
}

/**
 * The program's .go files (tests included), sorted by name, each under a "// file: NAME"
 * line, cut to `maxChars`. Undefined when the directory cannot be read.
 */
export function programSource(program: Pick<DatasetProgram, "root" | "dir">, maxChars: number): string | undefined {
  const dir = isAbsolute(program.dir) ? program.dir : join(program.root, program.dir);
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".go"))
      .sort();
  } catch {
    return undefined;
  }
  if (files.length === 0) return undefined;
  const parts: string[] = [];
  for (const f of files) {
    try {
      parts.push(`// file: ${f}\n${readFileSync(join(dir, f), "utf8").trimEnd()}`);
    } catch {
      // An unreadable file is left out; the others still describe the program.
    }
  }
  const text = parts.join("\n\n");
  const marker = "\n// … source truncated";
  if (text.length <= maxChars) return text;
  return `${text.slice(0, Math.max(0, maxChars - marker.length))}${marker}`;
}
