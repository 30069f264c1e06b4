// The `go tool trace -d=parsed` parsers (both layouts) and the cross-check of the decoder
// against Go's own dump: per record kind, the same number of user-goroutine transitions.

import { execa } from "execa";
import { describe, expect, it } from "vitest";
import {
  parseGo122DumpLine,
  parseGo126DumpLine,
  parseParsedDump,
  recordKindOfTransition,
} from "../../src/trace/parsedDump.js";
import type { RecordKind } from "../../src/core/index.js";
import { decodeAll, fixture } from "./helpers.js";

describe("parsed-dump line parsers", () => {
  it("parses the Go 1.26 layout (copied from a real dump)", () => {
    const line = 'M=8759 P=0 G=1 StateTransition Time=576113799232 GoID=1 Running->Waiting Reason="chan send"';
    expect(parseGo126DumpLine(line)).toEqual({
      actor: 1,
      goroutine: 1,
      from: "Running",
      to: "Waiting",
      reason: "chan send",
    });
    const start = 'M=8759 P=0 G=-1 StateTransition Time=576113800704 GoID=12 Runnable->Running Reason=""';
    expect(parseGo126DumpLine(start)).toEqual({
      actor: -1,
      goroutine: 12,
      from: "Runnable",
      to: "Running",
      reason: "",
    });
    expect(
      parseGo126DumpLine('M=8759 P=-1 G=-1 StateTransition Time=576113684736 ProcID=0 Undetermined->Running Reason=""'),
    ).toBeNull();
  });

  // Go 1.22–1.25 print the resource and reason before the goroutine's states. No ≤1.25
  // toolchain is installed here: these lines were written from that version's
  // Event.String (fmt " Resource=%s Reason=%q" then " GoID=%d %s->%s").
  it("parses the Go 1.22–1.25 layout (hand-written sample)", () => {
    const line =
      'M=7 P=0 G=1 StateTransition Time=1045 Resource=Goroutine(1) Reason="chan receive" GoID=1 Running->Waiting';
    expect(parseGo122DumpLine(line)).toEqual({
      actor: 1,
      goroutine: 1,
      from: "Running",
      to: "Waiting",
      reason: "chan receive",
    });
    const dump = [
      "M=7 P=-1 G=-1 Sync Time=1000 N=1",
      'M=7 P=0 G=-1 StateTransition Time=1001 Resource=Goroutine(1) Reason="" GoID=1 Undetermined->Running',
      'M=7 P=0 G=1 StateTransition Time=1002 Resource=Goroutine(6) Reason="" GoID=6 NotExist->Runnable',
      "TransitionStack=",
      "\tmain.worker @ 0x4a57c0",
      "\t\t/tmp/prog/main.go:11",
      "",
      'M=7 P=0 G=1 StateTransition Time=1003 Resource=Proc(0) Reason="" ProcID=0 Running->Idle',
      'M=7 P=0 G=6 StateTransition Time=1004 Resource=Goroutine(6) Reason="runtime.Gosched" GoID=6 Running->Runnable',
    ].join("\n");
    expect(parseParsedDump(dump).map((t) => recordKindOfTransition(t.from, t.to))).toEqual([
      "Initial",
      "GoCreate",
      "GoSched",
    ]);
  });

  it("maps transitions to record kinds as docs/events.md (Mapping) does", () => {
    expect(recordKindOfTransition("NotExist", "Waiting")).toBe("GoCreate");
    expect(recordKindOfTransition("NotExist", "Syscall")).toBe("GoCreate");
    expect(recordKindOfTransition("Syscall", "NotExist")).toBe("GoEnd");
    expect(recordKindOfTransition("Syscall", "Runnable")).toBe("SyscallUnblock");
    expect(recordKindOfTransition("Waiting", "Waiting")).toBeNull();
  });
});

function countKinds(kinds: Iterable<RecordKind | null>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of kinds) if (k !== null) counts[k] = (counts[k] ?? 0) + 1;
  return counts;
}

describe("cross-check against go tool trace -d=parsed", () => {
  for (const [name, mode] of [
    ["tree", "main"],
    ["harness", "main"],
    ["testpkg", "test"],
    ["generations", "main"],
    ["gcpreempt", "main"],
  ] as const) {
    it(`${name}.trace: same per-kind counts of user-goroutine transitions`, async () => {
      const decoded = await decodeAll(fixture(`${name}.trace`), { mode });
      const users = new Set(decoded.summary.goroutines.map((g) => g.goroutine));
      const { stdout } = await execa("go", ["tool", "trace", "-d=parsed", fixture(`${name}.trace`)], {
        maxBuffer: 1 << 28,
      });
      const transitions = parseParsedDump(stdout);
      expect(transitions.length).toBeGreaterThan(decoded.records.length);
      const fromDump = countKinds(
        transitions.filter((t) => users.has(t.goroutine)).map((t) => recordKindOfTransition(t.from, t.to)),
      );
      expect(countKinds(decoded.records.map((r) => r.kind))).toEqual(fromDump);
      // the Go ≤1.25 parser reads the same dump rewritten into its layout identically
      const old = stdout.replace(
        /^(M=-?\d+ P=-?\d+ G=-?\d+ StateTransition Time=\d+) GoID=(\d+) (\w+->\w+) Reason=("(?:[^"\\]|\\.)*")/gm,
        "$1 Resource=Goroutine($2) Reason=$4 GoID=$2 $3",
      );
      expect(parseParsedDump(old)).toEqual(transitions);
    });
  }
});
