// `schedlab corpus check [DIR] [--json]`: manifests, builds, go-statement sites and class balance.

import type { Command } from "commander";
import { parsePositiveInteger } from "./options.js";
import { checkCorpus, type CorpusCheckReport } from "../corpus/index.js";
import { pct } from "../core/index.js";

interface CorpusCheckFlags {
  readonly json?: boolean;
  readonly build: boolean;
  readonly jobs?: string;
}

export function registerCorpusCheck(corpus: Command): void {
  corpus
    .command("check")
    .description(
      "Validate every program's manifest, check that every program builds and that expected sites are go statements, and report the class balance.",
    )
    .argument("[dir]", "directory of Go programs", "go-programs")
    .option("--json", "print the report as JSON")
    .option("--no-build", "skip compiling; check manifests and sites only")
    .option("-j, --jobs <n>", "parallel per-package builds")
    .action(async (dir: string, flags: CorpusCheckFlags) => {
      const concurrency = flags.jobs === undefined ? undefined : parsePositiveInteger("--jobs", flags.jobs);
      const report = await checkCorpus({ dir, concurrency, skipBuild: !flags.build });
      process.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (report.failures.length > 0) process.exitCode = 1;
    });
}

function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, n]) => `${key} ${n}`)
    .join(", ");
}

/** The human-readable report: totals, balance, then one line per failure. */
export function formatReport(report: CorpusCheckReport): string {
  const lines = [
    `${report.programs} programs in ${report.dir} (main ${report.byKind.main}, test ${report.byKind.test}; unlabelled ${report.unlabelled})`,
    `outcomes: ${formatCounts(report.byOutcome) || "none labelled"}`,
    `shows on: ${formatCounts(report.byShowsOn) || "-"}`,
    `balance: leak or deadlock ${pct(report.balance.leakOrDeadlock)}, clean high-nondeterminism ${pct(report.balance.cleanHighNondeterminism)}`,
  ];
  if (report.unlabelled > 0) lines.push(`unlabelled: ${report.unlabelledPrograms.join(", ")}`);
  if (report.failures.length === 0) lines.push("no problems found");
  else {
    lines.push(`${report.failures.length} problem(s):`);
    for (const f of report.failures) lines.push(`  ${f.program}: ${f.problem}`);
  }
  return `${lines.join("\n")}\n`;
}
