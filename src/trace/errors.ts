// Typed errors of the trace stage.

import { SchedlabError } from "../errors.js";

/** The file is not a Go execution trace, or cannot be parsed from its first generation on. */
export class TraceCorruptError extends SchedlabError {}

/** The Go helper could not run or stopped abnormally. */
export class TraceDecodeError extends SchedlabError {}
