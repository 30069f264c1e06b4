// Peer detectors whose output collect writes beside a run's trace (collect --peers):
// go.uber.org/goleak's report and the goroutineleak profile of a
// GOEXPERIMENT=goroutineleakprofile build. Here: where each file lives and how it reads.

import { parseGoroutineDump } from "./dump.js";
import type { BlockedSignature } from "./signature.js";

export type PeerName = "goleak" | "leakprofile";

export interface PeerArtifact {
  readonly name: PeerName;
  /** The file collect writes for a run, from the run's trace path. */
  readonly pathOf: (tracePath: string) => string;
}

/** Invariant shared with src/collect/peers.ts: the artifact sits beside the trace with this suffix. */
export const PEER_ARTIFACTS: readonly PeerArtifact[] = [
  { name: "goleak", pathOf: (trace) => `${trace}.goleak.txt` },
  { name: "leakprofile", pathOf: (trace) => `${trace}.goroutineleak.txt` },
];

/**
 * goleak's report ("found unexpected goroutines: [Goroutine 6 in state chan send, with
 * main.f on top of the stack: <stack> …]") rewritten as a goroutine dump and parsed as one.
 * An empty file means goleak ran and found nothing.
 */
export function parseGoleakReport(report: string, program: string): BlockedSignature[] {
  const asDump = report.replace(
    /(?:^|\n)\s*\[?\s*Goroutine (\d+) in state ([^,\n]+(?:, \d+ \w+)?), with \S+ on top of the stack:\n/g,
    "\n\ngoroutine $1 [$2]:\n",
  );
  return parseGoroutineDump(asDump, program);
}

/** The signatures in a peer's artifact. */
export function parsePeerArtifact(peer: PeerName, text: string, program: string): BlockedSignature[] {
  switch (peer) {
    case "goleak":
      return parseGoleakReport(text, program);
    case "leakprofile":
      return parseGoroutineDump(text, program, { onlyLeaked: true });
  }
}
