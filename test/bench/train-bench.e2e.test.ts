// bench/train.mjs at toy size: the benchmark imports the built package (dist/, which `npm install`
// builds), so an API it calls that moved or was deleted shows here rather than the next time
// somebody measures. It checks that every line the bench promises is printed, not the timings.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("bench/train.mjs", () => {
  it("trains and predicts at toy size, printing the reference, every recipe and the target line", () => {
    const out = execFileSync(process.execPath, ["bench/train.mjs"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, BENCH_SAMPLES: "3000", BENCH_EPOCHS: "1", BENCH_DEFAULT_EPOCHS: "1" },
    });
    expect(out).toMatch(/^reference: feature extraction of 3000 prefixes/m);
    expect(out).toMatch(
      /^train default student kl\/mlp, 1 epochs, .* per 100k samples \(target ≤ 10 s: (met|NOT met)\)$/m,
    );
    expect(out).toMatch(/^train kl\/mlp --no-expert-evidence, /m);
    expect(out).toMatch(/^train kl\/mlp --no-context-expert, /m);
    expect(out).toMatch(/^train ce\/logreg, /m);
    expect(out).toMatch(
      /^predict \(default student, features included\): \d+ states in .*× the same network with the fixed share/m,
    );
  }, 60_000);
});
