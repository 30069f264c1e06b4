// What a blocked goroutine waits on, read from the stack the decoder records with each
// GoBlock (docs/events.md, "Stacks"): the standard-library call it is parked in (the
// precise wait: Mutex.Lock, RWMutex.RLock, WaitGroup.Wait, a nil channel, …) and its user
// frames. Pure.

import { shortFunction } from "../core/index.js";

/** One user frame of a stack: "function file:line" split, file as its base name. */
export interface Frame {
  readonly function: string;
  readonly file: string;
  readonly line: number;
}

/** A block's stack: the library call it is parked in ("" when unknown) and its user frames, innermost first. */
export interface BlockStack {
  readonly api: string;
  readonly frames: readonly Frame[];
}

/** Splits "function file:line" (a site or one frame of a stack); null when it has no "file:line". */
export function parseFrame(text: string): Frame | null {
  const space = text.lastIndexOf(" ");
  const where = space < 0 ? text : text.slice(space + 1);
  const colon = where.lastIndexOf(":");
  if (colon < 0) return null;
  const line = Number(where.slice(colon + 1));
  if (!Number.isInteger(line)) return null;
  return { function: space < 0 ? "" : text.slice(0, space), file: where.slice(0, colon), line };
}

/** The stack string of a record ("api;function file:line;…") as its parts; an absent stack has no frames. */
export function parseStack(stack: string | null | undefined): BlockStack {
  if (stack == null || stack === "") return { api: "", frames: [] };
  const [api, ...rest] = stack.split(";");
  return { api, frames: rest.map(parseFrame).filter((f): f is Frame => f !== null) };
}

/** "function file:line" of a frame, as sites are written. */
export function frameText(frame: Frame): string {
  return `${frame.function} ${frame.file}:${frame.line}`;
}

/** The function name without its package path, as a reader scans it (core's, re-exported for the model's users). */
export { shortFunction };

/** The precise waits a blocked goroutine can be in, named as the Go API the user called. */
export const PRECISE_WAITS = [
  "chan send",
  "chan receive",
  "select",
  "nil chan send",
  "nil chan receive",
  "select {}",
  "select on nil channels",
  "Mutex.Lock",
  "RWMutex.Lock",
  "RWMutex.RLock",
  "WaitGroup.Wait",
  "Cond.Wait",
  "Once.Do",
  "sleep",
  "sync",
  "network",
  "syscall",
] as const;
export type PreciseWait = (typeof PRECISE_WAITS)[number];

const API_WAITS: ReadonlyMap<string, PreciseWait> = new Map([
  ["sync.(*Mutex).Lock", "Mutex.Lock"],
  ["sync.(*RWMutex).Lock", "RWMutex.Lock"],
  ["sync.(*RWMutex).RLock", "RWMutex.RLock"],
  ["sync.(*WaitGroup).Wait", "WaitGroup.Wait"],
  ["sync.(*Cond).Wait", "Cond.Wait"],
  ["sync.(*Once).Do", "Once.Do"],
  ["time.Sleep", "sleep"],
]);

/**
 * The precise wait of a block from its trace reason and the library call on its stack.
 * Channel operations are told apart by the reason (a nil channel's wait is "forever");
 * sync waits by the call. A sync wait whose call is unknown (no stack, a wrapper) stays "sync".
 */
export function preciseWait(reason: string, api: string): PreciseWait {
  const known = API_WAITS.get(api);
  if (known !== undefined) return known;
  const send = api.startsWith("runtime.chansend");
  const receive = api.startsWith("runtime.chanrecv");
  if (reason === "forever") {
    if (send) return "nil chan send";
    if (receive) return "nil chan receive";
    if (api === "runtime.selectgo") return "select on nil channels";
    return "select {}";
  }
  if (reason === "chan send") return "chan send";
  if (reason === "chan receive") return "chan receive";
  if (reason === "select") return "select";
  if (reason === "sync.(*Cond).Wait") return "Cond.Wait";
  if (reason === "network" || reason === "syscall") return reason;
  return "sync";
}

/**
 * The standard-library call a block's user line made, named for a reader, when it is not the
 * wait itself: "io.Copy", "io.(*PipeReader).Read", "net/http.(*Client).Do" → "http.(*Client).Do".
 * Null for no call, the runtime's own channel and select primitives, and the calls
 * preciseWait already names (Mutex.Lock, WaitGroup.Wait, time.Sleep, …).
 */
export function libraryCall(api: string): string | null {
  if (api === "" || api.startsWith("runtime.") || API_WAITS.has(api)) return null;
  return shortFunction(api);
}

/** Whether a wait is for a lock (its holder can be named from the lock-recording logs). */
export function isLockWait(wait: PreciseWait): boolean {
  return wait === "Mutex.Lock" || wait === "RWMutex.Lock" || wait === "RWMutex.RLock";
}
