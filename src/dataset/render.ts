// Prompt rendering: a compact, token-budgeted, deterministic text form of a trace prefix
// (goroutine states from the scheduler tracker plus the most recent records) for language
// models. Tokens are approximated as characters / 4.

import {
  EVENT_TYPES,
  applyRecord,
  goroutineState,
  isEventType,
  knownGoroutines,
  newSchedulerTracker,
  snapshotCounts,
  type GoroutineRecord,
} from "../core/index.js";
import type { Prefix } from "./types.js";

export interface RenderOptions {
  /** Upper bound on the rendering's length in approximate tokens (chars / 4). Default 1024. */
  readonly maxTokens?: number;
}

export const DEFAULT_MAX_TOKENS = 1024;

/** The closing line of every rendering. */
export const NEXT_EVENT_QUESTION = `Which event happens next? Answer with one of: ${EVENT_TYPES.join(", ")}.`;

/** Approximate token count of `text` (characters / 4, rounded up). */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Renders `prefix` in at most `maxTokens` approximate tokens: a header, the live
 * goroutines with their states, and as many of the most recent records as fit (newest
 * kept), then NEXT_EVENT_QUESTION. Goroutines are named g1, g2, … in order of first
 * appearance in the prefix, so renderings of different runs line up. Same input, same text.
 */
export function renderPrefix(prefix: Prefix, options: RenderOptions = {}): string {
  const budget = Math.max(1, options.maxTokens ?? DEFAULT_MAX_TOKENS) * 4;
  const records = prefix.records;
  const end = Math.min(prefix.end, records.length);
  const tracker = newSchedulerTracker();
  for (let i = 0; i < end; i++) applyRecord(tracker, records[i]);

  const shortIds = new Map<number, string>();
  for (const gid of knownGoroutines(tracker)) shortIds.set(gid, `g${shortIds.size + 1}`);
  const entries = new Map<number, string>();
  for (const info of prefix.goroutines ?? []) if (info.entry) entries.set(info.goroutine, info.entry);

  const eventCount = countEvents(records, end);
  const counts = snapshotCounts(tracker);
  const waits = Object.entries(counts.waitingByReason).map(([r, n]) => `${r === "" ? "unspecified" : r}=${n}`);
  const header = [
    `program ${prefix.program}, GOMAXPROCS=${prefix.procs}, ${eventCount} events so far`,
    `goroutines: running=${counts.running} runnable=${counts.runnable} ` +
      `waiting=${counts.waiting}${waits.length > 0 ? ` (${waits.join(", ")})` : ""} syscall=${counts.syscall} ` +
      `created=${counts.created} ended=${counts.ended}`,
  ];
  const goroutineLines: string[] = [];
  for (const gid of knownGoroutines(tracker)) {
    const state = goroutineState(tracker, gid);
    if (state === undefined || state.status === "ended") continue;
    const entry = entries.get(gid);
    const reason = state.status === "waiting" ? ` (${state.reason === "" ? "unspecified" : state.reason})` : "";
    goroutineLines.push(`${shortIds.get(gid)}${entry ? ` ${entry}` : ""}: ${state.status}${reason}`);
  }

  // Every committed line costs its length plus one newline; the footer is always kept.
  const footer = NEXT_EVENT_QUESTION;
  const cost = (line: string): number => line.length + 1;
  let used = header.reduce((sum, line) => sum + cost(line), 0) + footer.length;
  const lines = [...header];
  // Live goroutines first (they are the state), then recent events with what is left.
  const goroutineTitle = "live goroutines:";
  if (goroutineLines.length > 0 && used + cost(goroutineTitle) <= budget) {
    used += cost(goroutineTitle);
    lines.push(goroutineTitle);
    for (let i = 0; i < goroutineLines.length; i++) {
      const line = goroutineLines[i];
      const rest = goroutineLines.length - i;
      const elision = `… ${rest} more live goroutines`;
      const reserve = rest > 1 ? cost(`… ${rest - 1} more live goroutines`) : 0;
      if (used + cost(line) + reserve > budget) {
        if (used + cost(elision) <= budget) {
          lines.push(elision);
          used += cost(elision);
        }
        break;
      }
      lines.push(line);
      used += cost(line);
    }
  }

  const recentTitle = "recent events (oldest first):";
  const recent: string[] = [];
  let recentUsed = cost(recentTitle);
  for (let i = end - 1; i >= 0; i--) {
    const record = records[i];
    if (record.kind === "Initial") continue;
    const line = recordLine(record, shortIds);
    if (used + recentUsed + cost(line) > budget) break;
    recent.push(line);
    recentUsed += cost(line);
  }
  if (recent.length > 0) lines.push(recentTitle, ...recent.reverse());
  lines.push(footer);
  const text = lines.join("\n");
  // Only when even the header does not fit: keep the end, which holds the question.
  return text.length <= budget ? text : text.slice(text.length - budget);
}

function countEvents(records: readonly GoroutineRecord[], end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (isEventType(records[i].kind)) n++;
  return n;
}

function recordLine(record: GoroutineRecord, shortIds: ReadonlyMap<number, string>): string {
  const parts: string[] = [record.kind, shortIds.get(record.goroutine) ?? `g?${record.goroutine}`];
  if (record.kind === "GoCreate" && record.actor !== null) parts.push(`by ${shortIds.get(record.actor) ?? "runtime"}`);
  if (record.kind === "GoUnblock")
    parts.push(`by ${record.actor === null ? "runtime" : (shortIds.get(record.actor) ?? "runtime")}`);
  if (record.reason !== "" && (record.kind === "GoBlock" || record.kind === "GoSched"))
    parts.push(`"${record.reason}"`);
  if (record.site !== null && record.site !== "") parts.push(`at ${shortSite(record.site)}`);
  return parts.join(" ");
}

/** "main.worker /home/u/prog/main.go:12" → "main.worker main.go:12": directories only cost tokens. */
export function shortSite(site: string): string {
  return site.replace(/(?:[^\s:]*\/)+([^\s/]+\.go:\d+)/g, "$1");
}
