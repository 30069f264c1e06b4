// Typed errors of the trace stage.

import { SchedlabError } from "../errors.js";

/** The file is not a Go execution trace, or cannot be parsed from its first generation on. */
export class TraceCorruptError extends SchedlabError {}

/** The Go helper could not run or stopped abnormally. */
export class TraceDecodeError extends SchedlabError {}

/**
 * A stage that reads events was asked for the records of a run ingested with --store
 * summary, which keeps only its goroutines and end state (docs/schema.md, run_end_states).
 */
export class SummaryOnlyRunError extends SchedlabError {}
