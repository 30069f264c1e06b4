// Typed errors of the evaluation stage.

import { SchedlabError } from "../errors.js";

/** States, samples and predictions given to evaluate/compare do not fit together. */
export class EvaluationInputError extends SchedlabError {}

/** No stored evaluation to report on. */
export class NoEvaluationError extends SchedlabError {}
