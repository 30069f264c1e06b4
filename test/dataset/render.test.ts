import { describe, expect, it } from "vitest";
import { approximateTokens, NEXT_EVENT_QUESTION, renderPrefix, shortSite } from "../../src/dataset/render.js";
import type { Prefix } from "../../src/dataset/types.js";
import { records } from "./records.js";

const stream = records([
  ["Initial", 7, "Running"],
  ["GoCreate", 9],
  ["GoStart", 9],
  ["GoBlock", 9, "chan receive", "main.worker /home/u/prog/main.go:12"],
  ["GoSched", 7, "runtime.Gosched"],
  ["GoStart", 7],
  ["GoUnblock", 9],
]);

function prefixAt(end: number): Prefix {
  return {
    program: "patterns/pingpong",
    runId: 1,
    procs: 2,
    records: stream,
    end,
    goroutines: [
      { goroutine: 7, canonicalId: "main.main", parent: null, entry: "main.main", creationSite: null, isRoot: true },
      {
        goroutine: 9,
        canonicalId: "main.main/main.worker@main.go:30#0",
        parent: 7,
        entry: "main.worker",
        creationSite: "main.main main.go:30",
        isRoot: false,
      },
    ],
  };
}

describe("renderPrefix", () => {
  it("renders states and recent events with short goroutine ids, ending with the question", () => {
    const text = renderPrefix(prefixAt(4));
    expect(text).toBe(
      [
        "program patterns/pingpong, GOMAXPROCS=2, 3 events so far",
        "goroutines: running=1 runnable=0 waiting=1 (chan receive=1) syscall=0 created=1 ended=0",
        "live goroutines:",
        "g1 main.main: running",
        "g2 main.worker: waiting (chan receive)",
        "recent events (oldest first):",
        "GoCreate g2",
        "GoStart g2",
        'GoBlock g2 "chan receive" at main.worker main.go:12',
        NEXT_EVENT_QUESTION,
      ].join("\n"),
    );
  });

  it("is deterministic and stays within the token budget, keeping the newest events", () => {
    const full = renderPrefix(prefixAt(7), { maxTokens: 1000 });
    expect(renderPrefix(prefixAt(7), { maxTokens: 1000 })).toBe(full);
    const small = renderPrefix(prefixAt(7), { maxTokens: 95 });
    expect(approximateTokens(small)).toBeLessThanOrEqual(95);
    expect(small.endsWith(NEXT_EVENT_QUESTION)).toBe(true);
    expect(small).toContain("GoUnblock g2 by runtime");
    expect(small).not.toContain("GoCreate g2");
    expect(full).toContain("GoCreate g2");
  });

  it("never exceeds a tiny budget", () => {
    for (const maxTokens of [1, 5, 20, 40, 60]) {
      expect(renderPrefix(prefixAt(7), { maxTokens }).length).toBeLessThanOrEqual(maxTokens * 4);
    }
  });

  it("strips directories from sites", () => {
    expect(shortSite("main.worker /a/b/c/main.go:12")).toBe("main.worker main.go:12");
    expect(shortSite("main.main main.go:3")).toBe("main.main main.go:3");
  });
});
