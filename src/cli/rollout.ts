// `schedlab rollout`: roll one predictor out k steps from held-out prefixes, check each
// step with the goroutine state machine, print survival and k-step accuracy, and store them.

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  PREDICTOR_SPECS_HELP,
  parseAbstraction,
  parseIntegerOption,
  parsePositiveInteger,
  parseRunSelection,
} from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { progressWriter } from "./progress.js";
import { UsageError } from "../errors.js";
import { runRollouts, saveRolloutReport, type RolloutReport } from "../rollout/index.js";
import { EVENT_TYPES, fixed } from "../core/index.js";

interface RolloutFlags {
  readonly configs: string;
  readonly predictor: string;
  readonly steps: string;
  readonly samples: string;
  readonly temperature: string;
  readonly constrained?: boolean;
  readonly abstraction: string;
  readonly holdout?: string;
  readonly prefixes: string;
  readonly seed: string;
  readonly db: string;
  readonly json?: boolean;
}

function parseTemperature(value: string): number {
  const t = Number(value);
  if (value.trim() === "" || !Number.isFinite(t) || t < 0)
    throw new UsageError(
      `--temperature must be a number ≥ 0, got ${JSON.stringify(value)}`,
      "Use 1 for the predictor's own distribution, 0 for its most probable event.",
    );
  return t;
}

/** The terminal summary: one headline line, the distributions, the ends and the worst prefixes. */
export function rolloutText(report: RolloutReport, runId: number): string {
  const o = report.overall;
  const lines = [
    `${report.predictor.id} (config ${report.predictor.configHash}), ` +
      `${report.constrained ? "constrained" : "unconstrained"}, k=${report.steps}, n=${report.samples}, ` +
      `T=${report.temperature}, seed ${report.seed}: ${report.prefixes.length} ${report.abstraction} ` +
      `prefixes of ${report.programs.length} test programs (holdout ${report.holdout}); stored as rollout ` +
      `run ${runId}`,
    `mean survival ${o.meanSurvival.toFixed(2)} / ${report.steps} steps, reached k ${fixed(o.reachedK)}, ` +
      `k-step accuracy ${fixed(o.kStepAccuracy)}, per-step accuracy ${fixed(o.perStepAccuracy)}, L1 ` +
      `${fixed(o.l1)}, KL ${fixed(o.kl)}, infeasible mass ${fixed(o.infeasibleMass)} per step`,
    `event types   ${EVENT_TYPES.join("  ")}`,
    `  rolled out  ${o.rolledDistribution.map((v, i) => v.toFixed(3).padStart(EVENT_TYPES[i].length)).join("  ")}`,
    `  empirical   ${o.empiricalDistribution.map((v, i) => v.toFixed(3).padStart(EVENT_TYPES[i].length)).join("  ")}`,
    `ends: ${Object.entries(o.ends)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
  ];
  const rules = Object.entries(o.brokenRules);
  if (rules.length > 0)
    lines.push(
      `broken rules: ${rules
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
  return `${lines.join("\n")}\n`;
}

export function registerRollout(program: Command): void {
  program
    .command("rollout")
    .description(
      "Roll a predictor out k steps from held-out prefixes; check each step with the goroutine state machine (survival, k-step accuracy).",
    )
    .requiredOption("--predictor <spec>", PREDICTOR_SPECS_HELP)
    .option("--steps <k>", "events per rollout", "10")
    .option("--samples <n>", "rollouts per prefix", "10")
    .option("--temperature <t>", "sampling temperature (0 = most probable event)", "1")
    .option(
      "--no-constrained",
      "sample from the predictor as it is: a rejected event type ends the rollout " +
        "(by default the types the state machine rejects are impossible: masked, the rest renormalised)",
    )
    .option(
      "--abstraction <name>",
      "state abstraction the prefixes come from: split, depth, goroutine or context",
      "split",
    )
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--prefixes <m>", "prefixes (test states) to roll out from, spread evenly", "20")
    .option("--seed <s>", "random seed", "1")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--json", "machine-readable output")
    .action(async (flags: RolloutFlags) => {
      const options = {
        predictor: flags.predictor,
        abstraction: parseAbstraction(flags.abstraction),
        steps: parsePositiveInteger("--steps", flags.steps),
        samples: parsePositiveInteger("--samples", flags.samples),
        temperature: parseTemperature(flags.temperature),
        constrained: flags.constrained !== false,
        holdout: flags.holdout,
        runs: parseRunSelection(flags.configs),
        prefixes: parsePositiveInteger("--prefixes", flags.prefixes),
        seed: parseIntegerOption("--seed", flags.seed),
      };
      const db = openExistingDatabase(flags.db);
      try {
        const progress = progressWriter(process.stderr, { quiet: flags.json === true });
        const report = await runRollouts(db, { ...options, onProgress: progress.write });
        progress.done();
        const runId = saveRolloutReport(db, report);
        if (flags.json === true) {
          const o = report.overall;
          const json = {
            rolloutRunId: runId,
            ...report,
            meanSurvival: o.meanSurvival,
            reachedK: o.reachedK,
            kStepAccuracy: o.kStepAccuracy,
            perStepAccuracy: o.perStepAccuracy,
            l1: o.l1,
            kl: o.kl,
          };
          process.stdout.write(`${JSON.stringify(json)}\n`);
          return;
        }
        process.stdout.write(rolloutText(report, runId));
      } finally {
        db.close();
      }
    });
}
