// The run agent's contract on the TypeScript side: the Go source keeps to the rules that let
// it join any package at any language version, the headers it writes are recognised, a hang it
// proved is a timeout stopped for 'hang', and a toolchain without the profile is said once.

import { describe, expect, it } from "vitest";
import {
  AGENT_DUMP_HEADER,
  AGENT_HANG_EXIT_CODE,
  agentSource,
  agentStoppedHung,
  classifyOutcome,
  HARNESS_SOURCE,
  HARNESS_TIMEOUT_EXIT_CODE,
  leakProfileUnavailable,
  normalizeCollectOptions,
  type RunEvidence,
} from "../../src/collect/index.js";
import { UsageError } from "../../src/errors.js";

/** The Go identifiers a file declares at top level (funcs, vars, types, consts, in groups too). */
function topLevelNames(source: string): string[] {
  const names: string[] = [];
  let group: string | null = null;
  for (const line of source.split("\n")) {
    if (group !== null) {
      if (line === ")") group = null;
      else if (group !== "import" && /^\t[A-Za-z_]\w*/.test(line)) names.push(/^\t([A-Za-z_]\w*)/.exec(line)![1]);
      continue;
    }
    const opened = /^(var|const|type|import) \($/.exec(line);
    if (opened !== null) group = opened[1];
    const single = /^(?:func|var|const|type) ([A-Za-z_]\w*)/.exec(line);
    if (single !== null) names.push(single[1]);
  }
  return names;
}

describe("agentSource", () => {
  const sources = {
    main: agentSource("main", "main"),
    test: agentSource("test", "store_test"),
    ownTestMain: agentSource("test", "store", true),
  };

  it("declares only schedlabAgent… names (and TestMain in a test package), imports aliased alike", () => {
    for (const [kind, source] of Object.entries(sources)) {
      const names = topLevelNames(source).filter((n) => !(kind !== "main" && (n === "TestMain" || n === "init")));
      expect(names.length, kind).toBeGreaterThan(10);
      for (const name of names) expect(name, `${kind}: ${name}`).toMatch(/^schedlabAgent/);
      const imports = /import \(\n([^)]*)\)/.exec(source)![1].trim().split("\n");
      for (const spec of imports) expect(spec.trim(), kind).toMatch(/^schedlabAgent\w+ "[\w/]+"$/);
    }
    expect(sources.main).not.toContain("TestMain");
    expect(sources.main).toMatch(/^package main$/m);
    expect(sources.test).toMatch(/^package store_test$/m);
  });

  it("compiles at go 1.12: no any, no generics, no min/max builtins, no 0o literals", () => {
    for (const text of Object.values(sources)) {
      const source = text.replace(/\/\/.*$/gm, "");
      expect(source).not.toMatch(/\bany\b/);
      expect(source).not.toMatch(/\[\w+ (any|comparable|interface)/);
      expect(source).not.toMatch(/[^.\w](min|max)\(/);
      expect(source).not.toMatch(/\b0o\d/);
    }
  });

  it("starts no goroutine of its own: probes and the deadline profile run from time.AfterFunc", () => {
    for (const source of Object.values(sources)) expect(source).not.toMatch(/\bgo [\w.]+\(/);
    expect(sources.test).toContain("AfterFunc(schedlabAgentInterval, schedlabAgentProbe)");
    expect(sources.test).toContain("AfterFunc(deadline-lead, schedlabAgentBeforeDeadline)");
  });

  it("wraps the package's own TestMain when it has one, else runs the tests itself", () => {
    expect(sources.test).toContain("\tcode := m.Run()\n");
    expect(sources.test).not.toContain("schedlabUserTestMain");
    expect(sources.ownTestMain).toContain("\tschedlabUserTestMain(m)\n");
    expect(sources.ownTestMain).not.toContain("m.Run()");
  });

  it("the harness drives it: begins after the trace starts, ends after it stops, stops a hang through the harness", () => {
    expect(HARNESS_SOURCE).toContain("schedlabAgentBegin(true, schedlabHarnessHang)");
    expect(HARNESS_SOURCE).toContain('schedlabAgentEnd("end")');
    expect(HARNESS_SOURCE).toContain('schedlabAgentEnd("deadline")');
  });
});

describe("a hang the agent proved", () => {
  const evidence: RunEvidence = {
    kind: "test",
    exitCode: AGENT_HANG_EXIT_CODE,
    exitSignal: null,
    enforcement: "none",
    harnessStop: null,
    agentHang: true,
    output: "schedlab-agent: the runtime proved this run hung",
  };

  it("is recognised by the dump's first line", () => {
    expect(agentStoppedHung(`${AGENT_DUMP_HEADER}code=125 wait="chan receive" after=112ms\ngoroutine 1 [`)).toBe(true);
    expect(agentStoppedHung("# schedlab-harness stop=deadline code=124\n")).toBe(false);
    expect(agentStoppedHung("panic: test timed out after 2s\n")).toBe(false);
  });

  it("is a timeout, for a test binary and a main program alike; a kill still wins", () => {
    expect(classifyOutcome(evidence)).toBe("timeout");
    expect(classifyOutcome({ ...evidence, kind: "main" })).toBe("timeout");
    expect(classifyOutcome({ ...evidence, enforcement: "sigkill", exitCode: null })).toBe("killed");
    expect(classifyOutcome({ ...evidence, agentHang: false })).toBe("exit-error");
    expect(AGENT_HANG_EXIT_CODE).not.toBe(HARNESS_TIMEOUT_EXIT_CODE);
  });
});

describe("leakProfileUnavailable", () => {
  it("says why hangs cannot be proven before Go 1.26, and nothing from 1.26", () => {
    expect(leakProfileUnavailable("go1.25.4")).toMatch(
      /^go1\.25\.4 has no goroutine leak profile .*the run agent cannot prove a hang, so a deadlocked run waits for its deadline/,
    );
    expect(leakProfileUnavailable("go1.26.8")).toBeNull();
    expect(leakProfileUnavailable("go1.27.3")).toBeNull();
  });
});

describe("the leakProfile option (collect and hunt --no-leak-profile)", () => {
  it("is on by default, off when asked", () => {
    expect(normalizeCollectOptions({ paths: ["."] }).leakProfile).toBe(true);
    expect(normalizeCollectOptions({ paths: ["."], leakProfile: false }).leakProfile).toBe(false);
  });

  it("refuses the leakprofile peer without the agent whose profile it reads", () => {
    expect(() => normalizeCollectOptions({ paths: ["."], leakProfile: false, peers: ["leakprofile"] })).toThrow(
      UsageError,
    );
    expect(() => normalizeCollectOptions({ paths: ["."], leakProfile: false, peers: ["leakprofile"] })).toThrow(
      /--peers leakprofile reads the run agent's goroutine leak profile/,
    );
    expect(normalizeCollectOptions({ paths: ["."], leakProfile: false, peers: ["goleak"] }).peers).toEqual(["goleak"]);
  });
});
