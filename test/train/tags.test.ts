// Reasoning-tag targets, exact from the trace: the block reason behind a GoBlock, the reason
// of the wait a GoUnblock ends, "none" for other events.

import { describe, expect, it } from "vitest";
import type { Prefix } from "../../src/dataset/types.js";
import { tagTargetOfPrefix } from "../../src/train/tags.js";
import type { GoroutineRecord, RecordKind } from "../../src/core/index.js";

let seq = 0;
function rec(
  kind: RecordKind,
  goroutine: number,
  actor: number | null,
  reason = "",
  timeNs = seq * 1000,
): GoroutineRecord {
  return { seq: seq++, timeNs, kind, goroutine, actor, reason, site: null };
}

// g1 (root) creates g2 and g3, blocks on a channel; g2 runs and unblocks g1, g3 sleeps, g2 ends.
const records: GoroutineRecord[] = [
  rec("Initial", 1, null, "Running"),
  rec("GoCreate", 2, 1),
  rec("GoCreate", 3, 1),
  rec("GoBlock", 1, 1, "chan receive"),
  rec("GoStart", 2, null),
  rec("GoUnblock", 1, 2),
  rec("GoStart", 3, null),
  rec("GoBlock", 3, 3, "sleep"),
  rec("GoEnd", 2, 2),
  rec("GoStart", 1, null),
];

const prefix = (end: number): Prefix => ({ program: "p", runId: 1, procs: 2, records, end });

describe("tag targets", () => {
  it("derives reasoning tags exactly from the trace", () => {
    expect(tagTargetOfPrefix(prefix(3), "GoBlock")).toBe("chan receive");
    expect(tagTargetOfPrefix(prefix(5), "GoUnblock")).toBe("chan receive"); // g1's wait ends
    expect(tagTargetOfPrefix(prefix(7), "GoBlock")).toBe("sleep");
    expect(tagTargetOfPrefix(prefix(4), "GoStart")).toBe("none");
  });
});
