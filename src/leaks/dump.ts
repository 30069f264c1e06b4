// Peer detector 1: the goroutine dump collect saves at the end of a run (the harness's
// runtime.Stack(all) for main programs; the crash or test-timeout traceback otherwise).
// Every user goroutine it shows blocked becomes a signature. Pure text parsing.

import { basename } from "node:path";
import type { BlockedSignature } from "./signature.js";

/**
 * Maps a dump's wait status ("chan receive", "sync.WaitGroup.Wait, 2 minutes", …) to the trace's block reason; null for
 * statuses that are not blocks a leak can sit in.
 */
export function traceReasonOfDumpStatus(status: string): string | null {
  const s = status.split(",")[0].trim();
  if (s === "chan send (nil chan)" || s === "chan receive (nil chan)" || s === "select (no cases)") return "forever";
  if (s === "chan send" || s === "chan receive" || s === "select") return s;
  if (s === "sync.Cond.Wait") return "sync.(*Cond).Wait";
  if (s.startsWith("sync.") || s === "semacquire") return "sync";
  return null;
}

/** Standard-library package roots whose goroutines are never the user's (dumps carry no GOROOT to tell otherwise). */
const STD_ROOTS = new Set([
  "runtime",
  "testing",
  "os",
  "internal",
  "net",
  "sync",
  "time",
  "context",
  "io",
  "bufio",
  "syscall",
  "crypto",
  "log",
  "fmt",
  "reflect",
  "encoding",
  "vendor",
  "signal",
]);

function isStdFunction(fn: string): boolean {
  const firstElement = fn.split("/")[0].split(".")[0];
  return STD_ROOTS.has(firstElement);
}

/** Functions of the tracing harness (docs/collect.md): never user goroutines. */
const HARNESS_FRAME = /^main\.schedlabHarness/m;

/**
 * The blocked user goroutines of one dump. A goroutine created by a user function gives
 * its `go` statement's "file.go:LINE"; the main goroutine is the root "main.main"; a
 * goroutine created by testing.(*T).Run is the root named by its Test function frame.
 * `onlyLeaked` keeps only goroutines marked "(leaked)" (the goroutineleak profile).
 */
export function parseGoroutineDump(
  dump: string,
  program: string,
  options: { onlyLeaked?: boolean } = {},
): BlockedSignature[] {
  const found: BlockedSignature[] = [];
  for (const block of dump.split(/\n\s*\n/)) {
    const header = /^goroutine (\d+)(?: [^[\n]*)? \[(.+)\]:$/m.exec(block);
    if (header === null || HARNESS_FRAME.test(block)) continue;
    // The goroutineleak profile (debug=2) marks the goroutines it proved leaked.
    const leaked = header[2].includes(" (leaked)");
    if (options.onlyLeaked === true && !leaked) continue;
    const reason = traceReasonOfDumpStatus(header[2].replace(" (leaked)", ""));
    if (reason === null) continue;
    const lines = block.slice(header.index).split("\n");
    const createdAt = lines.findIndex((l) => l.startsWith("created by "));
    if (createdAt < 0) {
      // Goroutine 1 is the program's root, unless it is a test binary's driver (its main.main runs testing.(*M).Run).
      const isTestDriver = lines.some((l) => l.startsWith("testing."));
      if (header[1] === "1" && !isTestDriver && lines.some((l) => /^main\.(main|schedlabUserMain)\(/.test(l)))
        found.push({ program, siteKey: null, root: "main.main", reason });
      continue;
    }
    const creator = lines[createdAt].slice("created by ".length).replace(/ in goroutine \d+$/, "");
    if (creator.startsWith("testing.")) {
      const test = lines
        .map((l) => /^((?:\S+\.)?Test\w*)\(/.exec(l))
        .find((m) => m !== null && !m[1].startsWith("testing."));
      if (test) found.push({ program, siteKey: null, root: test[1], reason });
      continue;
    }
    if (isStdFunction(creator)) continue;
    const where = /([^/\s]+\.go):(\d+)/.exec(lines[createdAt + 1] ?? "");
    if (where) found.push({ program, siteKey: `${basename(where[1])}:${where[2]}`, root: null, reason });
  }
  return found;
}
