// `schedlab doctor`: checks the toolchain and prints each problem with its fix.

import type { Command } from "commander";
import { diagnose } from "../collect/index.js";

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description(
      "Check Node, the Go toolchain, GOROOT, the Go helper build and `go tool trace`; print a fix for each problem.",
    )
    .option("--json", "print the checks as JSON")
    .action(async (flags: { json?: boolean }) => {
      const diagnosis = await diagnose();
      if (flags.json === true) {
        process.stdout.write(`${JSON.stringify(diagnosis)}\n`);
      } else {
        for (const c of diagnosis.checks) {
          process.stdout.write(`${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail.split("\n")[0]}\n`);
          if (c.fix !== undefined) process.stdout.write(`     fix: ${c.fix}\n`);
        }
        process.stdout.write(
          diagnosis.ok ? "Everything schedlab needs is in place.\n" : "Some checks failed; see the fixes above.\n",
        );
      }
      if (!diagnosis.ok) process.exitCode = 1;
    });
}
