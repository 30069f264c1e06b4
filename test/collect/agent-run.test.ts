// The run agent's side of a run: its environment per program kind, and the profile file moved
// beside the trace and read — recorded when it parses, absent with the reason when it does not,
// absent without a word when the run wrote none.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { agentProfilePaths, agentRunEnv, keepAgentProfile } from "../../src/collect/index.js";

const dirs: string[] = [];
function traceIn(): string {
  const dir = mkdtempSync(join(tmpdir(), "schedlab-agent-run-"));
  dirs.push(dir);
  return join(dir, "run-0.trace");
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("agentRunEnv", () => {
  it("gives a test binary the dump and the deadline too; a main program's harness has them already", () => {
    expect(agentRunEnv("test", "/t/run-0.trace", "/t/run-0.dump.partial", 600_000)).toEqual({
      SCHEDLAB_AGENT_PROFILE: "/t/run-0.trace.goroutineleak.txt.partial",
      SCHEDLAB_AGENT_WATCH: "1",
      SCHEDLAB_DUMP: "/t/run-0.dump.partial",
      SCHEDLAB_DEADLINE_MS: "600000",
    });
    expect(agentRunEnv("main", "/t/run-0.trace", "/t/run-0.dump.partial", 3_000)).toEqual({
      SCHEDLAB_AGENT_PROFILE: "/t/run-0.trace.goroutineleak.txt.partial",
      SCHEDLAB_AGENT_WATCH: "1",
    });
  });
});

describe("keepAgentProfile", () => {
  it("moves the profile beside the trace and records what it shows", () => {
    const trace = traceIn();
    const profile = readFileSync(
      fileURLToPath(new URL("../fixtures/leak-profiles/main-end.txt", import.meta.url)),
      "utf8",
    );
    writeFileSync(agentProfilePaths(trace).partial, profile);
    const kept = keepAgentProfile(trace, "/usr/local/go");
    expect(kept.note).toBe("");
    expect(kept.leakProfile).toEqual({
      path: `${trace}.goroutineleak.txt`,
      taken: "end",
      goroutines: [{ gid: 9, wait: "chan send", leaked: true, top: "main.start.func1 main.go:13" }],
    });
    expect(existsSync(agentProfilePaths(trace).partial)).toBe(false);
  });

  it("records a profile that does not parse as absent, with the reason for the stderr tail", () => {
    const trace = traceIn();
    writeFileSync(agentProfilePaths(trace).partial, "goroutine 1 [runn");
    const kept = keepAgentProfile(trace, "/usr/local/go");
    expect(kept.leakProfile).toBeNull();
    expect(kept.note).toMatch(/^\nschedlab: the goroutine leak profile does not parse: its first line is not/);
    expect(kept.note).toContain(`${trace}.goroutineleak.txt`);
  });

  it("says nothing when the run wrote no profile", () => {
    expect(keepAgentProfile(traceIn(), "/usr/local/go")).toEqual({ leakProfile: null, note: "" });
  });
});
