// The pictures a report draws beside each bug (the wait-for graph and the timeline), made
// from the database its leak analysis was read from. Every report, `hunt --report` and
// `show` take them from here: the renderers plug in at this one place.

import type { LeakAnalysis } from "../leaks/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { NO_PICTURES, type BugPictures } from "./sections/bugs.js";

/** The pictures of the bugs of `analysis`, read from `db`; none is drawn yet, so each bug view says "no picture". */
export function reportPictures(_db: SchedlabDatabase, _analysis: LeakAnalysis): BugPictures {
  return NO_PICTURES;
}
