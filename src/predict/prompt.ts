// The text a language-model predictor is shown for a state. One small function so it
// can be swapped for the dataset stage's renderPrefix once that lands. Invariant: the
// text depends only on the state's representative prefix, so it is cacheable by state id.

import { isEventType } from "../trace/types.js";
import type { State } from "../dataset/types.js";

export interface PromptOptions {
  /** Keep at most this many of the most recent six-type events (default 64). */
  readonly maxEvents?: number;
}

/** Bumped whenever the rendered text changes; part of every LM predictor's configHash. */
export const PROMPT_VERSION = "events-v1";

/**
 * Renders the representative prefix of `state` as one line per recent scheduler event,
 * oldest first, e.g. "GoBlock g7 chan receive". The text ends at the prefix; the
 * question of what comes next is asked by the backend (chat instruction or continuation).
 */
export function renderStatePrompt(state: State, options: PromptOptions = {}): string {
  const maxEvents = options.maxEvents ?? 64;
  const { records, end, procs } = state.representative;
  const lines: string[] = [];
  for (let i = end - 1; i >= 0 && lines.length < maxEvents; i--) {
    const r = records[i];
    if (!isEventType(r.kind)) continue;
    const reason = r.reason === "" ? "" : ` ${r.reason}`;
    lines.push(`${r.kind} g${r.goroutine}${reason}`);
  }
  lines.reverse();
  const header = `Go program ${state.program}, GOMAXPROCS=${procs}. Recent scheduler events, oldest first:`;
  return [header, ...(lines.length === 0 ? ["(none yet)"] : lines)].join("\n");
}
