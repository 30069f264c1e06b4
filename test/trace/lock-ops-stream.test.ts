// The helper-stream parser's stack field and lock-op lines: the delivery order promised
// beside record batches, stacks on GoBlock only, stack frames renamed one by one, and
// record lines of a helper from before the stack field.

import { describe, expect, it } from "vitest";
import { relativePackagePaths } from "../../src/trace/package-path.js";
import { DecodeStreamParser } from "../../src/trace/stream.js";
import type { GoroutineRecord, LockOp } from "../../src/core/index.js";

const STREAM = [
  "S\t1\tRunning",
  "9\t100\t1\t-1\t1\t0\t0",
  "S\t2\tmain.main main.go:9",
  "S\t3\t;main.main main.go:9",
  "L\twant\tw\tc000012345\t120\t1\t2\t3",
  "L\tgot\tw\tc000012345\t130\t1\t2\t3",
  "0\t250\t7\t1\t0\t2\t0",
  "S\t4\tchan receive",
  "S\t5\t_/r/kernels/pool.(*Pool).get pool.go:10",
  "S\t6\truntime.chanrecv1;_/r/kernels/pool.(*Pool).get pool.go:10;main.main main.go:12",
  "2\t300\t7\t7\t4\t5\t6",
  "2\t310\t1\t1\t4\t2\t0",
  "L\tdrop\tr\t0xc0000a\t320\t7\t0\t0",
  "3\t400\t7\t-1\t0\t0\t0",
  "L\tdrop\tw\tc000012345\t500\t1\t2\t3",
  "Z\tok\t1\t5\t",
  "",
].join("\n");

type Delivery = { readonly records: readonly GoroutineRecord[] } | { readonly ops: readonly LockOp[] };

function parse(
  batchSize: number,
  chunk: number,
  withOps = true,
): { deliveries: Delivery[]; parser: DecodeStreamParser } {
  const deliveries: Delivery[] = [];
  const parser = new DecodeStreamParser(
    (records) => deliveries.push({ records }),
    batchSize,
    (text) => relativePackagePaths(text, "/r/kernels"),
    withOps ? (ops) => deliveries.push({ ops }) : undefined,
  );
  for (let i = 0; i < STREAM.length; i += chunk) parser.push(STREAM.slice(i, i + chunk));
  parser.finish();
  return { deliveries, parser };
}

describe("DecodeStreamParser with lock ops", () => {
  it("delivers every op after the records before it and before the batch holding record op.seq", () => {
    for (const batchSize of [1, 2, 3, 4096]) {
      for (const chunk of [1, 5, STREAM.length]) {
        const { deliveries } = parse(batchSize, chunk);
        let delivered = 0; // records handed out so far
        for (const d of deliveries) {
          if ("records" in d) {
            expect(d.records[0].seq).toBe(delivered);
            delivered += d.records.length;
          } else {
            for (const op of d.ops) expect(op.seq).toBe(delivered);
          }
        }
        expect(delivered).toBe(5);
        expect(
          deliveries.flatMap((d) =>
            "ops" in d ? d.ops.map((op) => `${op.seq} ${op.phase} ${op.mode} ${op.lock}`) : [],
          ),
        ).toEqual(["1 want w c000012345", "1 got w c000012345", "4 drop r 0xc0000a", "5 drop w c000012345"]);
      }
    }
  });

  it("reads an op's time, goroutine, site and stack, null when the helper gave none", () => {
    const ops = parse(4096, STREAM.length).deliveries.flatMap((d) => ("ops" in d ? d.ops : []));
    expect(ops[0]).toEqual({
      seq: 1,
      timeNs: 120,
      goroutine: 1,
      phase: "want",
      mode: "w",
      lock: "c000012345",
      site: "main.main main.go:9",
      stack: ";main.main main.go:9",
    });
    expect(ops[2]).toMatchObject({ goroutine: 7, site: null, stack: null });
  });

  it("gives GoBlock records their stack (null for id 0), renamed frame by frame, and other kinds none", () => {
    const records = parse(4096, 7).deliveries.flatMap((d) => ("records" in d ? d.records : []));
    expect(records.map((r) => [r.kind, r.stack])).toEqual([
      ["Initial", undefined],
      ["GoCreate", undefined],
      ["GoBlock", "runtime.chanrecv1;pool.(*Pool).get pool.go:10;main.main main.go:12"],
      ["GoBlock", null],
      ["GoUnblock", undefined],
    ]);
    expect(records[2].site).toBe("pool.(*Pool).get pool.go:10");
  });

  it("without onLockOps drops the ops and hands out full batches", () => {
    const { deliveries } = parse(4096, 3, false);
    expect(deliveries.map((d) => ("records" in d ? d.records.length : -1))).toEqual([5]);
  });

  it("reads a record line without the stack field (an older helper) with no stack at all", () => {
    const records: GoroutineRecord[] = [];
    const parser = new DecodeStreamParser((batch) => records.push(...batch));
    parser.push("S\t1\tsync\nS\t2\tmain.f main.go:3\n2\t10\t4\t4\t1\t2\n");
    parser.finish();
    expect(records).toHaveLength(1);
    expect(records[0].stack).toBeUndefined();
  });
});
