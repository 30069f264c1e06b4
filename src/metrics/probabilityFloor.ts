// The floor applied to predicted probabilities inside logarithms (NLL, KL).

/**
 * Predicted probabilities below this are raised to it before taking a logarithm,
 * so a predictor that gives an observed event probability 0 scores a large but
 * finite penalty: −ln(1e-12) ≈ 27.6 nats per such sample. Vectors are not
 * renormalised after flooring (the change is at most 6e-12).
 */
export const PROBABILITY_FLOOR = 1e-12;
