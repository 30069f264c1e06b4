// Wait sites read by the real Go helper from the fixture package, and found again at the
// blocking sites of a real trace of that package.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { goHelperPath } from "../../src/gohelper/index.js";
import {
  loadWaitSites,
  parseWaitSites,
  waitSiteAt,
  waitSites,
  type WaitSite,
  type WaitSiteIndex,
} from "../../src/model/wait-sites.js";
import { collectFixtures, type Collected } from "./collected.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/wait-sites/", import.meta.url));
const FILES = readdirSync(FIXTURE).filter((f) => f.endsWith(".go"));

let index: WaitSiteIndex;
let helper: string;

beforeAll(async () => {
  helper = await goHelperPath();
  index = waitSites(FIXTURE, FILES, helper);
});

/** function kind@line, "!" for a non-blocking select, T timed, C context, then the cases. */
function summary(s: WaitSite): string {
  const flags = `${s.blocking ? "" : "!"}${s.timed ? " T" : ""}${s.context ? " C" : ""}`;
  const cases = s.cases.map(
    (c) => `${String(c.line)} ${c.op} ${c.operand}${c.timed ? " T" : ""}${c.context ? " C" : ""}`,
  );
  return `${s.function} ${s.kind}@${String(s.line)}${flags}${cases.length === 0 ? "" : ` {${cases.join("; ")}}`}`;
}

