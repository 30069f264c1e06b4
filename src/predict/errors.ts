// Typed errors of the predict stage: bad specs, unreachable or misbehaving model
// endpoints, missing local models and incomplete replay files. Each says what to do next.

import { SchedlabError, UsageError } from "../errors.js";

/** A predictor spec that names no backend or has a malformed argument. */
export class PredictorSpecError extends UsageError {}

/** The model endpoint refused the connection or its host does not resolve. */
export class EndpointUnreachableError extends SchedlabError {}

/** The endpoint answered with an error status, or timed out, after all retries. */
export class EndpointError extends SchedlabError {
  /** HTTP status of the last reply, or null for a timeout or network failure. */
  readonly status: number | null;
  constructor(message: string, hint: string, status: number | null) {
    super(message, hint);
    this.status = status;
  }
}

/** The model answered, but its reply holds no usable probabilities for the six labels. */
export class ModelResponseError extends SchedlabError {}

/** A local model directory or file that does not exist or cannot be loaded. */
export class ModelNotFoundError extends SchedlabError {}

/** A replay file that cannot be read or has a malformed line. */
export class ReplayFormatError extends SchedlabError {}

/** A replay file that lacks predictions for some requested states. */
export class ReplayMissingStatesError extends SchedlabError {
  readonly missing: number;
  constructor(message: string, hint: string, missing: number) {
    super(message, hint);
    this.missing = missing;
  }
}

/** A backend returned something that is not a probability vector over the six events. */
export class PredictorOutputError extends SchedlabError {}
