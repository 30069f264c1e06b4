// Stage ingest: decode every recorded trace not decoded yet.

import { ingestRuns, pendingIngestCount } from "../../trace/index.js";
import type { StageDescriptor } from "../stage.js";

export interface IngestInput {
  /** Every run's id and trace hash: a new or re-collected run reruns ingest. */
  readonly runs: readonly unknown[];
  readonly jobs: number | undefined;
}

export interface IngestOutput {
  readonly runs: number;
  readonly errors: number;
  readonly events: number;
}

export const ingestStage: StageDescriptor<IngestInput, IngestOutput> = {
  name: "ingest",
  work: async (input, say, context) => {
    const summary = await ingestRuns(context.db, {
      concurrency: input.jobs,
      onProgress: (done, total) => say(`${done}/${total} traces`, true),
    });
    if (summary.errors > 0)
      context.warnings.push(
        `ingest: ${summary.errors} trace(s) could not be decoded; \`schedlab ingest --json\` lists them`,
      );
    return {
      output: { runs: summary.runs.length, errors: summary.errors, events: summary.events },
      note: `${summary.runs.length} traces decoded (${summary.truncated} truncated, ${summary.errors} errors), ${summary.events} events`,
    };
  },
  stillValid: (_output, context) => pendingIngestCount(context.db) === 0,
};