describe("wait sites of the fixture package", () => {
  test("every blocking operation is listed at its traced line, with its timer and context cases", () => {
    expect(index.errors).toEqual([]);
    expect(index.sites.map(summary)).toEqual([
      "tickerLoop select@16 T {17 recv t.C T; 18 recv quit}",
      "afterSelect select@25 T {26 recv results; 28 recv time.After(time.Hour) T}",
      "contextSelect select@34 C {35 recv ctx.Done() C; 36 send jobs}",
      "plainSelect select@41 {42 recv a; 43 recv b}",
      "defaultSelect select@49! {50 recv a}",
      "bareAfter recv@58 T",
      "rangeTicker range@63 T",
      "untimedRecv recv@68",
    ]);
    for (const s of index.sites)
      expect(s).toMatchObject({ file: "main.go", path: join(FIXTURE, "main.go"), package: "main" });
  });

  test("operands that are variables or parameters have a channel class; timers and Done() have none", () => {
    expect(
      index.sites.map(
        (s) => `${s.function} ${s.channels.join(",")} [${s.cases.map((c) => c.channel ?? "-").join(",")}]`,
      ),
    ).toEqual([
      "tickerLoop quit@main.go:12 [-,quit@main.go:12]",
      "afterSelect results@main.go:24 [results@main.go:24,-]",
      "contextSelect jobs@main.go:33 [-,jobs@main.go:33]",
      "plainSelect a@main.go:40,b@main.go:40 [a@main.go:40,b@main.go:40]",
      "defaultSelect a@main.go:48 [a@main.go:48]",
      "bareAfter  []",
      "rangeTicker  []",
      "untimedRecv ch@main.go:67 []",
    ]);
    // Every case of a select is an operation at the select's line, in its function's lines.
    expect(
      index.ops
        .filter((o) => o.function === "contextSelect")
        .map((o) => `${o.op}@${String(o.line)} ${o.channel ?? "-"} ${String(o.funcStart)}-${String(o.funcEnd)}`),
    ).toEqual(["recv@34 - 33-38", "send@34 jobs@main.go:33 33-38"]);
    expect(index.opsByChannel.get("a@main.go:40")?.map((o) => o.function)).toEqual(["plainSelect"]);
    expect(index.functions.map((f) => f.function)).toContain("allWaiting");
  });

  test("parameters that stay in their function are named; the go statements passing them fresh channels are call sites", () => {
    // Every parameter here is given make(chan T): it joins no other class, merged or not.
    expect(
      index.sites
        .filter((s) => s.function === "plainSelect")
        .flatMap((s) => s.cases.map((c) => [c.channel, c.merged, c.param])),
    ).toEqual([
      ["a@main.go:40", "a@main.go:40", { funcId: "plainSelect@main.go:40:1", index: 0 }],
      ["b@main.go:40", "b@main.go:40", { funcId: "plainSelect@main.go:40:1", index: 1 }],
    ]);
    expect(index.sites.find((s) => s.function === "untimedRecv")).toMatchObject({
      merged: ["ch@main.go:67"],
      param: { funcId: "untimedRecv@main.go:67:1", index: 0 },
    });
    expect(
      index.calls.map(
        (c) =>
          `${c.kind}@${String(c.line)} ${c.callee} in ${c.caller} [${c.args.map((a) => `${String(a.index)}:${a.channels.join(",")}`).join(" ")}]`,
      ),
    ).toEqual([
      "go@95 tickerLoop@main.go:12:1 in main@main.go:92:1 [0:]",
      "go@96 afterSelect@main.go:24:1 in main@main.go:92:1 [0:]",
      "go@97 contextSelect@main.go:33:1 in main@main.go:92:1 [1:]",
      "go@98 plainSelect@main.go:40:1 in main@main.go:92:1 [0: 1:]",
      "call@99 defaultSelect@main.go:48:1 in main@main.go:92:1 [0:]",
      "go@102 untimedRecv@main.go:67:1 in main@main.go:92:1 [0:]",
    ]);
  });

  test("sites are looked up by base name and line, with or without function or directory", () => {
    expect(waitSiteAt(index, "main.tickerLoop main.go:16")?.function).toBe("tickerLoop");
    expect(waitSiteAt(index, "main.untimedRecv some/dir/main.go:68")?.kind).toBe("recv");
    expect(waitSiteAt(index, "main.go:63")?.kind).toBe("range");
    expect(waitSiteAt(index, "main.tickerLoop main.go:17")).toBeNull();
    expect(waitSiteAt(index, "main.tickerLoop other.go:16")).toBeNull();
    expect(waitSiteAt(index, "not a site")).toBeNull();
  });

  test("the index is read once per (dir, files)", async () => {
    expect(waitSites(FIXTURE, FILES, helper)).toBe(index);
    expect(await loadWaitSites(FIXTURE, FILES)).toBe(index);
  });

  test("a package whose files do not parse, or a failing helper, gives an empty index", () => {
    const broken = mkdtempSync(join(tmpdir(), "schedlab-wait-sites-"));
    writeFileSync(join(broken, "broken.go"), "package broken\n\nfunc F(ch chan int) {\n\t<-ch\n");
    const parsed = waitSites(broken, ["broken.go"], helper);
    rmSync(broken, { recursive: true, force: true });
    expect(parsed.sites).toEqual([]);
    expect(parsed.errors).toEqual([expect.stringContaining("broken.go:4:7: expected '}'")]);
    expect(waitSites(FIXTURE, ["missing.go"], helper).sites).toEqual([]);
    expect(waitSites(FIXTURE, FILES, "/nonexistent/gohelper").sites).toEqual([]);
    expect(parseWaitSites("not json").sites).toEqual([]);
  });
});

