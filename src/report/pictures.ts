// The pictures a report draws beside each bug (the wait-for graph and the timeline), made
// from the database its leak analysis was read from. Every report, `hunt --report` and
// `show` take them from here: the renderers plug in at this one place.

import { bugTimeline, potentialDeadlockGraph, waitForGraph, type LeakAnalysis } from "../leaks/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import type { BugPictures } from "./sections/bugs.js";
import { timelineSvg, waitForGraphSvg } from "./svg/index.js";

/** The pictures of the bugs of `analysis`, read from `db`: each bug's graph and timeline, a potential deadlock's graph. */
export function reportPictures(db: SchedlabDatabase, analysis: LeakAnalysis): BugPictures {
  const bugs = new Map(analysis.bugs.map((b) => [b.fingerprint, b]));
  const potential = new Map(analysis.potentialDeadlocks.map((p) => [p.fingerprint, p]));
  return {
    graph: (fingerprint) => {
      const bug = bugs.get(fingerprint);
      if (bug !== undefined) return waitForGraphSvg(waitForGraph(bug, analysis));
      const p = potential.get(fingerprint);
      return p === undefined ? null : waitForGraphSvg(potentialDeadlockGraph(p));
    },
    timeline: (fingerprint) => {
      const bug = bugs.get(fingerprint);
      return bug === undefined ? null : timelineSvg(bugTimeline(db, bug, analysis));
    },
  };
}
