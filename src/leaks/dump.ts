// Peer detector 1: the goroutine dump collect saves at the end of a run (the harness's
// runtime.Stack(all) for main programs; the crash or test-timeout traceback otherwise).
// Every user goroutine it shows blocked becomes a signature. Pure text parsing.

import { basename } from "node:path";
import { traceReasonOfDumpStatus } from "../model/index.js";
import type { BlockedSignature } from "./signature.js";

/**
 * Creators whose goroutines are the runtime's or the toolchain's own, never the program's:
 * the runtime, the testing driver, signal.Notify's loop, time.AfterFunc's timers and the
 * execution tracer. A goroutine another standard-library function starts on the program's
 * behalf (net/http's connection goroutines, an httptest server) is kept: peers report it,
 * and a server never shut down is a finding (its site is then the library's `go` statement).
 */
const RUNTIME_CREATORS = /^(?:runtime(?:\/trace)?\.|testing\.|os\/signal\.|time\.goFunc|internal\/)/;

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
    if (RUNTIME_CREATORS.test(creator)) continue;
    const where = /([^/\s]+\.go):(\d+)/.exec(lines[createdAt + 1] ?? "");
    if (where) found.push({ program, siteKey: `${basename(where[1])}:${where[2]}`, root: null, reason });
  }
  return found;
}
