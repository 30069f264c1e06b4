import { defineConfig } from "vitest/config";

// Two projects, told apart by file name so the rule is visible in the tree:
//   e2e  — test/**/*.e2e.test.ts: the test builds Go code (the Go helper included), runs real
//          processes or a browser, or takes more than 2 s (`npm run test:e2e`);
//   unit — every other test/**/*.test.ts: in-process and fast (`npm run test:unit`, under a
//          minute on two cores). A unit test that starts a process fails (test/helpers/no-processes.ts).
// Files run one at a time per core so Go builds do not starve each other; a 2-core machine
// under load needs generous per-test time for the end-to-end tests.
export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // One module graph per worker instead of one per file: importing the stages once
          // instead of once per test file is what keeps this project under a minute
          // (docs/experiments/tests.md). A unit test therefore restores any global it changes
          // (timers, env, stdout).
          isolate: false,
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.e2e.test.ts"],
          setupFiles: ["test/helpers/no-processes.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.e2e.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
