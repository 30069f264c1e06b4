// `schedlab train`: trains a student (logreg or MLP, CE or KL objective) and saves an adapter.

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  MAX_SAMPLES_HELP,
  TRAIN_ON_HELP,
  parseAbstraction,
  parseChoice,
  parseIntegerOption,
  parseNumberOption,
  parsePositiveInteger,
  parseRunSelection,
} from "./options.js";
import { pct } from "../core/index.js";
import { cappedLine, DEFAULT_MAX_SAMPLES_PER_PROGRAM } from "../dataset/index.js";
import { UsageError } from "../errors.js";
import { openExistingDatabase } from "../store/index.js";
import { progressWriter } from "./progress.js";
import {
  ACTIVATIONS,
  DEFAULT_CONFIDENCE_EVIDENCE,
  FEASIBILITY_RULES,
  MODEL_KINDS,
  type ExpertEvidence,
} from "../predict/index.js";
import { CALIBRATION_MODES, DEFAULT_TRAIN_OPTIONS, OBJECTIVES, trainFromDatabase } from "../train/index.js";

interface TrainCliOptions {
  configs: string;
  objective: string;
  model: string;
  tags?: boolean;
  balance?: boolean;
  staticFeatures?: boolean;
  expertSkip?: boolean;
  contextExpert: boolean;
  expertEvidence: string | false;
  confidenceEvidence?: boolean;
  mixtureTemperature?: boolean;
  expertTemperature?: boolean;
  clipFeatures?: boolean;
  familyBalance?: boolean;
  abstraction: string;
  holdout?: string;
  trainOn?: string;
  seed: string;
  db: string;
  out: string;
  hidden: string;
  activation: string;
  epochs: string;
  batchSize: string;
  learningRate: string;
  l2: string;
  tagWeight: string;
  trajectorySteps: string;
  trajectoryDiscount: string;
  splitGrid: boolean;
  feasibility: string;
  infeasibleCap: string;
  calibrationFolds: string;
  members: string;
  calibrationWeighting: string;
  calibrationMode: string;
  maxSamplesPerProgram: string;
  json?: boolean;
}

