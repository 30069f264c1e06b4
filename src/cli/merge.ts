// `schedlab merge OUT.db IN.db...`: joins the databases of collect --shard runs.

import type { Command } from "commander";
import { mergeDatabases, type MergeSummary } from "../store/index.js";

function humanSummary(summary: MergeSummary): string {
  const lines = summary.inputs.map((input) => {
    const rows = Object.entries(input.rows)
      .filter(([, n]) => n > 0)
      .map(([table, n]) => `${table} ${n}`)
      .join(", ");
    return (
      `${input.path}: ${input.programsAdded} program(s) and ${input.runsAdded} run(s) added, ` +
      `${input.programsKnown} and ${input.runsKnown} already there${rows === "" ? "" : `; rows: ${rows}`}`
    );
  });
  if (summary.notCopied.length > 0) lines.push(`not copied: ${summary.notCopied.join(", ")}`);
  lines.push(
    `merged into ${summary.out}; run \`schedlab leaks --db ${summary.out}\` (and the dataset stages) on the merged database.`,
  );
  return `${lines.join("\n")}\n`;
}

export function registerMerge(program: Command): void {
  program
    .command("merge")
    .description(
      "Merge databases of sharded collects (collect --shard I/N) into one; merging the same input twice changes nothing.",
    )
    .argument("<out>", "the merged database (created if it does not exist)")
    .argument("<in...>", "databases to merge in, of the same schema version")
    .option("--json", "print the merge summary as JSON")
    .action((out: string, inputs: string[], flags: { json?: boolean }) => {
      const summary = mergeDatabases(out, inputs);
      process.stdout.write(flags.json === true ? `${JSON.stringify(summary)}\n` : humanSummary(summary));
    });
}
