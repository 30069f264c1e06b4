// `schedlab fidelity`: check a student against a teacher on the same held-out states
// (docs/fidelity.md) and print the four relations with their thresholds, or JSON.

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  PREDICTOR_SPECS_HELP,
  parseAbstraction,
  parseIntegerOption,
  parseNumberOption,
  parsePositiveInteger,
  parseRunSelection,
} from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { DEFAULT_RESAMPLES } from "../metrics/index.js";
import { progressWriter } from "./progress.js";
import { UsageError } from "../errors.js";
import { compareVariants, fidelityText, runFidelity, saveFidelityRun, variantsText } from "../fidelity/index.js";

interface FidelityFlags {
  readonly configs: string;
  readonly teacher: string;
  readonly student: string;
  readonly abstraction: string;
  readonly holdout?: string;
  readonly tau: string;
  readonly delta: string;
  readonly confidence: string;
  readonly mr4Threshold: string;
  readonly bootstrap: string;
  readonly seed: string;
  readonly db: string;
  readonly baseUrl?: string;
  readonly allowDownload?: boolean;
  readonly variants?: boolean;
  readonly store: boolean;
  readonly json?: boolean;
}

const stored = (id: number | null, db: string): string =>
  id === null ? "" : `\nstored as fidelity run ${id}; \`schedlab report --db ${db}\` shows it\n`;

export function registerFidelity(program: Command): void {
  program
    .command("fidelity")
    .description(
      "Check a student predictor against a teacher on the same held-out states: MR1 top-1 agreement, MR2 " +
        "KL(teacher||student) <= tau, MR3 agreement where the teacher is confident, MR4 per-bin calibration " +
        "alignment; violation rates with program-bootstrap CIs beside plain accuracy.",
    )
    .requiredOption("--teacher <spec>", `teacher predictor spec (${PREDICTOR_SPECS_HELP})`)
    .requiredOption("--student <spec>", "student predictor spec")
    .requiredOption("--abstraction <name>", "state abstraction: split, depth, goroutine or context")
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--tau <nats>", "MR2: KL(teacher||student) threshold in nats", "0.1")
    .option("--confidence <p>", "MR3: teacher confidence from which the student must agree", "0.8")
    .option("--delta <p>", "MR3: the student may be this much less confident", "0.1")
    .option("--mr4-threshold <x>", "MR4: largest allowed |acc_T(b) - acc_S(b)| per calibration bin", "0.1")
    .option("--bootstrap <n>", "bootstrap resamples for the intervals", String(DEFAULT_RESAMPLES))
    .option("--seed <n>", "bootstrap seed", "1")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--base-url <url>", "OpenAI-compatible endpoint for openai:MODEL, ending in /v1")
    .option("--allow-download", "let hf:MODEL fetch weights from the hub")
    .option(
      "--variants",
      "instead of the holdout: compare both predictors on original programs against their `schedlab mutate` variants (flips, accuracy, relations on each side)",
    )
    .option("--no-store", "do not store the result in the database (the report shows stored runs)")
    .option("--json", "machine-readable output")
    .action(async (flags: FidelityFlags) => {
      const abstraction = parseAbstraction(flags.abstraction);
      const thresholds = {
        tau: parseNumberOption("--tau", flags.tau, 0),
        confidence: parseNumberOption("--confidence", flags.confidence, 0, 1),
        delta: parseNumberOption("--delta", flags.delta, 0, 1),
        mr4Threshold: parseNumberOption("--mr4-threshold", flags.mr4Threshold, 0, 1),
      };
      const resamples = parsePositiveInteger("--bootstrap", flags.bootstrap);
      const seed = parseIntegerOption("--seed", flags.seed);
      if (flags.variants === true && flags.holdout !== undefined) {
        throw new UsageError(
          "--variants and --holdout do not go together",
          "The variant comparison uses every original/variant pair in the database; drop --holdout.",
        );
      }
      const db = openExistingDatabase(flags.db);
      const progress = progressWriter(process.stderr, { quiet: flags.json === true });
      try {
        const common = {
          abstraction,
          thresholds,
          resamples,
          seed,
          predictorContext: { baseUrl: flags.baseUrl, allowDownload: flags.allowDownload === true },
          onProgress: progress.write,
        };
        if (flags.variants === true) {
          const comparison = await compareVariants(db, {
            ...common,
            predictors: [flags.teacher, flags.student],
            teacherStudent: true,
          });
          progress.done();
          const id = flags.store ? saveFidelityRun(db, { mode: "variants", comparison }) : null;
          process.stdout.write(
            flags.json === true
              ? `${JSON.stringify({ fidelityRunId: id, ...comparison })}\n`
              : `${variantsText(comparison)}${stored(id, flags.db)}`,
          );
          return;
        }
        const run = await runFidelity(db, {
          ...common,
          teacher: flags.teacher,
          student: flags.student,
          holdout: flags.holdout,
          runs: parseRunSelection(flags.configs),
        });
        progress.done();
        const id = flags.store
          ? saveFidelityRun(db, {
              mode: "holdout",
              holdout: run.holdout,
              abstraction: run.abstraction,
              result: run.result,
            })
          : null;
        if (flags.json === true) {
          const { relations, teacher, student, thresholds: t, states, samples, programs } = run.result;
          const json = {
            fidelityRunId: id,
            abstraction: run.abstraction,
            holdout: run.holdout,
            testPrograms: run.testPrograms,
            thresholds: t,
            states,
            samples,
            programs,
            relations,
            teacher,
            student,
          };
          process.stdout.write(`${JSON.stringify(json)}\n`);
        } else {
          process.stdout.write(`${fidelityText(run.result, run)}${stored(id, flags.db)}`);
        }
      } finally {
        db.close();
      }
    });
}
