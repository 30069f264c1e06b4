// Schedule-exploration strategies and the configuration keys that name them. A run's
// configuration is (strategy, GOMAXPROCS, -test.count); its key names all three, so
// perturbed and race runs never share a configuration with plain ones.

/** How a build explores schedules: unchanged, built with -race, or with seeded perturbation (runs.strategy). */
export const STRATEGIES = ["plain", "race", "perturb"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/**
 * The configuration key: "procs-2", "procs-2-count-20", "procs-1-race",
 * "procs-1-race-count-20", "procs-2-perturb". Plain keys are the keys an ordinary
 * collect has always used, so plain runs of a budgeted collect resume and pool with them.
 */
export function configKey(strategy: Strategy, procs: number, testCount: number | null): string {
  const middle = strategy === "plain" ? "" : `-${strategy}`;
  return `procs-${procs}${middle}${testCount === null ? "" : `-count-${testCount}`}`;
}

/** Parses a key made by configKey; null for anything else. */
export function parseConfigKey(key: string): { strategy: Strategy; procs: number; testCount: number | null } | null {
  const match = /^procs-(\d+)(?:-(race|perturb))?(?:-count-(\d+))?$/.exec(key);
  if (match === null) return null;
  return {
    strategy: (match[2] as Strategy | undefined) ?? "plain",
    procs: Number(match[1]),
    testCount: match[3] === undefined ? null : Number(match[3]),
  };
}
