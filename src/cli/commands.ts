// The list of commands. Add one line per command file.

import type { Command } from "commander";

export function registerCommands(program: Command): void {
  // @commands
}
