import { defineConfig } from "vitest/config";

// Tests run real Go builds and processes; a 2-core machine needs generous per-test time
// and files run one at a time per core so Go builds do not starve each other.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
