// erfc(x) = 1 − erf(x), computed directly so small tail probabilities keep their digits.

/**
 * The complementary error function, by the Chebyshev fit of Numerical Recipes
 * (fractional error below 1.2e-7 everywhere). simple-statistics' errorFunction uses
 * the same fit but returns 1 − erfc, which rounds tails below 1e-16 to zero.
 *
 * @example complementaryErrorFunction(0) // => 1
 * @example complementaryErrorFunction(1) // ≈ 0.1572992
 */
export function complementaryErrorFunction(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const tail =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? tail : 2 - tail;
}
