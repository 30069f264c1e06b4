// Typed errors of the collect stage.

import { SchedlabError } from "../errors.js";

/** The collect was aborted (Ctrl-C or an AbortSignal); finished runs are recorded. */
export class CollectInterruptedError extends SchedlabError {
  constructor(done: number) {
    super(
      `collect interrupted; ${done} run(s) finished and are recorded`,
      "Run the same command again to resume: recorded runs are skipped.",
      130,
    );
  }
}
