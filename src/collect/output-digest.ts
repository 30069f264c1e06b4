// The failure-relevant part of a program's whole output, read as a stream: a test binary's
// `-test.v` output or a program's stderr goes through line by line (chunks may split lines
// anywhere) and only what tells failures and crashes is kept, bounded, in the form
// parseFailures (failures.ts) reads. Tails lose what a long suite printed first and the
// header of a multi-megabyte traceback; the digest keeps them (docs/collect.md, "The output
// digest"). Pure: chunks in, text out.

import { StringDecoder } from "node:string_decoder";
import { isCrashStart, TEST_TIMEOUT } from "../model/index.js";
import { RACE_SEPARATOR } from "./races.js";

/** The digest's bounds, in characters and lines. */
export interface OutputDigestLimits {
  /** The whole digest; beyond it only essential lines (crash headers, test results, final lines) are added, up to `essentialChars` more. */
  readonly maxChars: number;
  readonly essentialChars: number;
  /** A longer line is cut. */
  readonly lineChars: number;
  /** Of a running test's log: the first and the last lines kept, and its characters at most. */
  readonly testHeadLines: number;
  readonly testTailLines: number;
  readonly testChars: number;
  /** All running tests' kept logs together: beyond, the oldest lose their lines. */
  readonly pendingChars: number;
  /** Lines under a failed test's result line, or of an Example's got/want. */
  readonly resultLines: number;
  /** Lines of a crash before its first goroutine block (the signal's PC line, `runtime stack:`, a timeout's running tests). */
  readonly preambleLines: number;
  /** Lines of one goroutine block. */
  readonly blockLines: number;
  /** Goroutine blocks kept after the first, per crash. */
  readonly otherBlocks: number;
  /** Race reports kept, and lines of each. */
  readonly raceReports: number;
  readonly raceLines: number;
}

export const OUTPUT_DIGEST_LIMITS: OutputDigestLimits = {
  maxChars: 256 * 1024,
  essentialChars: 32 * 1024,
  lineChars: 4 * 1024,
  testHeadLines: 8,
  testTailLines: 56,
  testChars: 16 * 1024,
  pendingChars: 2 * 1024 * 1024,
  resultLines: 200,
  preambleLines: 64,
  blockLines: 100,
  otherBlocks: 32,
  raceReports: 16,
  raceLines: 200,
};

export interface OutputDigest {
  /** Reads the next chunk of the stream. */
  write(chunk: Buffer | string): void;
  /** The digest of everything written, the last unterminated line included; the stream ends with the first call (later writes are ignored). */
  text(): string;
  /** Characters read so far. */
  readonly charsRead: number;
}

