// The run agent's side of one traced run: the environment that turns it on, and the profile
// file it leaves beside the trace, moved into place and read (src/collect/agent.ts writes it).
// A profile that does not parse is recorded as absent with the reason, never thrown.

import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import type { ProgramKind } from "../corpus/index.js";
import { AGENT_ENV, AGENT_PROFILE_SUFFIX } from "./agent.js";
import { parseLeakProfile } from "./leak-profile.js";
import type { RecordedLeakProfile } from "./types.js";

/** The profile file of the run whose trace is `tracePath`, where the agent writes it while the run lasts, and where it stays. */
export function agentProfilePaths(tracePath: string): { readonly partial: string; readonly final: string } {
  const final = `${tracePath}${AGENT_PROFILE_SUFFIX}`;
  return { partial: `${final}.partial`, final };
}

/**
 * The agent's environment for a run: its profile file, the watchdog on, and, for a test
 * binary, the dump file and the deadline (a main program's harness gets both already).
 */
export function agentRunEnv(
  kind: ProgramKind,
  tracePath: string,
  dumpPath: string,
  timeoutMs: number,
): Record<string, string> {
  return {
    [AGENT_ENV.profile]: agentProfilePaths(tracePath).partial,
    [AGENT_ENV.watch]: "1",
    ...(kind === "test" ? { [AGENT_ENV.dump]: dumpPath, [AGENT_ENV.deadlineMs]: String(timeoutMs) } : {}),
  };
}

/** Removes every profile file of the run (stale ones before it starts; all of them when it was aborted). */
export function removeAgentProfile(tracePath: string): void {
  const { partial, final } = agentProfilePaths(tracePath);
  for (const file of [final, partial, `${partial}.tmp`]) rmSync(file, { force: true });
}

/**
 * Moves the profile the run's agent wrote into place beside the trace and reads it: the
 * recorded profile, or null with a note for the run's stderr tail when there is none to
 * record (none written: a crash, a build without the profile) or it does not parse.
 */
export function keepAgentProfile(
  tracePath: string,
  goroot: string,
): { readonly leakProfile: RecordedLeakProfile | null; readonly note: string } {
  const { partial, final } = agentProfilePaths(tracePath);
  rmSync(`${partial}.tmp`, { force: true });
  if (!existsSync(partial)) return { leakProfile: null, note: "" };
  renameSync(partial, final);
  try {
    const parsed = parseLeakProfile(readFileSync(final, "utf8"), { goroot });
    return { leakProfile: { path: final, ...parsed }, note: "" };
  } catch (error) {
    return { leakProfile: null, note: `\nschedlab: ${(error as Error).message} (${final})` };
  }
}
