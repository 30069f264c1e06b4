// Test helper: parses Go goroutine dumps (runtime.Stack(all) or a test-timeout panic)
// into the blocked user goroutines a kernel's manifest should list.

import type { ExpectedBlockReason } from "../../src/corpus/manifest.js";

export interface BlockedGoroutine {
  readonly creator: string;
  /** "file.go:LINE" (basename) of the `go` statement; null for the test's own goroutine. */
  readonly site: string | null;
  readonly reason: ExpectedBlockReason;
}

/** Maps a dump's wait status to the block reason an execution trace reports. */
export function traceReasonOfStatus(status: string): ExpectedBlockReason | null {
  const s = status.split(",")[0].trim();
  if (s === "chan send (nil chan)" || s === "chan receive (nil chan)" || s === "select (no cases)") return "forever";
  if (s === "chan send" || s === "chan receive" || s === "select" || s === "sleep") return s;
  if (s === "sync.Cond.Wait") return "sync.(*Cond).Wait";
  if (s.startsWith("sync.") || s === "semacquire") return "sync";
  return null;
}

/**
 * The blocked goroutines of `pkg` in `dump`: those created by a function of `pkg`,
 * plus the goroutine running one of `pkg`'s Test functions (creator = that function,
 * site null) and, for pkg "main", main's own goroutine (creator "main.main", site null).
 * Sorted and de-duplicated by (creator, site, reason).
 */
export function blockedUserGoroutines(dump: string, pkg: string): BlockedGoroutine[] {
  const found = new Map<string, BlockedGoroutine>();
  for (const block of dump.split(/\n\s*\n/)) {
    const header = /^goroutine \d+(?: [^[]*)? \[([^\]]+)\]:/m.exec(block);
    if (!header) continue;
    const reason = traceReasonOfStatus(header[1]);
    if (reason === null) continue;
    const lines = block.split("\n");
    const createdAt = lines.findIndex((l) => l.startsWith("created by "));
    let entry: BlockedGoroutine | null = null;
    if (createdAt >= 0) {
      const creator = lines[createdAt].slice("created by ".length).replace(/ in goroutine \d+$/, "");
      const where = /([^/\s]+\.go):(\d+)/.exec(lines[createdAt + 1] ?? "");
      if (creator.startsWith(`${pkg}.`) && where) entry = { creator, site: `${where[1]}:${where[2]}`, reason };
      else if (creator.startsWith("testing.")) {
        const test = lines.map((l) => new RegExp(`^(${escape(pkg)}\\.Test\\w+)\\(`).exec(l)).find((m) => m !== null);
        if (test) entry = { creator: test[1], site: null, reason };
      }
    } else if (pkg === "main" && lines.some((l) => l.startsWith("main.main()"))) {
      entry = { creator: "main.main", site: null, reason };
    }
    if (entry) found.set(`${entry.creator}|${entry.site}|${entry.reason}`, entry);
  }
  return [...found.values()].sort((a, b) => key(a).localeCompare(key(b)));
}

export function key(g: BlockedGoroutine): string {
  return `${g.creator}|${g.site ?? "-"}|${g.reason}`;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
