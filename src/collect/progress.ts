// The text of collect's progress: the status line (programs, runs, failures and ETA; with a
// budget: the budget spent, findings, and the program being explored) and one line per explored
// program. The CLI's progress writer redraws the status line in place.

import type { CollectProgress, ExplorationSummary } from "./types.js";

function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}` : `${m}:${String(s).padStart(2, "0")}`;
}

/**
 * One line of progress, e.g. "[#####-----] programs 3/10  runs 14/50  failures 2  ETA 0:42",
 * or with a budget "[##--------] programs 3/10  budget 1:12/5:00  findings 2  runs 57 |
 * kernels/abba/transfer 12.4s/30s procs-2-perturb-count-20".
 */
export function progressLine(p: CollectProgress, width = 20): string {
  if (p.budget !== undefined) {
    const b = p.budget;
    const filled = Math.round((b.totalMs === 0 ? 1 : Math.min(1, b.spentMs / b.totalMs)) * width);
    const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
    const current = b.current === null ? "" : ` | ${b.current.program} ${seconds(b.current.spentMs)}/${seconds(b.current.budgetMs)} ${b.current.config}`;
    return `${bar} programs ${p.programsDone}/${p.programsTotal}  budget ${clock(b.spentMs)}/${clock(b.totalMs)}  findings ${b.findings}  runs ${p.runsDone}${current}`;
  }
  const fraction = p.runsTotal === 0 ? 1 : p.runsDone / p.runsTotal;
  const filled = Math.round(fraction * width);
  const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
  const eta = p.etaMs === null ? "ETA --:--" : `ETA ${clock(p.etaMs)}`;
  return `${bar} programs ${p.programsDone}/${p.programsTotal}  runs ${p.runsDone}/${p.runsTotal}  failures ${p.failures}  ${eta}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
}

/**
 * One line per explored program, e.g. "kernels/abba/transfer: finding after 3.1s, 7 runs
 * (procs-2-perturb-count-20 seed 2): 2 goroutine(s) blocked in sync at transfer_test.go:28
 * — replay: schedlab collect --replay 57 --db schedlab.db".
 */
export function explorationLine(e: ExplorationSummary): string {
  const runs = (n: number) => `${n} run${n === 1 ? "" : "s"}`;
  const unavailable = e.unavailable.length === 0 ? "" : ` (not built: ${e.unavailable.map((u) => u.split(":")[0]).join(", ")})`;
  if (e.status === "build-error") return `${e.program}: build error`;
  if (e.finding === null) return `${e.program}: no finding in ${seconds(e.spentMs)}, ${runs(e.runs)}, of a ${seconds(e.budgetMs)} budget${unavailable}`;
  const f = e.finding;
  const what = f.check.finding === "race"
    ? `${f.check.races} data race report(s)`
    : `${f.check.blocked.length} goroutine(s) blocked in ${[...new Set(f.check.blocked.map((b) => b.reason))].join(", ")} at ${[...new Set(f.check.blocked.map((b) => shortSite(b.site)))].slice(0, 3).join(", ")}`;
  const when = f.atMs === null || f.atRun === null ? "finding (recorded earlier)" : `finding after ${seconds(f.atMs)}, ${runs(f.atRun)}`;
  const rest = f.atRun !== null && e.runs > f.atRun ? `; ${seconds(e.spentMs)}, ${runs(e.runs)} in all` : "";
  return `${e.program}: ${when} (${f.config}${f.seed === null ? "" : ` seed ${f.seed}`})${rest}: ${what} — replay: ${f.replay}${unavailable}`;
}

/** "pkg.Func file.go:12" → "file.go:12". */
function shortSite(site: string | null): string {
  if (site === null) return "?";
  const space = site.lastIndexOf(" ");
  return space < 0 ? site : site.slice(space + 1);
}
