// Go 1.22–1.25 traces: real traces from golang.org/x/exp/trace's own test data (in the
// module cache once the helper is built), converted to binary by go122conv, decoded,
// and cross-checked against `go tool trace -d=parsed`.

import { execa } from "execa";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GOHELPER_SOURCE_DIR, goHelperPath } from "../../src/gohelper/index.js";
import { parseParsedDump, recordKindOfTransition } from "../../src/trace/parsedDump.js";
import { decodeAll, fixture } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-older-traces-"));
let testdata = "";
const converter = join(dir, "go122conv");

beforeAll(async () => {
  await goHelperPath(); // downloads the pinned x/exp into the module cache if needed
  const { stdout } = await execa("go", ["list", "-m", "-f", "{{.Dir}}", "golang.org/x/exp"], {
    cwd: GOHELPER_SOURCE_DIR,
  });
  testdata = join(stdout.trim(), "trace", "testdata", "tests");
  await execa("go", ["build", "-o", converter, "."], { cwd: fixture("go122conv") });
});

async function convert(name: string): Promise<string> {
  const { stdout } = await execa(converter, [join(testdata, `${name}.test`)], { encoding: "buffer" });
  const path = join(dir, `${name}.trace`);
  writeFileSync(path, stdout);
  return path;
}

function counts(kinds: readonly (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of kinds) if (k !== null) out[k] = (out[k] ?? 0) + 1;
  return out;
}

describe("traces of Go 1.22–1.25", () => {
  it("decodes a Go 1.22 program trace with canonical ids", async () => {
    const path = await convert("go122-annotations");
    const d = await decodeAll(path, { mode: "main" });
    expect(d.summary.status).toBe("ok");
    expect(d.summary.goroutines.map((g) => g.canonicalId)).toEqual([
      "main.main",
      "main.main/main.main.func1@annotations.go:37#0",
    ]);
  });

  for (const name of ["go122-annotations", "go122-gc-stress", "go123-sync", "go125-sync"]) {
    it(`${name}: same per-kind counts of user-goroutine transitions as go tool trace -d=parsed`, async () => {
      const path = await convert(name);
      const d = await decodeAll(path, { mode: "main" });
      expect(d.summary.status).toBe("ok");
      const users = new Set(d.summary.goroutines.map((g) => g.goroutine));
      const { stdout } = await execa("go", ["tool", "trace", "-d=parsed", path], { maxBuffer: 1 << 28 });
      const dump = parseParsedDump(stdout).filter((t) => users.has(t.goroutine));
      expect(counts(d.records.map((r) => r.kind))).toEqual(
        counts(dump.map((t) => recordKindOfTransition(t.from, t.to))),
      );
    });
  }

  it("gc-stress (a trace starting mid-program) names pre-trace goroutines by their entry", async () => {
    const d = await decodeAll(await convert("go122-gc-stress"), { mode: "main" });
    const ids = d.summary.goroutines.map((g) => g.canonicalId);
    expect(ids.length).toBeGreaterThan(10);
    expect(ids.every((id) => id.startsWith("(pre-trace)/") || id === "main.main" || id.startsWith("main.main/"))).toBe(
      true,
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});
