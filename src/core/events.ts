// The event vocabulary: the six scheduler event types every predictor is scored on, the
// non-event record kinds decoded beside them, and their one numbering (RECORD_KINDS), from
// which event_records.kind codes, the legacy SQL of src/store/schema.ts and the Go helper's
// recordKind constants follow (test/gohelper/record-kinds.e2e.test.ts checks the Go side).

/** The six event types every predictor is scored on, in a fixed order used for probability vectors. */
export const EVENT_TYPES = ["GoCreate", "GoStart", "GoBlock", "GoUnblock", "GoSched", "GoEnd"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records decoded from a trace that are not one of the six events:
 * - SyscallEnter: Running → Syscall
 * - SyscallExit: Syscall → Running
 * - SyscallUnblock: Syscall → Runnable (the P was taken while in the syscall)
 * - Initial: the goroutine's status when first seen (Undetermined → X), not a transition
 */
export const NON_EVENT_KINDS = ["SyscallEnter", "SyscallExit", "SyscallUnblock", "Initial"] as const;
export type NonEventKind = (typeof NON_EVENT_KINDS)[number];

export type RecordKind = EventType | NonEventKind;

/**
 * Every record kind, numbered by its index: the code of event_records.kind and of the
 * records the Go helper streams (its recordKind). Never reorder: stored codes would change meaning.
 */
export const RECORD_KINDS: readonly RecordKind[] = [...EVENT_TYPES, ...NON_EVENT_KINDS];

const RECORD_KIND_CODES: ReadonlyMap<RecordKind, number> = new Map(RECORD_KINDS.map((kind, code) => [kind, code]));

/** event_records.kind of a record kind: its index in RECORD_KINDS. */
export function recordKindCode(kind: RecordKind): number {
  return RECORD_KIND_CODES.get(kind) ?? -1;
}

export function isEventType(kind: string): kind is EventType {
  return (EVENT_TYPES as readonly string[]).includes(kind);
}

/**
 * The rare events, in the order reports list them: training's --balance reweights them and
 * the evaluation tables show their recall (they are where predictors fail first).
 */
export const RARE_EVENTS: readonly EventType[] = ["GoUnblock", "GoSched", "GoEnd"];
