// Decoding the committed fixture traces: golden output, mapping, filtering, identities.

import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isGcPreemption } from "../../src/trace/load.js";
import { decodeAll, fixture, renderDecoded } from "./helpers.js";

const ids = (d: Awaited<ReturnType<typeof decodeAll>>) => d.summary.goroutines.map((g) => g.canonicalId).sort();

describe("decodeTrace on committed fixtures", () => {
  for (const [name, mode] of [
    ["tree", "main"],
    ["harness", "main"],
    ["testpkg", "test"],
    ["generations", "main"],
    ["gcpreempt", "main"],
  ] as const) {
    it(`matches the golden decode of ${name}.trace`, async () => {
      const text = renderDecoded(await decodeAll(fixture(`${name}.trace`), { mode, goroot: "/usr/local/go" }));
      const golden = fixture(`${name}.golden.txt`);
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden, text);
      expect(text).toBe(readFileSync(golden, "utf8"));
    });
  }

  it("names goroutines by their creation path from main.main", async () => {
    const d = await decodeAll(fixture("tree.trace"), { mode: "main" });
    expect(ids(d)).toEqual([
      "main.main",
      "main.main/main.main.func1@main.go:44#0",
      "main.main/main.main.func2@main.go:59#0",
      "main.main/main.worker@main.go:39#0",
      "main.main/main.worker@main.go:39#0/main.helper@main.go:20#0",
      "main.main/main.worker@main.go:39#1",
      "main.main/main.worker@main.go:39#2",
    ]);
    expect(d.summary.status).toBe("ok");
    expect(d.records.map((r) => r.seq)).toEqual(d.records.map((_, i) => i));
  });

  it("keeps block reasons, blocking sites, yields and actors", async () => {
    const d = await decodeAll(fixture("tree.trace"), { mode: "main" });
    const byId = new Map(d.summary.goroutines.map((g) => [g.canonicalId, g.goroutine]));
    const leak = byId.get("main.main/main.main.func2@main.go:59#0")!;
    const leakEvents = d.records.filter((r) => r.goroutine === leak).map((r) => [r.kind, r.reason, r.site]);
    // the leaked goroutine is created, started, blocks for good at its select and never ends
    expect(leakEvents).toEqual([
      ["GoCreate", "", "main.main main.go:59"],
      ["GoStart", "", null],
      ["GoBlock", "chan receive", "main.main.func2 main.go:61"],
    ]);
    const holder = byId.get("main.main/main.main.func1@main.go:44#0")!;
    const sched = d.records.filter((r) => r.goroutine === holder && r.kind === "GoSched");
    expect(sched.map((r) => [r.reason, r.site])).toEqual([["runtime.Gosched", "main.main.func1 main.go:46"]]);
    const mutexBlock = d.records.find((r) => r.goroutine === holder && r.kind === "GoBlock");
    expect(mutexBlock?.reason).toBe("sync");
    const root = byId.get("main.main")!;
    for (const create of d.records.filter(
      (r) =>
        r.kind === "GoCreate" &&
        r.goroutine !== byId.get("main.main/main.worker@main.go:39#0/main.helper@main.go:20#0"),
    )) {
      expect(create.actor).toBe(root);
    }
    // the timer wakes main from time.Sleep: no goroutine acted
    const sleep = d.records.findIndex((r) => r.goroutine === root && r.kind === "GoBlock" && r.reason === "sleep");
    const wake = d.records.slice(sleep).find((r) => r.goroutine === root && r.kind === "GoUnblock");
    expect(wake?.actor).toBeNull();
    expect(d.records[0]).toMatchObject({ kind: "Initial", goroutine: root, reason: "Running" });
  });

  it("tells a GC stack-scan suspension (GoBlock preempted) from a real block", async () => {
    const d = await decodeAll(fixture("gcpreempt.trace"), { mode: "main" });
    const suspensions = d.records.filter(isGcPreemption);
    expect(suspensions.length).toBeGreaterThanOrEqual(1);
    for (const block of suspensions) {
      expect(block.site).toMatch(/^main\.(spin|main) main\.go:\d+$/);
      // woken by the GC, not by a user goroutine
      const wake = d.records.find(
        (r) => r.seq > block.seq && r.goroutine === block.goroutine && r.kind === "GoUnblock",
      );
      expect(wake?.actor).toBeNull();
    }
    expect(
      d.records.filter((r) => r.kind === "GoBlock" && !isGcPreemption(r)).every((r) => r.reason !== "preempted"),
    ).toBe(true);
  });

  it("maps the harness's renamed main back to main.main and drops harness goroutines", async () => {
    const d = await decodeAll(fixture("harness.trace"), { mode: "main" });
    expect(ids(d)).toEqual([
      "main.main",
      "main.main/main.main.func1@main.go:14#0",
      "main.main/main.main.func1@main.go:14#1",
    ]);
    const text = renderDecoded(d);
    expect(text).not.toContain("schedlabUserMain");
    expect(text).not.toContain("schedlabHarness");
  });

  it("roots test binaries at each TestXxx goroutine and drops the testing driver", async () => {
    const d = await decodeAll(fixture("testpkg.trace"), { mode: "test" });
    expect(ids(d)).toEqual([
      "(test)",
      "TestWorkers",
      "TestWorkers/testpkg.TestWorkers.func1@pkg_test.go:24#0",
      "TestWorkers/testpkg.TestWorkers.func1@pkg_test.go:24#1",
      "TestWorkers/testpkg.TestWorkers.func2@pkg_test.go:32#0",
      "TestWorkers/testpkg.TestWorkers.func2@pkg_test.go:32#0/testpkg.TestWorkers.func2.1@pkg_test.go:34#0",
    ]);
    const roots = d.summary.goroutines.filter((g) => g.isRoot);
    expect(roots).toHaveLength(2);
    // goroutine 1 (the testing driver) is not a user goroutine
    expect(d.records.some((r) => r.goroutine === 1)).toBe(false);
  });

  it("names a quiet test from the expected test order when its own stacks never do", async () => {
    const d = await decodeAll(fixture("testpkg.trace"), { mode: "test", testNames: ["TestQuiet", "TestWorkers"] });
    expect(ids(d).slice(0, 2)).toEqual(["TestQuiet", "TestWorkers"]);
  });

  it("detects test binaries in auto mode", async () => {
    const auto = await decodeAll(fixture("testpkg.trace"));
    const explicit = await decodeAll(fixture("testpkg.trace"), { mode: "test" });
    expect(renderDecoded(auto)).toBe(renderDecoded(explicit));
    const main = await decodeAll(fixture("tree.trace"));
    expect(ids(main)[0]).toBe("main.main");
  });

  it("applies a custom filter: keeping the trace writer adds it as a user goroutine", async () => {
    const d = await decodeAll(fixture("tree.trace"), {
      mode: "main",
      filter: { drop: ["runtime.*"], keep: ["runtime.main"] },
    });
    expect(ids(d).some((id) => id.includes("runtime/trace") || id.includes("trace.(*traceMultiplexer)"))).toBe(true);
  });
});
