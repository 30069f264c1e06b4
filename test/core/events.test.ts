// The event vocabulary: one numbering of record kinds (events first, in probability-vector
// order), and the rare events drawn from the six.

import { describe, expect, it } from "vitest";
import {
  EVENT_TYPES,
  isEventType,
  NON_EVENT_KINDS,
  RARE_EVENTS,
  RECORD_KINDS,
  recordKindCode,
} from "../../src/core/index.js";

describe("event vocabulary", () => {
  it("numbers every record kind by its place in RECORD_KINDS, the six events first", () => {
    expect(RECORD_KINDS).toEqual([...EVENT_TYPES, ...NON_EVENT_KINDS]);
    expect(RECORD_KINDS.map(recordKindCode)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(RECORD_KINDS.filter(isEventType)).toEqual([...EVENT_TYPES]);
  });

  it("lists the rare events in report order, each one of the six", () => {
    expect(RARE_EVENTS).toEqual(["GoUnblock", "GoSched", "GoEnd"]);
    expect(RARE_EVENTS.every(isEventType)).toBe(true);
  });
});
