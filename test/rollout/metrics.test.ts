// Rollout metrics and sampling helpers on hand-made rollouts with known answers.

import { describe, expect, it } from "vitest";
import {
  distributionGap,
  drawIndex,
  eventTypeDistribution,
  kStepAccuracy,
  meanInfeasibleMass,
  meanSurvival,
  perStepAccuracy,
  reachedKShare,
  spreadStates,
  summarizeRollouts,
  temperatureWeights,
} from "../../src/rollout/index.js";
import type { Rollout } from "../../src/rollout/index.js";
import type { State } from "../../src/dataset/types.js";
import type { EventType } from "../../src/core/index.js";

const ok = (events: EventType[], infeasibleMass: number[] = []): Rollout => ({
  events,
  survival: events.length,
  end: "reached-k",
  infeasibleMass,
});
const bad = (events: EventType[]): Rollout => ({
  events,
  survival: events.length,
  end: "invalid",
  infeasibleMass: [],
  invalidEvent: "GoUnblock",
  brokenRule: "unblock-not-waiting",
});
const done = (events: EventType[]): Rollout => ({
  events,
  survival: events.length,
  end: "exhausted",
  infeasibleMass: [],
});

describe("survival", () => {
  it("mean survival and the share reaching k", () => {
    const rs = [ok(["GoStart", "GoBlock", "GoStart"]), bad([]), bad(["GoStart"])];
    expect(meanSurvival(rs)).toBeCloseTo(4 / 3, 12);
    expect(reachedKShare(rs)).toBeCloseTo(1 / 3, 12);
    expect(Number.isNaN(meanSurvival([]))).toBe(true);
  });

  it("infeasible mass: the mean over every step asked, pooled over rollouts", () => {
    const rs = [ok(["GoStart", "GoBlock"], [0.1, 0.3]), ok(["GoStart"], [0.2]), done([])];
    expect(meanInfeasibleMass(rs)).toBeCloseTo(0.2, 12);
    expect(Number.isNaN(meanInfeasibleMass([done([])]))).toBe(true);
  });
});

describe("k-step accuracy", () => {
  const continuations: EventType[][] = [
    ["GoStart", "GoBlock"],
    ["GoStart", "GoEnd"],
  ];

  it("exact sequence: a rollout counts when it equals some real continuation", () => {
    expect(
      kStepAccuracy(
        [ok(["GoStart", "GoBlock"]), ok(["GoStart", "GoSched"]), ok(["GoStart", "GoEnd"]), ok(["GoBlock", "GoBlock"])],
        continuations,
      ),
    ).toBe(0.5);
  });

  it("a rollout that broke a rule never matches, even with the same valid prefix length as a short continuation", () => {
    expect(kStepAccuracy([bad(["GoStart"])], [["GoStart"]])).toBe(0);
    // A run that ended after one event is matched by a rollout that had nothing valid left.
    expect(kStepAccuracy([done(["GoStart"])], [["GoStart"]])).toBe(1);
  });

  it("per step: hits of each valid step against any continuation's event at that step, over rollouts × k", () => {
    // steps: GoStart hit, GoSched miss | GoBlock miss, (missing) miss
    expect(perStepAccuracy([ok(["GoStart", "GoSched"]), bad(["GoBlock"])], continuations, 2)).toBe(0.25);
  });

  it("no continuations gives NaN, not a fake zero", () => {
    expect(Number.isNaN(kStepAccuracy([ok(["GoStart"])], []))).toBe(true);
  });
});

describe("distributions", () => {
  it("event-type histogram in EVENT_TYPES order", () => {
    expect(
      eventTypeDistribution([
        ["GoStart", "GoStart"],
        ["GoEnd", "GoCreate"],
      ]),
    ).toEqual([0.25, 0.5, 0, 0, 0, 0.25]);
    expect(eventTypeDistribution([])).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("L1 is Σ|a−b|/6 and KL(empirical‖rolled) is zero for equal distributions", () => {
    const p = [0.5, 0.5, 0, 0, 0, 0];
    expect(distributionGap(p, p)).toEqual({ l1: 0, kl: 0 });
    const gap = distributionGap([0, 1, 0, 0, 0, 0], p);
    expect(gap.l1).toBeCloseTo(1 / 6, 12);
    expect(gap.kl).toBeCloseTo(0.5 * Math.log(0.5 / 1e-12) + 0.5 * Math.log(0.5 / 1), 6);
  });

  it("summarizeRollouts puts it together", () => {
    const m = summarizeRollouts([ok(["GoStart", "GoBlock"]), bad([])], [["GoStart", "GoBlock"]], 2);
    expect(m).toMatchObject({
      rollouts: 2,
      meanSurvival: 1,
      reachedK: 0.5,
      kStepAccuracy: 0.5,
      perStepAccuracy: 0.5,
      ends: { "reached-k": 1, invalid: 1 },
      brokenRules: { "unblock-not-waiting": 1 },
    });
    expect(m.l1).toBe(0);
  });
});

describe("sampling", () => {
  it("temperature 1 keeps q, 0 is argmax, small T sharpens, large T flattens", () => {
    const q = [0.1, 0.6, 0.3, 0, 0, 0];
    expect(temperatureWeights(q, 1).map((x) => +x.toFixed(12))).toEqual(q);
    expect(temperatureWeights(q, 0)).toEqual([0, 1, 0, 0, 0, 0]);
    expect(temperatureWeights(q, 0.5)[1]).toBeGreaterThan(0.6);
    expect(temperatureWeights(q, 5)[1]).toBeLessThan(0.6);
    expect(temperatureWeights([0, 0, 0, 0, 0, 0], 1)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("drawIndex walks the cumulative weights and skips zeros", () => {
    const w = [0, 0.25, 0, 0.75];
    expect(drawIndex(w, 0)).toBe(1);
    expect(drawIndex(w, 0.2499)).toBe(1);
    expect(drawIndex(w, 0.25)).toBe(3);
    expect(drawIndex(w, 0.9999999)).toBe(3);
    expect(drawIndex([0, 0], 0.5)).toBe(-1);
  });

  it("spreadStates picks evenly, in order", () => {
    const states = Array.from({ length: 10 }, (_, i) => ({ id: String(i) }) as unknown as State);
    expect(spreadStates(states, 3).map((s) => s.id)).toEqual(["0", "3", "6"]);
    expect(spreadStates(states, 20)).toHaveLength(10);
  });
});
