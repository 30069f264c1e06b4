// Setup of the unit project (vitest.config.ts): starting a child process fails the test, so
// a test that needs one is named *.e2e.test.ts and runs with the end-to-end tests.

import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

const STARTERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

for (const name of STARTERS) {
  (childProcess as Record<(typeof STARTERS)[number], unknown>)[name] = (command: unknown) => {
    throw new Error(`a unit test started a process (${name} ${String(command)}): name the test file *.e2e.test.ts`);
  };
}
syncBuiltinESMExports();
