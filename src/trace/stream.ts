// Incremental parser of the Go helper's decode stream (format: docs/events.md). Pure:
// feed it text chunks, it hands out records in batches, lock operations in order with
// them, and collects the summary lines.

import { TraceDecodeError } from "./errors.js";
import type { DecodedGoroutine, DecodeStatus } from "./types.js";
import { RECORD_KINDS, type GoroutineRecord, type LockOp } from "../core/index.js";

export interface StreamEnd {
  readonly status: DecodeStatus;
  readonly generations: number;
  readonly recordCount: number;
  readonly message: string;
}

/**
 * Parses the helper's lines; records go to `onRecords` in batches of up to `batchSize`.
 * `rename` rewrites every function-bearing string once, as it arrives (interned strings,
 * each frame of a stack string, goroutine entries and creation sites): the place package
 * paths are made relative.
 *
 * Lock operations go to `onLockOps` (dropped without it), in order with the records: every
 * op is handed out after the batches holding the records before it (seq < op.seq) and
 * before the batch holding record op.seq. A lock op therefore ends the current batch, so
 * batches are shorter in a run with many; a writer that wants large transactions gathers
 * several.
 */
export class DecodeStreamParser {
  private rest = "";
  private strings: string[] = [""];
  private batch: GoroutineRecord[] = [];
  private ops: LockOp[] = [];
  private seq = 0;
  readonly goroutines: DecodedGoroutine[] = [];
  end: StreamEnd | undefined;

  constructor(
    private readonly onRecords: (records: GoroutineRecord[]) => void,
    private readonly batchSize = 4096,
    private readonly rename: (text: string) => string = (text) => text,
    private readonly onLockOps?: (ops: LockOp[]) => void,
  ) {}

  /** Consumes a chunk; complete lines are parsed, a partial last line waits for the next chunk. */
  push(chunk: string): void {
    const text = this.rest + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      this.line(text, start, nl);
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }

  /** Flushes the last batch; call once after the stream ended. */
  finish(): void {
    if (this.rest !== "") {
      this.line(this.rest, 0, this.rest.length);
      this.rest = "";
    }
    this.flush();
  }

  /** Hands out the held lock ops (they come before every record of the batch), then the batch. */
  private flush(): void {
    this.flushOps();
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.onRecords(batch);
  }

  private flushOps(): void {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    this.onLockOps?.(ops);
  }

  private line(text: string, start: number, end: number): void {
    const first = text.charCodeAt(start);
    if (first >= 48 && first <= 57) {
      this.record(text, start, end);
      return;
    }
    const fields = text.slice(start, end).split("\t");
    switch (fields[0]) {
      case "S":
        this.strings[Number(fields[1])] = this.renameFrames(fields[2] ?? "");
        break;
      case "L":
        if (this.onLockOps !== undefined) this.lockOp(fields);
        break;
      case "G":
        this.goroutines.push(goroutineLine(fields, this.rename));
        break;
      case "Z":
        this.end = {
          status: fields[1] as DecodeStatus,
          generations: Number(fields[2]),
          recordCount: Number(fields[3]),
          message: fields[4] ?? "",
        };
        break;
      default:
        throw new TraceDecodeError(
          `unexpected line from the Go helper: ${text.slice(start, Math.min(end, start + 80))}`,
          "The cached helper and this schedlab disagree on the stream format: delete ~/.cache/schedlab/gohelper and retry.",
        );
    }
  }

  /** A stack string is renamed frame by frame (the package-path rule needs a name's start). */
  private renameFrames(text: string): string {
    return text.includes(";") ? text.split(";").map(this.rename).join(";") : this.rename(text);
  }

  /**
   * "L phase mode lock time gid siteId stackId": held until the next flush, after the
   * records before it were handed out (the current batch, flushed here).
   */
  private lockOp(f: readonly string[]): void {
    this.flush();
    const siteId = Number(f[6]);
    const stackId = Number(f[7]);
    this.ops.push({
      seq: this.seq,
      timeNs: Number(f[4]),
      goroutine: Number(f[5]),
      phase: f[1] as LockOp["phase"],
      mode: f[2] as LockOp["mode"],
      lock: f[3] ?? "",
      site: siteId === 0 ? null : (this.strings[siteId] ?? null),
      stack: stackId === 0 ? null : (this.strings[stackId] ?? null),
    });
    if (this.ops.length >= this.batchSize) this.flushOps();
  }

  /**
   * "kind time gid actor reasonId siteId stackId", parsed without allocating substrings. A
   * line without the stack field (an older helper) gives every record an undefined stack;
   * with it, a GoBlock's stack is its string or null (0), other kinds' undefined.
   */
  private record(text: string, start: number, end: number): void {
    const values = [0, 0, 0, 0, 0, 0, -1];
    let field = 0;
    let value = 0;
    let negative = false;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 9) {
        values[field++] = negative ? -value : value;
        value = 0;
        negative = false;
      } else if (c === 45) {
        negative = true;
      } else {
        value = value * 10 + (c - 48);
      }
    }
    values[field] = negative ? -value : value;
    const siteId = values[5];
    const stackId = values[6];
    const kind = RECORD_KINDS[values[0]];
    this.batch.push({
      seq: this.seq++,
      timeNs: values[1],
      kind,
      goroutine: values[2],
      actor: values[3] < 0 ? null : values[3],
      reason: this.strings[values[4]] ?? "",
      site: siteId === 0 ? null : (this.strings[siteId] ?? null),
      stack: kind !== "GoBlock" || stackId < 0 ? undefined : stackId === 0 ? null : (this.strings[stackId] ?? null),
    });
    if (this.batch.length >= this.batchSize) this.flush();
  }
}

function goroutineLine(f: readonly string[], rename: (text: string) => string): DecodedGoroutine {
  const parent = Number(f[2]);
  return {
    goroutine: Number(f[1]),
    parent: parent < 0 ? null : parent,
    root: f[3] === "1" ? "program" : f[3] === "2" ? "test" : "none",
    preTrace: f[4] === "1",
    ordinal: Number(f[5]),
    entry: rename(f[6] ?? ""),
    runs: f[7] ? rename(f[7]) : null,
    creationSite: f[8] ? rename(f[8]) : null,
    siteKey: f[9] ? f[9] : null,
  };
}