describe("waitSiteAt disambiguation", () => {
  const site = (path: string, pkg: string, fn: string, kind: WaitSite["kind"], column: number): WaitSite => ({
    file: "worker.go",
    path,
    package: pkg,
    function: fn,
    line: 10,
    column,
    kind,
    blocking: true,
    timed: pkg === "pool",
    context: false,
    signal: false,
    cases: [],
    channels: [],
    merged: [],
    param: null,
  });
  const two = parseWaitSites(
    JSON.stringify({
      sites: [
        site("/src/app/pool/worker.go", "pool", "(*Pool).run", "select", 2),
        site("/src/app/queue/worker.go", "queue", "drain", "send", 3),
        site("/src/app/queue/worker.go", "queue", "drain", "recv", 11),
      ],
      errors: [],
    }),
  );

  test("two files with one base name: the function's package picks the file", () => {
    expect(waitSiteAt(two, "example.com/app/pool.(*Pool).run.func1 worker.go:10")?.path).toBe(
      "/src/app/pool/worker.go",
    );
    expect(waitSiteAt(two, "queue.drain worker.go:10")?.path).toBe("/src/app/queue/worker.go");
    expect(waitSiteAt(two, "worker.go:10")).toBeNull();
    expect(waitSiteAt(two, "other.F worker.go:10")).toBeNull();
  });

  test("two operations on one line: the block reason picks the operation", () => {
    expect(waitSiteAt(two, "queue.drain worker.go:10", "chan receive")?.kind).toBe("recv");
    expect(waitSiteAt(two, "queue.drain worker.go:10", "chan send")?.kind).toBe("send");
    expect(waitSiteAt(two, "queue.drain worker.go:10")?.kind).toBe("send");
  });
});

describe("wait sites at the blocking sites of a real trace", () => {
  let collected: Collected;
  let blocks: { reason: string; site: string }[];

  beforeAll(async () => {
    collected = await collectFixtures([FIXTURE], { runs: 1, timeoutMs: 20_000 });
    // Blocks in the user's own channel operations: the runtime's channel or select function
    // is the innermost frame. A goroutine that starts a GC cycle waits on a channel inside the
    // library call that allocated (gcBgMarkStartWorkers' <-ready under time.After, ctx.Done(),
    // runtime.Stack), at a line where the user wrote no channel operation.
    blocks = collected.db
      .prepare(
        "SELECT reason, site FROM events WHERE kind = 'GoBlock' AND reason IN ('select', 'chan receive', " +
          "'chan send') AND site IS NOT NULL AND (stack LIKE 'runtime.selectgo;%' OR stack LIKE 'runtime.chanrecv%' " +
          "OR stack LIKE 'runtime.chansend%') ORDER BY run_id, seq",
      )
      .all() as { reason: string; site: string }[];
  }, 300_000);

  afterAll(() => {
    collected?.db.close();
    if (collected !== undefined) rmSync(collected.dir, { recursive: true, force: true });
  });

  test("each goroutine's GoBlock site is the wait site of its function, timed and context as in the source", () => {
    const found = new Map<string, string>();
    for (const block of blocks) {
      const fn = block.site.split(" ")[0];
      const ws = waitSiteAt(index, block.site, block.reason);
      expect(ws, block.site).not.toBeNull();
      if (ws !== null) found.set(fn, `${block.reason} ${summary(ws).split(" {")[0]}`);
    }
    expect(Object.fromEntries(found)).toEqual({
      "main.tickerLoop": "select tickerLoop select@16 T",
      "main.afterSelect": "select afterSelect select@25 T",
      "main.contextSelect": "select contextSelect select@34 C",
      "main.plainSelect": "select plainSelect select@41",
      "main.bareAfter": "chan receive bareAfter recv@58 T",
      "main.rangeTicker": "chan receive rangeTicker range@63 T",
      "main.untimedRecv": "chan receive untimedRecv recv@68",
    });
  });

  test("a goroutine's creation site is the line of the go statement the helper lists as a call of its entry", () => {
    const created = collected.db
      .prepare("SELECT DISTINCT entry, creation_site AS site FROM goroutines WHERE creation_site LIKE 'main.main %'")
      .all() as { entry: string; site: string }[];
    const byEntry = new Map(created.map((g) => [g.entry, g.site]));
    const goCalls = index.calls.filter((c) => c.kind === "go");
    expect(goCalls).toHaveLength(5);
    for (const call of goCalls) {
      const entry = `main.${call.callee.split("@")[0]}`;
      expect(byEntry.get(entry), entry).toBe(`main.main main.go:${String(call.line)}`);
    }
  });
});
