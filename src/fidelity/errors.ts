// Typed errors of the fidelity stage.

import { SchedlabError } from "../errors.js";

/** States, samples and predictions that do not fit together. */
export class FidelityInputError extends SchedlabError {}

/** A metamorphic rewrite that could not be made, or whose variant does not build. */
export class MutationError extends SchedlabError {}
