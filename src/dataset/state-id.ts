// Stable state ids: the same in SQLite, exports, prediction caches and replay files.

import { createHash } from "node:crypto";
import type { Abstraction } from "./types.js";

/** Abstractions whose states are pooled over programs; their ids use POOLED_PROGRAM. */
export const POOLED_ABSTRACTIONS: readonly Abstraction[] = ["context"];

/** Stands for "every program" in the id of a pooled state. */
export const POOLED_PROGRAM = "*";

export function isPooled(abstraction: Abstraction): boolean {
  return POOLED_ABSTRACTIONS.includes(abstraction);
}

/**
 * sha256("abstraction\0program\0key"), hex, first 16 characters. For pooled abstractions
 * the program is POOLED_PROGRAM, so a context state has one id whatever programs share it.
 */
export function stateId(abstraction: Abstraction, program: string, key: string): string {
  const owner = isPooled(abstraction) ? POOLED_PROGRAM : program;
  return createHash("sha256").update(`${abstraction}\0${owner}\0${key}`).digest("hex").slice(0, 16);
}
