// Stage leaks: goroutines blocked forever in every program, scored against the manifests.

import { analyseLeaks, scoreLeaks } from "../../leaks/index.js";
import { leakSummaryOf } from "../summary.js";
import type { StageDescriptor } from "../stage.js";
import type { LeakSummary } from "../types.js";

export interface LeaksInput {
  /** Fingerprint of the decoded runs (ingestedDataHash). */
  readonly data: string;
}

export const leaksStage: StageDescriptor<LeaksInput, { readonly summary: LeakSummary }> = {
  name: "leaks",
  optional: true,
  work: async (_input, _say, context) => {
    // One analysis (stored) serves the summary and the score.
    const analysis = await analyseLeaks(context.db);
    const score = await scoreLeaks(context.db, {}, analysis);
    const summary = leakSummaryOf(analysis, score);
    return {
      output: { summary },
      note: `${summary.findings} findings in ${summary.programsWithFindings} of ${summary.programsAnalysed} programs`,
    };
  },
};
