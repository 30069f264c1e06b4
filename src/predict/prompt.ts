// The text a language-model predictor is shown for a state: the dataset stage's
// token-budgeted rendering of the representative prefix, without its closing question,
// so each backend asks in the form it reads answers from (letters A–F for chat
// endpoints, a " GoXxx" continuation for local causal LMs). Invariant: the text depends
// only on the state's representative prefix and the options, so it is cacheable by state id.

import { NEXT_EVENT_QUESTION, renderPrefix, type State } from "../dataset/index.js";

export interface PromptOptions {
  /** Upper bound on the rendered prefix in approximate tokens (chars / 4); default 1024. */
  readonly maxTokens?: number;
}

/** Bumped whenever the rendered text changes; part of every LM predictor's configHash. */
export const PROMPT_VERSION = "render-v1";

/** The rendered prefix of `state` (header, live goroutines, recent events), without the question line. */
export function renderStatePrompt(state: State, options: PromptOptions = {}): string {
  const text = renderPrefix(state.representative, { maxTokens: options.maxTokens });
  return text.endsWith(NEXT_EVENT_QUESTION) ? text.slice(0, text.length - NEXT_EVENT_QUESTION.length).trimEnd() : text;
}
