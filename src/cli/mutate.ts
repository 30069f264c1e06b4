// `schedlab mutate`: write semantics-preserving variants of one Go program (renamed
// identifiers, reordered declarations, dead code), each checked to build.

import type { Command } from "commander";
import { parseIntegerOption } from "./options.js";
import { UsageError } from "../errors.js";
import { MUTATION_KINDS, mutateProgram, type MutationKind } from "../fidelity/index.js";

interface MutateFlags {
  readonly kind: string[];
  readonly seed: string;
  readonly out: string;
  readonly json?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, ...value.split(",")];

function parseKinds(values: readonly string[]): MutationKind[] {
  const kinds = values.length === 0 || values.includes("all") ? [...MUTATION_KINDS] : values;
  for (const k of kinds) {
    if (!(MUTATION_KINDS as readonly string[]).includes(k))
      throw new UsageError(
        `unknown --kind ${JSON.stringify(k)}`,
        `Use one or more of ${MUTATION_KINDS.join(", ")} or all.`,
      );
  }
  return [...new Set(kinds)] as MutationKind[];
}

export function registerMutate(program: Command): void {
  program
    .command("mutate <program>")
    .description(
      "Write semantics-preserving variants of a Go program: consistent identifier renaming (go/types " +
        "scoping), reordering of independent top-level declarations, dead code, and an unchanged copy as the " +
        "control. Each variant is built before it is kept and its schedlab.json sites are moved to the new " +
        "lines. Collect the --out directory like any corpus.",
    )
    .option(
      "--kind <kinds>",
      `rewrite kinds, repeatable or comma-separated: ${MUTATION_KINDS.join(", ")}, all (default all)`,
      collect,
      [],
    )
    .option("--seed <n>", "seed of the rewrite's choices (names, order, insertion points)", "1")
    .requiredOption("--out <dir>", "directory receiving one subdirectory per variant, named <program>__<kind>-s<seed>")
    .option("--json", "machine-readable output")
    .action(async (programDir: string, flags: MutateFlags) => {
      const seed = parseIntegerOption("--seed", flags.seed, 0);
      const { variants, failures } = await mutateProgram(programDir, {
        kinds: parseKinds(flags.kind),
        seed,
        outDir: flags.out,
      });
      if (flags.json === true) {
        process.stdout.write(`${JSON.stringify({ variants, failures })}\n`);
      } else {
        for (const v of variants) {
          const what =
            v.kind === "rename"
              ? `${Object.keys(v.renamed).length} package-level and ${v.renamedLocals} local names renamed`
              : v.kind === "reorder"
                ? `${v.movedDecls} declarations moved`
                : v.kind === "deadcode"
                  ? `${v.deadBlocks} dead blocks and helpers inserted`
                  : "unchanged copy (control: its flips are schedule noise)";
          const moved = Object.entries(v.sites).filter(([a, b]) => a !== b).length;
          process.stdout.write(
            `${v.dir}: ${what}; ${Object.keys(v.sites).length} go statements, ${moved} on new lines; builds\n`,
          );
        }
        if (variants.length > 0) process.stdout.write(`collect them with: schedlab collect ${flags.out}\n`);
      }
      for (const f of failures) process.stderr.write(`schedlab: ${f.kind}: ${f.message}\n  ${f.hint}\n`);
      if (failures.length > 0) process.exitCode = 1;
    });
}
