// Reads goroutine transitions from `go tool trace -d=parsed`, a debugging dump used only to
// cross-check the decoder. Its text layout changed in Go 1.26; both layouts are parsed.

import type { RecordKind } from "../core/index.js";

/** One goroutine state transition as the dump prints it. */
export interface DumpTransition {
  /** The context goroutine (G=), -1 when none. */
  readonly actor: number;
  /** The subject (GoID=). */
  readonly goroutine: number;
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

// Go 1.26: M=1 P=0 G=1 StateTransition Time=5 GoID=6 NotExist->Runnable Reason=""
const GO126 = /^M=-?\d+ P=-?\d+ G=(-?\d+) StateTransition Time=\d+ GoID=(\d+) (\w+)->(\w+) Reason=("(?:[^"\\]|\\.)*")/;
// Go 1.22–1.25: M=1 P=0 G=1 StateTransition Time=5 Resource=Goroutine(6) Reason="" GoID=6 NotExist->Runnable
const GO122 =
  /^M=-?\d+ P=-?\d+ G=(-?\d+) StateTransition Time=\d+ Resource=Goroutine\(\d+\) Reason=("(?:[^"\\]|\\.)*") GoID=(\d+) (\w+)->(\w+)/;

/** Parses one line of the Go 1.26 layout; null for any other line. */
export function parseGo126DumpLine(line: string): DumpTransition | null {
  const m = GO126.exec(line);
  if (m === null) return null;
  return { actor: Number(m[1]), goroutine: Number(m[2]), from: m[3], to: m[4], reason: JSON.parse(m[5]) as string };
}

/** Parses one line of the Go 1.22–1.25 layout; null for any other line. */
export function parseGo122DumpLine(line: string): DumpTransition | null {
  const m = GO122.exec(line);
  if (m === null) return null;
  return { actor: Number(m[1]), goroutine: Number(m[3]), from: m[4], to: m[5], reason: JSON.parse(m[2]) as string };
}

/** Every goroutine transition in a dump of either layout, in order. */
export function parseParsedDump(text: string): DumpTransition[] {
  const out: DumpTransition[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("M=") || !line.includes(" StateTransition ")) continue;
    const t = line.includes(" Resource=Goroutine(") ? parseGo122DumpLine(line) : parseGo126DumpLine(line);
    if (t !== null) out.push(t);
  }
  return out;
}

/**
 * The record kind of a goroutine transition (docs/events.md, Mapping), or null for a status restated in
 * a later generation (X → X) and for Undetermined → NotExist.
 */
export function recordKindOfTransition(from: string, to: string): RecordKind | null {
  if (from === "Undetermined") return to === "NotExist" ? null : "Initial";
  if (from === to) return null;
  if (from === "NotExist") return "GoCreate";
  if (to === "NotExist") return "GoEnd";
  if (from === "Runnable" && to === "Running") return "GoStart";
  if (from === "Running" && to === "Waiting") return "GoBlock";
  if (from === "Waiting" && to === "Runnable") return "GoUnblock";
  if (from === "Running" && to === "Runnable") return "GoSched";
  if (from === "Running" && to === "Syscall") return "SyscallEnter";
  if (from === "Syscall" && to === "Running") return "SyscallExit";
  if (from === "Syscall" && to === "Runnable") return "SyscallUnblock";
  return null;
}
