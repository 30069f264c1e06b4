// Typed errors of the collect stage.

import { SchedlabError } from "../errors.js";

/** A path given to collect holds no Go code (or does not exist). */
export class NoGoCodeError extends SchedlabError {}

/** Two roots produce the same program name. */
export class ProgramNameClashError extends SchedlabError {}

/** A program selected by name (`--program`) is not among the programs discovered under the paths. */
export class ProgramNotFoundError extends SchedlabError {
  constructor(message: string, hint: string) {
    super(message, hint, 2);
  }
}

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
