// Typed errors of program discovery.

import { SchedlabError } from "../errors.js";

/** A path given to discovery holds no Go code (or does not exist). */
export class NoGoCodeError extends SchedlabError {}

/** Two roots produce the same program name. */
export class ProgramNameClashError extends SchedlabError {}

/** A program selected by name (`--program`) is not among the programs discovered under the paths. */
export class ProgramNotFoundError extends SchedlabError {
  constructor(message: string, hint: string) {
    super(message, hint, 2);
  }
}
