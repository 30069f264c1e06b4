// Data race reports of -race builds ("WARNING: DATA RACE" blocks between "=====" lines)
// parsed from any text that holds them — a stderr tail, a GORACE log_path file — and
// pooled over a program's runs into findings. Pure: text in, reports and findings out.

import { basename } from "node:path";
import { raceReports } from "../collect/index.js";

/** One frame of a race report stack: "main.record()" over "/abs/main.go:14 +0x74". */
export interface RaceFrame {
  readonly function: string;
  readonly file: string;
  readonly line: number;
}

/** One of the two accesses of a race. */
export interface RaceAccess {
  /** "read" or "write", with "atomic " in front for an atomic access. */
  readonly access: string;
  /** The report's own goroutine name for the accessor: "goroutine 8", "main goroutine". */
  readonly goroutine: string;
  readonly stack: readonly RaceFrame[];
  /** Where that goroutine was created (its report section), when the report says. */
  readonly createdAt: readonly RaceFrame[];
}

/** One "WARNING: DATA RACE" report: the current access and the previous one it races with. */
export interface RaceReport {
  readonly current: RaceAccess;
  readonly previous: RaceAccess;
}

const ACCESS =
  /^(Read|Write|Atomic read|Atomic write|Previous read|Previous write|Previous atomic read|Previous atomic write)(?: at 0x[0-9a-f]+)? by (goroutine \d+|main goroutine):$/;
const CREATED = /^Goroutine (\d+) \([^)]*\) created at:$/;
const FUNCTION_LINE = /^ {2}(\S.*?)\([^()]*\)$/;
const FILE_LINE = /^\s+(\S+):(\d+)(?: \+0x[0-9a-f]+)?$/;

/** The frames of a stack section: "  function(args)" / "      file:line +0xoff" pairs. */
function frames(lines: readonly string[]): RaceFrame[] {
  const out: RaceFrame[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const fn = FUNCTION_LINE.exec(lines[i]);
    const at = fn === null ? null : FILE_LINE.exec(lines[i + 1]);
    if (fn === null || at === null) continue;
    out.push({ function: fn[1], file: at[1], line: Number(at[2]) });
    i++;
  }
  return out;
}

/**
 * Every complete race report in `text`, in order. A report cut off by a capped stderr
 * tail (its WARNING line or its two access sections missing) is skipped, never guessed.
 */
export function parseRaceReports(text: string): RaceReport[] {
  const reports: RaceReport[] = [];
  // collect's splitter finds the blocks (it counts and keeps them); this parses each one.
  for (const block of raceReports(text)) {
    const lines = block.split("\n");
    // Sections are separated by blank lines; each starts with its header line.
    const sections: { header: string; body: string[] }[] = [];
    for (const line of lines) {
      if (line.trim() === "" || line.trim() === "WARNING: DATA RACE") continue;
      if (!line.startsWith(" ")) sections.push({ header: line.trim(), body: [] });
      else sections.at(-1)?.body.push(line);
    }
    const accesses = sections.flatMap((s) => {
      const m = ACCESS.exec(s.header);
      return m === null ? [] : [{ kind: m[1].toLowerCase(), goroutine: m[2], stack: frames(s.body) }];
    });
    const created = new Map<string, RaceFrame[]>();
    for (const s of sections) {
      const m = CREATED.exec(s.header);
      if (m !== null) created.set(`goroutine ${m[1]}`, frames(s.body));
    }
    const current = accesses.find((a) => !a.kind.startsWith("previous"));
    const previous = accesses.find((a) => a.kind.startsWith("previous"));
    if (current === undefined || previous === undefined) continue;
    const access = (a: typeof current): RaceAccess => ({
      access: a.kind.replace(/^previous /, ""),
      goroutine: a.goroutine,
      stack: a.stack,
      createdAt: created.get(a.goroutine) ?? [],
    });
    reports.push({ current: access(current), previous: access(previous) });
  }
  return reports;
}