/** `=== RUN   TestX`, `=== CONT  TestX`, `=== NAME  TestX`, `=== PAUSE TestX`. */
export const TEST_HEADER = /^=== (RUN|CONT|NAME|PAUSE)\s+(\S+)/;
/** A test's result line, indented under its parent's for a subtest. */
export const TEST_RESULT = /^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(/;
/** Lines of a crash report that follow its first line (runtime/signal_unix.go), also read as a header should that line be missing. */
const CRASH_DETAIL = /^(?:unexpected signal during runtime execution|signal arrived during cgo execution)$/;

/** A line that tells of a crash: its first line, or one of the runtime's lines about the signal. */
export function isCrashHeader(line: string): boolean {
  return isCrashStart(line) || CRASH_DETAIL.test(line);
}
/** `goroutine 18 [running]:`, also the crash form `goroutine 10 gp=0x… m=0 mp=0x… [running]:`. */
export const GOROUTINE_HEADER = /^goroutine (\d+)\b[^[]*\[/;
/** go test's and the binary's last lines. */
const FINAL_LINE = /^(?:FAIL|PASS|ok)(?:\s|$)|^exit status \d+$|^\*\*\* Test killed/;
/** A frame or `created by` line naming a test function: "pkg.TestX(", "pkg.TestX.func1(", "created by pkg.TestX in". */
const NAMES_TEST = /(?:^|[/.])(?:Test|Example|Fuzz|Benchmark)(?:[^a-z.(\s][^.(\s]*)?[.(\s]/;
const CREATED_IN = /^created by \S+ in goroutine (\d+)$/;

/** Where the digest puts what it left out, so a reader knows the text is partial. */
export const DIGEST_NOTE = "schedlab: output digest:";

interface TestLog {
  readonly head: string[];
  readonly tail: string[];
  chars: number;
  /** Lines between head and tail that were left out. */
  leftOut: number;
  paused: boolean;
}

interface Crash {
  readonly timeout: boolean;
  phase: "preamble" | "block" | "between";
  preambleLines: number;
  blocks: number;
  /** The block being read: the first is emitted as it comes, the others buffered until their end decides. */
  block: string[];
  blockLeftOut: number;
  blockKept: boolean;
  blockId: string;
  otherKept: number;
  otherLeftOut: number;
  /** Goroutines whose blocks are kept: the creators of kept blocks (`created by … in goroutine N`). */
  readonly creators: Set<string>;
  /** The goroutines whose blocks were kept. */
  readonly kept: Set<string>;
}

type Mode =
  | { readonly kind: "normal" }
  | {
      readonly kind: "result";
      readonly indent: number;
      readonly keep: boolean;
      readonly example: boolean;
      lines: number;
    }
  | { readonly kind: "example"; lines: number }
  | { readonly kind: "crash"; readonly crash: Crash }
  | { readonly kind: "race"; readonly keep: boolean; lines: number };

/** A streaming digest of one output stream (stdout or stderr), bounded by `limits`. */
export function outputDigest(limits: Partial<OutputDigestLimits> = {}): OutputDigest {
  const L: OutputDigestLimits = { ...OUTPUT_DIGEST_LIMITS, ...limits };
  const decoder = new StringDecoder("utf8");
  const out: string[] = [];
  let outChars = 0;
  let essentialUsed = 0;
  const leftOut = { lines: 0 };
  let carry = "";
  let skippingLongLine = false;
  let charsRead = 0;
  let mode: Mode = { kind: "normal" };
  let current: string | null = null;
  const tests = new Map<string, TestLog>();
  let pendingChars = 0;
  let separatorPending: string | null = null;
  let racesKept = 0;
  let racesLeftOut = 0;
  let finished: string | null = null;

  const emit = (line: string, essential = false): void => {
    const size = line.length + 1;
    if (outChars + size <= L.maxChars) outChars += size;
    else if (essential && essentialUsed + size <= L.essentialChars) essentialUsed += size;
    else {
      leftOut.lines++;
      return;
    }
    out.push(line);
  };

  const cut = (line: string): string =>
    line.length <= L.lineChars
      ? line
      : `${line.slice(0, L.lineChars)} … (${line.length - L.lineChars} more characters)`;

  const dropTest = (name: string): TestLog | undefined => {
    const log = tests.get(name);
    if (log !== undefined) {
      pendingChars -= log.chars;
      tests.delete(name);
    }
    return log;
  };

  const startTest = (name: string): void => {
    dropTest(name);
    tests.set(name, { head: [], tail: [], chars: 0, leftOut: 0, paused: false });
  };

  const logLine = (name: string, line: string): void => {
    let log = tests.get(name);
    if (log === undefined) {
      startTest(name);
      log = tests.get(name)!;
    }
    const size = line.length + 1;
    if (log.head.length < L.testHeadLines) log.head.push(line);
    else log.tail.push(line);
    log.chars += size;
    pendingChars += size;
    while (log.tail.length > 0 && (log.tail.length > L.testTailLines || log.chars > L.testChars)) {
      const dropped = log.tail.shift()!;
      log.chars -= dropped.length + 1;
      pendingChars -= dropped.length + 1;
      log.leftOut++;
    }
    // Many tests running at once (subtests report when their parent ends): the oldest logs go first.
    if (pendingChars > L.pendingChars) {
      for (const [other, old] of tests) {
        if (pendingChars <= L.pendingChars) break;
        if (other === name) continue;
        old.leftOut += old.head.length + old.tail.length;
        pendingChars -= old.chars;
        old.chars = 0;
        old.head.length = 0;
        old.tail.length = 0;
      }
    }
  };

  /** A test's header and kept log, as `-test.v` printed them. */
  const emitTest = (name: string, log: TestLog | undefined, essential: boolean): void => {
    emit(`=== RUN   ${name}`, essential);
    if (log === undefined) return;
    for (const line of log.head) emit(line);
    if (log.leftOut > 0) emit(`    ${DIGEST_NOTE} ${log.leftOut} line(s) of ${name}'s log left out`);
    for (const line of log.tail) emit(line);
  };

  const emitCrashNote = (crash: Crash): void => {
    if (crash.otherLeftOut > 0)
      emit(
        `${DIGEST_NOTE} ${crash.otherLeftOut} of the traceback's ${crash.blocks} goroutine blocks left out ` +
          "(kept: the first, and those of the running tests)",
      );
  };

  const endBlock = (crash: Crash): void => {
    if (crash.phase !== "block") return;
    const first = crash.blocks === 1;
    if (!first) {
      if (crash.blockKept && crash.otherKept < L.otherBlocks) {
        crash.otherKept++;
        crash.kept.add(crash.blockId);
        for (const line of crash.block) emit(line);
        if (crash.blockLeftOut > 0) emit(`\t${DIGEST_NOTE} ${crash.blockLeftOut} more line(s) of this goroutine`);
        emit("");
      } else crash.otherLeftOut++;
    } else {
      if (crash.blockLeftOut > 0) emit(`\t${DIGEST_NOTE} ${crash.blockLeftOut} more line(s) of this goroutine`);
      emit("");
    }
    crash.block = [];
    crash.blockLeftOut = 0;
    crash.phase = "between";
  };

  const startBlock = (crash: Crash, line: string, id: string): void => {
    crash.blocks++;
    crash.phase = "block";
    crash.block = [];
    crash.blockLeftOut = 0;
    crash.blockId = id;
    crash.blockKept = crash.creators.has(id);
    if (crash.blocks === 1) emit(line, true);
    else crash.block.push(line);
  };

  const blockLine = (crash: Crash, line: string): void => {
    const first = crash.blocks === 1;
    if (
      !crash.blockKept &&
      (runsTest(crash.block, line) || (crash.timeout && isFunctionLine(line) && NAMES_TEST.test(line)))
    )
      crash.blockKept = true;
    // The goroutine that created a kept one may say which test it belongs to (the testing package's own do not).
    const created = CREATED_IN.exec(line);
    if (created !== null && (first || crash.blockKept) && !line.startsWith("created by testing."))
      crash.creators.add(created[1]!);
    // A hang: the goroutines a test's goroutines started are what it waits for.
    if (created !== null && crash.timeout && crash.kept.has(created[1]!)) crash.blockKept = true;
    if (crash.block.length >= L.blockLines) {
      crash.blockLeftOut++;
      return;
    }
    crash.block.push(line);
    // The crashing goroutine is emitted as it comes; the others when their end decides.
    if (first) emit(line);
  };

  /** One line of a crash; false when the crash report is over and the line is someone else's. */
  const crashLine = (crash: Crash, line: string): boolean => {
    const goroutine = GOROUTINE_HEADER.exec(line);
    if (goroutine !== null && crash.phase !== "block") {
      startBlock(crash, line, goroutine[1]!);
      return true;
    }
    switch (crash.phase) {
      case "preamble":
        if (TEST_RESULT.test(line) || TEST_HEADER.test(line) || FINAL_LINE.test(line)) return false;
        if (crash.preambleLines >= L.preambleLines) return false;
        crash.preambleLines++;
        emit(line, isCrashHeader(line));
        return true;
      case "block":
        if (line.trim() === "") {
          endBlock(crash);
          return true;
        }
        if (goroutine !== null) {
          endBlock(crash);
          startBlock(crash, line, goroutine[1]!);
          return true;
        }
        blockLine(crash, line);
        return true;
      case "between":
        return line.trim() === "";
    }
  };

  const endCrash = (crash: Crash): void => {
    endBlock(crash);
    emitCrashNote(crash);
    mode = { kind: "normal" };
  };

  const onLine = (raw: string): void => {
    const line = cut(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (mode.kind === "crash") {
      if (crashLine(mode.crash, line)) return;
      endCrash(mode.crash);
    }
    if (mode.kind === "race") {
      if (RACE_SEPARATOR.test(line)) {
        if (mode.keep) emit(line);
        mode = { kind: "normal" };
      } else if (mode.keep) {
        if (mode.lines++ < L.raceLines) emit(line);
        else if (mode.lines === L.raceLines + 1) emit(`${DIGEST_NOTE} the rest of this race report left out`);
      }
      return;
    }
    if (separatorPending !== null) {
      const separator = separatorPending;
      separatorPending = null;
      if (line.startsWith("WARNING: DATA RACE")) {
        const keep = racesKept < L.raceReports;
        if (keep) {
          racesKept++;
          emit(separator);
          emit(line);
        } else racesLeftOut++;
        mode = { kind: "race", keep, lines: 0 };
        return;
      }
    }
    if (RACE_SEPARATOR.test(line)) {
      separatorPending = line;
      return;
    }
    if (isCrashHeader(line)) {
      emit(line, true);
      current = null;
      mode = {
        kind: "crash",
        crash: {
          timeout: TEST_TIMEOUT.test(line),
          phase: "preamble",
          preambleLines: 0,
          blocks: 0,
          block: [],
          blockLeftOut: 0,
          blockKept: false,
          blockId: "",
          otherKept: 0,
          otherLeftOut: 0,
          creators: new Set(),
          kept: new Set(),
        },
      };
      return;
    }
    const header = TEST_HEADER.exec(line);
    if (header !== null) {
      const [, verb, name] = header as unknown as [string, string, string];
      if (verb === "RUN") startTest(name);
      const log = tests.get(name);
      if (log !== undefined) log.paused = verb === "PAUSE";
      current = name;
      mode = { kind: "normal" };
      return;
    }
    const result = TEST_RESULT.exec(line);
    if (result !== null) {
      const [, indent, verdict, name] = result as unknown as [string, string, string, string];
      const log = dropTest(name);
      current = null;
      const failed = verdict === "FAIL";
      if (failed) {
        emitTest(name, log, true);
        emit(line, true);
      }
      mode = { kind: "result", indent: indent.length, keep: failed, example: name.startsWith("Example"), lines: 0 };
      return;
    }
    if (FINAL_LINE.test(line)) {
      emit(line, true);
      mode = { kind: "normal" };
      current = null;
      return;
    }
    if (mode.kind === "result") {
      if (mode.example && mode.keep && mode.lines === 0 && line === "got:") {
        emit(line);
        mode = { kind: "example", lines: 1 };
        return;
      }
      if (line.trim() !== "" && indentOf(line) > mode.indent) {
        if (mode.keep && mode.lines++ < L.resultLines) emit(line);
        return;
      }
      if (line.trim() === "") return;
      mode = { kind: "normal" };
    }
    if (mode.kind === "example") {
      // An Example's got/want block: its own output, unindented, up to the next test or the end.
      if (mode.lines++ < L.resultLines) emit(line);
      return;
    }
    if (current !== null && line.startsWith("    ")) logLine(current, line);
  };

  const onText = (text: string): void => {
    charsRead += text.length;
    let start = 0;
    for (;;) {
      const end = text.indexOf("\n", start);
      if (end < 0) break;
      const piece = text.slice(start, end);
      start = end + 1;
      if (skippingLongLine) {
        skippingLongLine = false;
        carry = "";
        continue;
      }
      const line = carry === "" ? piece : carry + piece;
      carry = "";
      onLine(line);
    }
    if (start < text.length && !skippingLongLine) {
      carry += text.slice(start);
      // A line without end in sight: keep its start, skip the rest up to its newline.
      if (carry.length > L.lineChars) {
        onLine(carry);
        carry = "";
        skippingLongLine = true;
      }
    }
  };

  return {
    write(chunk) {
      if (finished !== null) return;
      onText(typeof chunk === "string" ? chunk : decoder.write(chunk));
    },
    text() {
      if (finished !== null) return finished;
      const rest = decoder.end();
      if (rest !== "") onText(rest);
      if (carry !== "" && !skippingLongLine) onLine(carry);
      if (mode.kind === "crash") endCrash(mode.crash);
      // Tests still running when the output ended: what a crash interrupted.
      for (const [name, log] of tests) {
        emitTest(name, log, true);
        if (log.paused) emit(`=== PAUSE ${name}`, true);
      }
      if (racesLeftOut > 0)
        emit(`${DIGEST_NOTE} ${racesLeftOut} more race report(s) left out (${racesKept} kept)`, true);
      const text = out.join("\n");
      const note =
        leftOut.lines > 0
          ? `\n${DIGEST_NOTE} bound of ${L.maxChars} characters reached, ${leftOut.lines} line(s) left out\n`
          : text === ""
            ? ""
            : "\n";
      finished = text + note;
      return finished;
    },
    get charsRead() {
      return charsRead;
    },
  };
}

/** The digest of a whole text at once (what outputDigest gives for it as one chunk). */
export function digestOutput(text: string, limits: Partial<OutputDigestLimits> = {}): string {
  const digest = outputDigest(limits);
  digest.write(text);
  return digest.text();
}

function isFunctionLine(line: string): boolean {
  return line !== "" && !line.startsWith("\t");
}

/**
 * Whether `line` is a `testing.tRunner` frame under a test function: the frame above it (the
 * last function line of `block`) is the test's, not the testing package's own driver
 * (`testing.runTests.func1` in goroutine 1).
 */
function runsTest(block: readonly string[], line: string): boolean {
  if (!line.startsWith("testing.tRunner(")) return false;
  for (let i = block.length - 1; i >= 0; i--) {
    const above = block[i]!;
    if (GOROUTINE_HEADER.test(above)) return false;
    if (isFunctionLine(above)) return !above.startsWith("testing.");
  }
  return false;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
