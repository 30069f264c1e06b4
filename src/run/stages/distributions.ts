// Stage distributions: the states and empirical next-event distributions of every program.

import { refreshDataset, type Abstraction } from "../../dataset/index.js";
import type { StageDescriptor } from "../stage.js";

export interface DistributionsInput {
  /** Fingerprint of the decoded runs (ingestedDataHash). */
  readonly data: string;
  readonly abstraction: Abstraction;
}

export const distributionsStage: StageDescriptor<DistributionsInput, { readonly rebuilt: number }> = {
  name: "distributions",
  work: async (input, _say, context) => {
    const refreshed = refreshDataset(context.db, { abstraction: input.abstraction });
    return {
      output: { rebuilt: refreshed.rebuilt.length },
      note: `${input.abstraction} states of ${refreshed.rebuilt.length} programs rebuilt, ${refreshed.unchanged.length} unchanged`,
    };
  },
};
