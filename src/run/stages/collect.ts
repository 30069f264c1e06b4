// Stage collect: build and run every chosen program of the corpus, and every program of each
// test corpus (collected as such: named "<label>/<path>", never trained on).

import { collect } from "../../collect/index.js";
import type { StageDescriptor } from "../stage.js";

/** What collect is asked to do; the program lists (name and source hash) make a changed source rerun it. */
export interface CollectInput {
  readonly corpus: string;
  /** Programs of the corpus to collect (names as discovery gives them), or null for all. */
  readonly selection: readonly string[] | null;
  readonly programs: readonly (readonly [name: string, sourceHash: string])[];
  readonly testCorpora: readonly {
    readonly root: string;
    readonly programs: readonly (readonly [name: string, sourceHash: string])[];
  }[];
  readonly runs: number;
  readonly timeoutMs: number;
  readonly traces: string;
  readonly db: string;
}

export interface CollectOutput {
  readonly programs: number;
  readonly executed: number;
  readonly skipped: number;
  readonly buildErrors: number;
}

export function collectStage(options: {
  readonly jobs: number | undefined;
  readonly signal: AbortSignal | undefined;
}): StageDescriptor<CollectInput, CollectOutput> {
  return {
    name: "collect",
    work: async (input, say, context) => {
      const totals = { programs: 0, executed: 0, skipped: 0, buildErrors: 0 };
      const batches = [
        { paths: [input.corpus], programs: input.selection ?? undefined, testCorpus: false },
        ...(input.testCorpora.length === 0
          ? []
          : [{ paths: input.testCorpora.map((c) => c.root), programs: undefined, testCorpus: true }]),
      ];
      for (const batch of batches) {
        let last = -1;
        const result = await collect({
          ...batch,
          runs: input.runs,
          timeoutMs: input.timeoutMs,
          jobs: options.jobs,
          db: input.db,
          traces: input.traces,
          signal: options.signal,
          onProgress: (p) => {
            if (p.runsDone === last) return;
            last = p.runsDone;
            say(
              `${batch.testCorpus ? "test corpora: " : ""}${p.programsDone}/${p.programsTotal} ` +
                `programs, ${p.runsDone}/${p.runsTotal} runs, ${p.failures} failed`,
              true,
            );
          },
        });
        for (const warning of result.warnings) context.warnings.push(`collect: ${warning}`);
        totals.programs += result.programs.length;
        totals.executed += result.executed;
        totals.skipped += result.skipped;
        totals.buildErrors += result.programs.filter((p) => p.build === "error").length;
      }
      if (totals.buildErrors > 0)
        context.warnings.push(
          `collect: ${totals.buildErrors} program(s) did not build; they are left out (see \`schedlab collect\` output)`,
        );
      return {
        output: totals,
        note:
          `${totals.programs} programs, ${totals.executed} runs executed, ${totals.skipped} ` +
          `resumed${totals.buildErrors > 0 ? `, ${totals.buildErrors} build errors` : ""}`,
      };
    },
  };
}
