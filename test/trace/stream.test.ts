// The helper-stream parser: lines split across chunks, batching, interned strings, errors.

import { describe, expect, it } from "vitest";
import { TraceDecodeError } from "../../src/trace/errors.js";
import { DecodeStreamParser } from "../../src/trace/stream.js";
import type { GoroutineRecord } from "../../src/core/index.js";

const STREAM = [
  "S\t1\tRunning",
  "9\t100\t1\t-1\t1\t0",
  "S\t2\tmain.main main.go:9",
  "0\t250\t7\t1\t0\t2",
  "S\t3\tchan receive",
  "S\t4\tmain.main.func1 main.go:10",
  "2\t1234567890123\t7\t7\t3\t4",
  "3\t1234567890200\t7\t-1\t0\t0",
  "G\t1\t-1\t1\t1\t0\tmain.main\t\t\t",
  "G\t7\t1\t0\t0\t0\tmain.main.func1\t\tmain.main main.go:9\tmain.go:9",
  "Z\tok\t1\t4\t",
  "",
].join("\n");

describe("DecodeStreamParser", () => {
  it("parses records, strings and goroutines whatever the chunk boundaries", () => {
    for (const size of [1, 7, 64, STREAM.length]) {
      const batches: GoroutineRecord[][] = [];
      const parser = new DecodeStreamParser((b) => batches.push(b), 3);
      for (let i = 0; i < STREAM.length; i += size) parser.push(STREAM.slice(i, i + size));
      parser.finish();
      expect(batches.map((b) => b.length)).toEqual([3, 1]);
      expect(batches.flat()).toEqual([
        { seq: 0, timeNs: 100, kind: "Initial", goroutine: 1, actor: null, reason: "Running", site: null },
        { seq: 1, timeNs: 250, kind: "GoCreate", goroutine: 7, actor: 1, reason: "", site: "main.main main.go:9" },
        {
          seq: 2,
          timeNs: 1234567890123,
          kind: "GoBlock",
          goroutine: 7,
          actor: 7,
          reason: "chan receive",
          site: "main.main.func1 main.go:10",
        },
        { seq: 3, timeNs: 1234567890200, kind: "GoUnblock", goroutine: 7, actor: null, reason: "", site: null },
      ]);
      expect(parser.goroutines[1]).toEqual({
        goroutine: 7,
        parent: 1,
        root: "none",
        preTrace: false,
        ordinal: 0,
        entry: "main.main.func1",
        runs: null,
        creationSite: "main.main main.go:9",
        siteKey: "main.go:9",
      });
      expect(parser.end).toEqual({ status: "ok", generations: 1, recordCount: 4, message: "" });
    }
  });

  it("rejects a line it does not know with TraceDecodeError", () => {
    const parser = new DecodeStreamParser(() => undefined);
    expect(() => parser.push("Q\tsomething\n")).toThrow(TraceDecodeError);
  });
});
