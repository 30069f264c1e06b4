// The schedlab command line: a thin layer over the library. Each command lives in its
// own file and registers itself on the program; errors are printed once, here.

import { Command } from "commander";
import { SchedlabError } from "../errors.js";
import { registerCommands } from "./commands.js";
import { SCHEDLAB_VERSION } from "../version.js";

export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command()
    .name("schedlab")
    .description("Model the nondeterminism of the Go scheduler from repeated execution traces.")
    .version(SCHEDLAB_VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof SchedlabError) {
    process.stderr.write(`schedlab: ${error.message}\n  ${error.hint}\n`);
    return error.exitCode;
  }
  // commander signals --help, --version and its own usage errors (unknown option, missing
  // argument; already printed with the help) by throwing. Usage errors exit 2, like UsageError.
  if (typeof error === "object" && error !== null && "code" in error && "exitCode" in error) {
    const code = String((error as { code: unknown }).code);
    if (code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help") return 0;
    return 2;
  }
  process.stderr.write(
    `schedlab: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 70;
}