/**
 * Whether a frame is Go's own code: its package path (up to the first "." after the last
 * "/") has no dot in its first element, is not main or a package outside a module
 * ("_/…"), and its file lies under ".../src/<that path>/" (a GOROOT).
 */
export function isStandardFrame(frame: RaceFrame): boolean {
  const fn = frame.function;
  const slash = fn.lastIndexOf("/");
  const dot = fn.indexOf(".", slash + 1);
  const pkg = dot < 0 ? fn : fn.slice(0, dot);
  const first = pkg.split("/")[0];
  if (pkg === "main" || first.startsWith("_") || first.includes(".")) return false;
  return frame.file.includes(`/src/${pkg}/`);
}

/** How a frame is shown in findings: "function file.go:LINE", the function renamed by `rename` (relative package paths). */
export function frameSite(frame: RaceFrame, rename: (fn: string) => string = (fn) => fn): string {
  return `${rename(frame.function)} ${basename(frame.file)}:${frame.line}`;
}

/** The top user frame of a stack (the top frame when all are the standard library's), or null for an empty stack. */
export function topUserFrame(stack: readonly RaceFrame[]): RaceFrame | null {
  return stack.find((f) => !isStandardFrame(f)) ?? stack[0] ?? null;
}

/** A data race seen in a program's -race runs, by the two accesses' top user frames. */
export interface RaceFinding {
  readonly program: string;
  /** The two accesses' top user frames, "function file.go:LINE", in sorted order (the same race whichever ran first). */
  readonly frames: readonly [string, string];
  /** The access at each frame ("read", "write", "atomic write"), from the first report. */
  readonly accesses: readonly [string, string];
  /** Where each accessing goroutine was created (top user frame), when the report says. */
  readonly createdAt: readonly [string | null, string | null];
  /** Runs that reported this race at least once. */
  readonly runs: number;
  /** Runs whose output was searched for race reports (race builds, or any run that printed one). */
  readonly runsChecked: number;
}

/** One run's output for race findings. */
export interface RaceRunOutput {
  readonly runId: number;
  /** Every text the run left that may hold race reports (stderr tail, race log). */
  readonly texts: readonly string[];
}

/**
 * Race findings of one program over its checked runs, most frequent first (then by
 * frames). `rename` maps function names as sites are formed elsewhere (relative package paths).
 */
export function detectRaces(
  program: string,
  runs: readonly RaceRunOutput[],
  rename: (fn: string) => string = (fn) => fn,
): RaceFinding[] {
  const found = new Map<
    string,
    {
      frames: [string, string];
      accesses: [string, string];
      createdAt: [string | null, string | null];
      runs: Set<number>;
    }
  >();
  for (const run of runs) {
    for (const report of run.texts.flatMap(parseRaceReports)) {
      const sides = [report.current, report.previous].map((a) => {
        const top = topUserFrame(a.stack);
        const created = topUserFrame(a.createdAt);
        return {
          frame: top === null ? "?" : frameSite(top, rename),
          access: a.access,
          createdAt: created === null ? null : frameSite(created, rename),
        };
      });
      sides.sort((a, b) =>
        a.frame < b.frame ? -1 : a.frame > b.frame ? 1 : a.access < b.access ? -1 : a.access > b.access ? 1 : 0,
      );
      const key = `${sides[0].frame}\n${sides[1].frame}`;
      const entry = found.get(key) ?? {
        frames: [sides[0].frame, sides[1].frame],
        accesses: [sides[0].access, sides[1].access],
        createdAt: [sides[0].createdAt, sides[1].createdAt],
        runs: new Set<number>(),
      };
      entry.runs.add(run.runId);
      found.set(key, entry);
    }
  }
  return [...found.values()]
    .map((f) => ({
      program,
      frames: f.frames,
      accesses: f.accesses,
      createdAt: f.createdAt,
      runs: f.runs.size,
      runsChecked: runs.length,
    }))
    .sort((a, b) => b.runs - a.runs || (a.frames.join("\n") < b.frames.join("\n") ? -1 : 1));
}
