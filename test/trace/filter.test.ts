// The user-goroutine filter: which entry functions are dropped, and that the TypeScript
// defaults mirror the Go helper's.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_GOROUTINE_FILTER, isDroppedEntry } from "../../src/trace/filter.js";

describe("isDroppedEntry", () => {
  it("drops runtime, tracer, testing, signal, timer and harness goroutines", () => {
    for (const entry of [
      "runtime.bgsweep",
      "runtime.gcBgMarkWorker",
      "runtime/trace.(*traceMultiplexer).startLocked.func1",
      "testing.(*M).startAlarm.func1",
      "os/signal.loop",
      "time.goFunc",
      "main.schedlabHarnessWatchdog",
      "main.schedlabHarnessWatchdog.func1",
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
    ]) {
      expect(isDroppedEntry(entry), entry).toBe(false);
    }
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
