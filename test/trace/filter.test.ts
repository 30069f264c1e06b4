// The user-goroutine filter: which entry functions are dropped, and that the TypeScript
// defaults mirror the Go helper's.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_GOROUTINE_FILTER, isDroppedEntry } from "../../src/trace/filter.js";

describe("isDroppedEntry", () => {
  it("drops runtime, tracer, testing, signal, timer, harness and run agent goroutines", () => {
    for (const entry of [
      "runtime.bgsweep",
      "runtime.gcBgMarkWorker",
      "runtime/trace.(*traceMultiplexer).startLocked.func1",
      "testing.(*M).startAlarm.func1",
      "os/signal.loop",
      "time.goFunc",
      "main.schedlabHarnessWatchdog",
      "main.schedlabHarnessWatchdog.func1",
      "main.schedlabAgentProbe",
      "example.com/m/store_test.schedlabAgentProbe",
      "gopkg.in/yaml%2ev3.schedlabAgentBeforeDeadline",
    ]) {
      expect(isDroppedEntry(entry), entry).toBe(true);
    }
  });

  it("keeps runtime.main and user code", () => {
    for (const entry of [
      "runtime.main",
      "main.main.func1",
      "main.worker",
      "example.com/m/pkg.Serve",
      "net/http.(*conn).serve",
      "main.schedlabish",
      "example.com/schedlabAgent/pkg.Serve",
      "example.com/m/pkg.(*T).schedlabAgentX",
    ]) {
      expect(isDroppedEntry(entry), entry).toBe(false);
    }
  });

  it("reads a `*.` pattern as a function name in any package", () => {
    const filter = { drop: ["*.probe*", "*.exact"], keep: [] };
    expect(isDroppedEntry("main.probeOnce", filter)).toBe(true);
    expect(isDroppedEntry("example.com/m/p.probe", filter)).toBe(true);
    expect(isDroppedEntry("example.com/m/p.exact", filter)).toBe(true);
    expect(isDroppedEntry("example.com/m/p.exacts", filter)).toBe(false);
    expect(isDroppedEntry("probe.main", filter)).toBe(false);
    expect(isDroppedEntry("example.com/probe.run", filter)).toBe(false);
    expect(isDroppedEntry("noPackage", filter)).toBe(false);
  });

  it("mirrors the Go helper's default lists", () => {
    const go = readFileSync(fileURLToPath(new URL("../../src/gohelper/decode/filter.go", import.meta.url)), "utf8");
    const list = (name: string) => {
      const body = new RegExp(`var ${name} = \\[\\]string\\{([^}]*)\\}`).exec(go)?.[1] ?? "";
      return [...body.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    };
    expect(list("defaultDrop")).toEqual(DEFAULT_GOROUTINE_FILTER.drop);
    expect(list("defaultKeep")).toEqual(DEFAULT_GOROUTINE_FILTER.keep);
  });
});
