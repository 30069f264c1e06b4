// A structural check of a Go execution trace file, without decoding events: the
// header, the batch framing, and (Go ≥ 1.26) the end-of-generation markers. A trace
// whose writer was stopped cleanly ends with a complete generation; one cut short by
// a fatal error or a kill does not, and the run is marked truncated.

import { closeSync, openSync, readSync, statSync, truncateSync } from "node:fs";

/** Event type bytes of the Go 1.26 trace format (internal/trace/tracev2). */
const EV_EVENT_BATCH = 1;
const EV_EXPERIMENTAL_BATCH = 49;
const EV_END_OF_GENERATION = 52;
const HEADER_BYTES = 16;

export interface TraceFileCheck {
  /** Minor Go version from the header ("go 1.26 trace" → 26), or null without a valid header. */
  readonly goMinor: number | null;
  readonly bytes: number;
  /** Completed generations (Go ≥ 1.26; null for older formats, which have no marker). */
  readonly generations: number | null;
  readonly complete: boolean;
  /** Why the trace is incomplete; null when complete. */
  readonly problem: string | null;
}

function readUvarint(buf: Buffer, at: number): { value: number; next: number } | null {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next: i + 1 };
    scale *= 128;
  }
  return null;
}

/** Checks the framing of the trace at `path`. Never throws for a bad trace; I/O errors propagate. */
export function checkTraceFile(path: string): TraceFileCheck {
  const bytes = statSync(path).size;
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const got = readSync(fd, head, 0, HEADER_BYTES, 0);
    const match = /^go 1\.(\d+) trace\0*$/.exec(head.subarray(0, got).toString("latin1"));
    if (got < HEADER_BYTES || match === null) {
      return {
        goMinor: null,
        bytes,
        generations: null,
        complete: false,
        problem: bytes === 0 ? "the trace is empty" : "no Go trace header",
      };
    }
    const goMinor = Number(match[1]);
    if (goMinor < 26) {
      // Older formats have no end-of-generation marker; a complete batch framing is the best check.
      const framing = walkBatches(fd, bytes, false);
      return { goMinor, bytes, generations: null, complete: framing.problem === null, problem: framing.problem };
    }
    const framing = walkBatches(fd, bytes, true);
    if (framing.problem !== null)
      return { goMinor, bytes, generations: framing.generations, complete: false, problem: framing.problem };
    if (!framing.endsWithMarker) {
      return {
        goMinor,
        bytes,
        generations: framing.generations,
        complete: false,
        problem: "the last generation has no end marker (the trace was not stopped)",
      };
    }
    return { goMinor, bytes, generations: framing.generations, complete: true, problem: null };
  } finally {
    closeSync(fd);
  }
}

interface Framing {
  readonly generations: number;
  readonly endsWithMarker: boolean;
  readonly problem: string | null;
  /** Offset just past the last end-of-generation marker (HEADER_BYTES when none). */
  readonly lastGenerationEnd: number;
  /** Offset just past the last complete batch or marker. */
  readonly lastBatchEnd: number;
}

function walkBatches(fd: number, bytes: number, withMarkers: boolean): Framing {
  const header = Buffer.alloc(48);
  let at = HEADER_BYTES;
  let generations = 0;
  let endsWithMarker = false;
  let lastGenerationEnd = HEADER_BYTES;
  const result = (problem: string | null): Framing => ({
    generations,
    endsWithMarker,
    problem,
    lastGenerationEnd,
    lastBatchEnd: Math.min(at, bytes),
  });
  while (at < bytes) {
    const got = readSync(fd, header, 0, header.length, at);
    const type = header[0];
    if (withMarkers && type === EV_END_OF_GENERATION) {
      generations++;
      endsWithMarker = true;
      at += 1;
      lastGenerationEnd = at;
      continue;
    }
    endsWithMarker = false;
    let cursor = 1;
    if (type === EV_EXPERIMENTAL_BATCH && withMarkers) cursor = 2;
    else if (type !== EV_EVENT_BATCH)
      return result(`unexpected byte ${type} at offset ${at} where a batch should start`);
    const view = header.subarray(0, got);
    let size = 0;
    for (let field = 0; field < 4; field++) {
      const value = readUvarint(view, cursor);
      if (value === null) return result(`the trace ends inside a batch header at offset ${at}`);
      cursor = value.next;
      size = value.value;
    }
    if (at + cursor + size > bytes)
      return result(`the trace ends inside a batch (${at + cursor + size - bytes} bytes missing)`);
    at += cursor + size;
  }
  return result(null);
}

/**
 * Cuts a trace whose last batch is incomplete (the writer was killed mid-write) back to
 * the end of its last complete generation, which the parser reads. Returns the bytes
 * removed: 0 when nothing needed cutting, or when no generation is complete (nothing
 * would parse either way, so the raw bytes are kept). The run stays marked truncated.
 */
export function trimIncompleteBatch(path: string): number {
  const bytes = statSync(path).size;
  const fd = openSync(path, "r");
  let keep: number;
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    const match = /^go 1\.(\d+) trace\0*$/.exec(
      head.subarray(0, readSync(fd, head, 0, HEADER_BYTES, 0)).toString("latin1"),
    );
    if (match === null) return 0;
    const framing = walkBatches(fd, bytes, Number(match[1]) >= 26);
    if (framing.problem === null || !framing.problem.startsWith("the trace ends inside")) return 0;
    if (framing.lastGenerationEnd <= HEADER_BYTES) return 0;
    keep = framing.lastGenerationEnd;
  } finally {
    closeSync(fd);
  }
  truncateSync(path, keep);
  return bytes - keep;
}
