// The goleak peer on packages outside any Go module (a loose directory of kernels): the
// build gets a temporary go.mod and go.sum through the overlay, named with the import path
// GOPATH mode gives the package, and the user's tree stays untouched.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect } from "../../src/collect/index.js";
import { moduleRoot } from "../../src/go/index.js";
import { PROGRAMS, scratch } from "./helpers.js";

describe("collect --peers goleak without a go.mod", () => {
  it("runs goleak in a main program and a test package that are in no module", async () => {
    const paths = [join(PROGRAMS, "leak-select"), join(PROGRAMS, "test-leak")];
    for (const path of paths) expect(moduleRoot(path)).toBeNull();
    const dir = scratch("peers-nomod");
    const result = await collect({
      paths,
      runs: 1,
      procs: [2],
      timeoutMs: 5_000,
      peers: ["goleak"],
      db: join(dir, "s.db"),
      traces: join(dir, "traces"),
    });
    for (const program of result.programs) {
      expect(program.build, program.name).toBe("ok");
      expect(program.buildOutput ?? "").not.toContain("goleak:");
      const report = readFileSync(`${program.runs[0]!.trace!}.goleak.txt`, "utf8");
      expect(report).toContain("found unexpected goroutines");
      // Function names are the ones a GOPATH-mode build gives, so identities match plain runs.
      expect(report).toContain(
        program.kind === "main" ? "main.waiter" : `_${join(PROGRAMS, "test-leak")}.TestLeaksReceiver.func1`,
      );
    }
    for (const path of paths) {
      expect(existsSync(join(path, "go.mod"))).toBe(false);
      expect(readdirSync(path).filter((f) => f.startsWith("zz_") || f === "go.sum")).toEqual([]);
    }
  });
});
