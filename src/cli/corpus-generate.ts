// `schedlab corpus generate`: synthesise labelled programs from templates, or verify
// that a generated directory still reproduces from its SEEDS.json.

import type { Command } from "commander";
import { parseIntegerOption } from "./options.js";
import { generateCorpus, TEMPLATE_NAMES, verifyGenerated } from "../corpus/index.js";

interface CorpusGenerateFlags {
  readonly seed: string;
  readonly count: string;
  readonly out: string;
  readonly template?: string;
  readonly verify?: boolean;
  readonly json?: boolean;
}

export function registerCorpusGenerate(corpus: Command): void {
  corpus
    .command("generate")
    .description(
      "Synthesise labelled programs (main packages and test-form packages) from parameterised templates; the same seed reproduces the same bytes.",
    )
    .option("--seed <n>", "seed of the first program; program i uses seed + i", "1")
    .option("--count <n>", "number of programs", "12")
    .option(
      "--out <dir>",
      "output directory (created if missing; gets one directory per program and SEEDS.json)",
      "generated",
    )
    .option(
      "--template <names>",
      `comma-separated templates to cycle through (default: all of ${TEMPLATE_NAMES.join(", ")})`,
    )
    .option("--verify", "instead of writing, check that --out reproduces byte for byte from its SEEDS.json")
    .option("--json", "print the result as JSON")
    .action((flags: CorpusGenerateFlags) => {
      if (flags.verify === true) {
        const drift = verifyGenerated(flags.out);
        process.stdout.write(
          flags.json === true
            ? `${JSON.stringify({ dir: flags.out, reproduces: drift.length === 0, drift }, null, 2)}\n`
            : drift.length === 0
              ? `${flags.out} reproduces byte for byte from its SEEDS.json\n`
              : `${drift.map((d) => `${d.problem}: ${d.file}`).join("\n")}\n${drift.length} file(s) do not match what SEEDS.json regenerates\n`,
        );
        if (drift.length > 0) process.exitCode = 1;
        return;
      }
      const templates = flags.template
        ?.split(",")
        .map((t) => t.trim())
        .filter((t) => t !== "");
      const result = generateCorpus({
        seed: parseIntegerOption("--seed", flags.seed, 0),
        count: parseIntegerOption("--count", flags.count, 1),
        outDir: flags.out,
        templates,
      });
      const leaks = result.programs.filter((p) => p.manifest.outcome === "leak").length;
      const deadlocks = result.programs.filter((p) => p.manifest.outcome === "deadlock").length;
      if (flags.json === true) {
        process.stdout.write(
          `${JSON.stringify({ outDir: result.outDir, ...result.seeds, stale: result.stale }, null, 2)}\n`,
        );
        return;
      }
      if (result.stale.length > 0) {
        process.stderr.write(
          `note: ${result.stale.length} older generated program(s) in ${result.outDir} are not in the new ` +
            `SEEDS.json (${result.stale.slice(0, 5).join(", ")}${result.stale.length > 5 ? ", …" : ""}); delete ` +
            `them if they should not stay in the corpus\n`,
        );
      }
      process.stdout.write(
        `wrote ${result.programs.length} programs to ${result.outDir} (${leaks} with an injected leak, ` +
          `${deadlocks} with an injected deadlock, ${result.programs.length - leaks - deadlocks} clean)\n` +
          `regenerate with: schedlab corpus generate --seed ${result.seeds.seed} --count ${result.seeds.count} --out ${result.outDir}` +
          `${templates ? ` --template ${result.seeds.templates.join(",")}` : ""}\n`,
      );
    });
}