export function registerTrain(program: Command): void {
  const d = DEFAULT_TRAIN_OPTIONS;
  program
    .command("train")
    .description("Train a student model on the collected runs and save it as an adapter (weights, feature spec, card).")
    .requiredOption(
      "--objective <name>",
      "ce (cross-entropy on observed events), kl (KL to p̂ per state) or trajectory (discounted CE on the next k events)",
    )
    .requiredOption("--abstraction <name>", "state abstraction: split, depth, goroutine or context")
    .requiredOption("--out <dir>", "adapter directory to write, e.g. adapters/kl")
    .option("--model <kind>", "logreg or mlp", d.model)
    .option("--tags", "train the auxiliary reasoning-tag head (block reason / wake-up cause)")
    .option("--balance", "reweight GoEnd, GoSched and GoUnblock by tempered inverse frequency")
    .option("--static-features", "also feed go/ast counts of each program's source (can overfit with few programs)")
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--train-on <spec>", TRAIN_ON_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--max-samples-per-program <n>", MAX_SAMPLES_HELP, String(DEFAULT_MAX_SAMPLES_PER_PROGRAM))
    .option("--seed <n>", "random seed (same seed and data give identical weights)", String(d.seed))
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--hidden <n>", "hidden units of the MLP", String(d.hidden))
    .option("--activation <name>", "tanh or relu", d.activation)
    .option(
      "--expert-skip",
      "wire the in-context and training n-grams' log-probabilities straight into the event logits (a learned product of experts the network corrects)",
    )
    .option("--epochs <n>", "maximum epochs (early stopping on the validation programs)", String(d.epochs))
    .option("--batch-size <n>", "mini-batch size", String(d.batchSize))
    .option("--learning-rate <x>", "Adam learning rate", String(d.learningRate))
    .option("--l2 <x>", "L2 penalty on weights", String(d.l2))
    .option("--tag-weight <x>", "weight of the tag head's loss", String(d.tagWeight))
    .option("--trajectory-steps <k>", "trajectory objective: next events per sample", String(d.trajectorySteps))
    .option(
      "--trajectory-discount <g>",
      "trajectory objective: weight γ^j of step j, γ in (0, 1]",
      String(d.trajectoryDiscount),
    )
    .option("--no-split-grid", "split abstraction: train on the scored 25/50/75 % states only, not on every 5 %")
    .option(
      "--feasibility <rule>",
      "events the prefix rules out: top (the most probable event is always a possible one), cap (their total at most --infeasible-cap) or none",
      d.feasibility,
    )
    .option(
      "--infeasible-cap <x>",
      "--feasibility cap: at most this probability on impossible events (< 1/6 keeps greedy rollouts valid)",
      String(d.infeasibleCap),
    )
    .option(
      "--calibration-folds <n>",
      "also calibrate on out-of-fold predictions of the training families (n ≥ 2 folds, one extra model each); 0: validation families only",
      String(d.calibrationFolds),
    )
    .option(
      "--calibration-weighting <how>",
      "samples (programs capped at 4× the median) or families (every family equally)",
      d.calibrationWeighting,
    )
    .option(
      "--calibration-mode <mode>",
      "pooled (the ensemble's mean as one model), per-member (each member's temperature before the mean) " +
        "or in-context (a temperature scaled by the run's in-context predictability)",
      d.calibrationMode,
    )
    .option(
      "--members <n>",
      "models averaged (seeds seed, seed+1, …), or auto: as many as fit 15 000 training rows, 1 to 5",
      String(d.members),
    )
    .option(
      "--no-context-expert",
      "do not mix the run's in-context n-gram (ngram-ctx:4's answer) into the calibrated distribution (β = 0)",
    )
    .option(
      "--expert-evidence <prior,switch,max>",
      "the in-context n-gram's share as the run's own earlier events earn it: a fixed-share mixture's prior π, " +
        "switch rate ρ and largest share κ",
      evidenceText(d.expertEvidence),
    )
    .option(
      "--confidence-evidence",
      "also weigh the student at several temperatures by how likely each found the run's earlier events " +
        "(its confidence earned by the run's own evidence)",
    )
    .option(
      "--expert-temperature",
      "with the expert's share earned by evidence, also fit a temperature on the expert before it is mixed in, on validation",
    )
    .option(
      "--no-mixture-temperature",
      "with the expert's share earned by evidence, do not fit a temperature on the mixed distribution on validation",
    )
    .option("--no-expert-evidence", "give the in-context n-gram one fixed share β fitted on validation instead")
    .option("--clip-features", "read every feature clipped into the range its non-zero values had in training")
    .option("--family-balance", "weigh every training family the same in the fit (after the per-program cap)")
    .option("--json", "print the card as JSON")
    .action(async (opts: TrainCliOptions) => {
      const objective = parseChoice("--objective", opts.objective, OBJECTIVES);
      const model = parseChoice("--model", opts.model, MODEL_KINDS);
      const activation = parseChoice("--activation", opts.activation, ACTIVATIONS);
      const abstraction = parseAbstraction(opts.abstraction);
      const numbers = {
        seed: parseIntegerOption("--seed", opts.seed, 0),
        hidden: parsePositiveInteger("--hidden", opts.hidden),
        epochs: parsePositiveInteger("--epochs", opts.epochs),
        batchSize: parsePositiveInteger("--batch-size", opts.batchSize),
        learningRate: parseNumberOption("--learning-rate", opts.learningRate, 0),
        l2: parseNumberOption("--l2", opts.l2, 0),
        tagWeight: parseNumberOption("--tag-weight", opts.tagWeight, 0),
        trajectorySteps: parsePositiveInteger("--trajectory-steps", opts.trajectorySteps),
        trajectoryDiscount: parseNumberOption("--trajectory-discount", opts.trajectoryDiscount, 0, 1),
        infeasibleCap: parseNumberOption("--infeasible-cap", opts.infeasibleCap, 0, 0.99),
        calibrationFolds: parseIntegerOption("--calibration-folds", opts.calibrationFolds, 0),
        members: opts.members === "auto" ? ("auto" as const) : parsePositiveInteger("--members", opts.members),
      };
      if (numbers.calibrationFolds === 1)
        throw new UsageError(
          "--calibration-folds must be 0 (validation families only) or at least 2, got 1",
          "Pass --calibration-folds 0 or e.g. 4.",
        );
      const db = openExistingDatabase(opts.db);
      const progress = progressWriter(process.stderr, { quiet: opts.json === true });
      try {
        const student = await trainFromDatabase(db, {
          objective,
          model,
          activation,
          abstraction,
          tags: opts.tags === true,
          balance: opts.balance === true,
          staticFeatures: opts.staticFeatures === true,
          expertSkip: opts.expertSkip === true,
          contextExpert: opts.contextExpert,
          expertEvidence: opts.expertEvidence === false ? null : parseExpertEvidence(opts.expertEvidence),
          confidenceEvidence: opts.confidenceEvidence === true ? DEFAULT_CONFIDENCE_EVIDENCE : null,
          fitMixtureTemperature: opts.mixtureTemperature !== false,
          fitExpertTemperature: opts.expertTemperature === true,
          clipFeatures: opts.clipFeatures === true,
          familyBalance: opts.familyBalance === true,
          splitGrid: opts.splitGrid,
          feasibility: parseChoice("--feasibility", opts.feasibility, FEASIBILITY_RULES),
          calibrationWeighting: parseChoice("--calibration-weighting", opts.calibrationWeighting, [
            "samples",
            "families",
          ] as const),
          calibrationMode: parseChoice("--calibration-mode", opts.calibrationMode, CALIBRATION_MODES),
          holdout: opts.holdout,
          trainOn: opts.trainOn,
          runs: parseRunSelection(opts.configs),
          maxSamplesPerProgram: parsePositiveInteger("--max-samples-per-program", opts.maxSamplesPerProgram),
          ...numbers,
          out: opts.out,
          onProgress: progress.write,
        });
        progress.done();
        const card = student.card;
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(card)}\n`);
          return;
        }
        const h = card.holdout;
        process.stdout.write(
          `${card.name}: ${card.training.objective}/${card.training.model}${card.training.tags ? "+tags" : ""}${card.training.balance ? "+balance" : ""} ` +
            `on ${card.data.trainSamples} samples of ${card.data.trainPrograms.length} programs; T=${card.training.temperature.toFixed(3)}\n` +
            (h === null
              ? "no holdout programs: nothing scored\n"
              : `holdout (${h.samples} samples): accuracy ${pct(h.accuracy)}, majority ${pct(h.majority)}, ceiling ` +
                `${pct(h.ceiling)}, macro-F1 ${h.macroF1.toFixed(3)}, ECE ${h.ece.toFixed(3)}, ` +
                `recall GoEnd ${pct(h.recall.GoEnd)} GoSched ${pct(h.recall.GoSched)} GoUnblock ${pct(h.recall.GoUnblock)}\n`) +
            (card.data.sampleCap === undefined ? "" : `${cappedLine(card.data.sampleCap)}\n`) +
            `card: ${opts.out}/card.md\n`,
        );
      } finally {
        db.close();
      }
    });
}

function evidenceText(e: ExpertEvidence | null): string {
  return e === null ? "" : `${e.prior},${e.switchRate},${e.maxShare}`;
}

/** "π,ρ,κ" with π in (0, 1), ρ and κ in (0, 1]. */
export function parseExpertEvidence(text: string): ExpertEvidence {
  const parts = text.split(",").map((p) => Number(p.trim()));
  const [prior, switchRate, maxShare] = parts;
  if (
    parts.length !== 3 ||
    !(prior > 0 && prior < 1) ||
    !(switchRate > 0 && switchRate <= 1) ||
    !(maxShare > 0 && maxShare <= 1)
  ) {
    throw new UsageError(
      `--expert-evidence takes three numbers "prior,switch,max" (prior in (0, 1), the others in (0, 1]), got "${text}"`,
      `Pass e.g. --expert-evidence ${evidenceText(DEFAULT_TRAIN_OPTIONS.expertEvidence)}, or --no-expert-evidence for the fixed share.`,
    );
  }
  return { prior, switchRate, maxShare };
}
