// The progress line on a terminal: programs, runs, failures and ETA, redrawn in place.

import type { CollectProgress } from "./types.js";

function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}` : `${m}:${String(s).padStart(2, "0")}`;
}

/** One line of progress, e.g. "[#####-----] programs 3/10  runs 14/50  failures 2  ETA 0:42". */
export function progressLine(p: CollectProgress, width = 20): string {
  const fraction = p.runsTotal === 0 ? 1 : p.runsDone / p.runsTotal;
  const filled = Math.round(fraction * width);
  const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
  const eta = p.etaMs === null ? "ETA --:--" : `ETA ${clock(p.etaMs)}`;
  return `${bar} programs ${p.programsDone}/${p.programsTotal}  runs ${p.runsDone}/${p.runsTotal}  failures ${p.failures}  ${eta}`;
}

/** A progress callback that redraws one line on `stream` (a TTY), and a function to end the line. */
export function terminalProgress(stream: NodeJS.WriteStream): { update: (p: CollectProgress) => void; done: () => void } {
  let drawn = false;
  let last = 0;
  let pending: CollectProgress | null = null;
  const draw = (p: CollectProgress) => {
    stream.write(`\r${progressLine(p)}\x1b[K`);
    drawn = true;
    last = Date.now();
    pending = null;
  };
  return {
    update: (p) => {
      // At most ~10 redraws a second; the final state is always drawn by done().
      if (Date.now() - last >= 100 || p.runsDone === p.runsTotal) draw(p);
      else pending = p;
    },
    done: () => {
      if (pending !== null) draw(pending);
      if (drawn) stream.write("\n");
    },
  };
}
