// Placing a goroutine in its test and subtests from its canonical id and the t.Run lines.

import { describe, expect, test } from "vitest";
import {
  placeInTest,
  rewriteSubtestName,
  splitCanonicalId,
  subtestName,
  subtestNameInSource,
  tableSubtestNames,
  testOfRoot,
  type SubtestNaming,
} from "../../src/leaks/index.js";
import { shortGoroutine } from "../../src/leaks/format.js";

const WORKER =
  "TestPool/pool.TestPool.func2@pool_test.go:11#0/pool.TestPool.func2.1@pool_test.go:12#0/pool.(*Pool).Go.func1@pool.go:12#0";
const RUN_LINES: Record<string, string> = { "pool_test.go:11": "go without wait", "pool_test.go:12": "before wait" };
const lookup = (siteKey: string): string | null =>
  siteKey in RUN_LINES ? rewriteSubtestName(RUN_LINES[siteKey]) : null;

describe("test placement", () => {
  test("canonical ids split into the root and their go-statement segments", () => {
    expect(splitCanonicalId(WORKER)).toEqual({
      root: "TestPool",
      segments: [
        { entry: "pool.TestPool.func2", siteKey: "pool_test.go:11", ordinal: 0 },
        { entry: "pool.TestPool.func2.1", siteKey: "pool_test.go:12", ordinal: 0 },
        { entry: "pool.(*Pool).Go.func1", siteKey: "pool.go:12", ordinal: 0 },
      ],
    });
    expect(splitCanonicalId("main.main")).toEqual({ root: "main.main", segments: [] });
    expect(splitCanonicalId("(pre-trace)/main.f#0/main.g@m.go:3#2")).toEqual({
      root: "(pre-trace)/main.f#0",
      segments: [{ entry: "main.g", siteKey: "m.go:3", ordinal: 2 }],
    });
    expect(splitCanonicalId("(orphan)/main.g@m.go:3#0").root).toBe("(orphan)");
    expect([testOfRoot("TestPool"), testOfRoot("TestPool#2"), testOfRoot("main.main"), testOfRoot("(test)")]).toEqual([
      "TestPool",
      "TestPool",
      null,
      "(test)",
    ]);
    expect([testOfRoot("ExampleCache"), testOfRoot("TestMain"), testOfRoot("TestMain#1")]).toEqual([
      "ExampleCache",
      null,
      null,
    ]);
  });

  test("the elided middle of a deep chain is one segment with no site, so the head and the last segment still parse", () => {
    const step = "pool.worker@pool.go:40#0";
    const deep = `TestPool/pool.TestPool.func2@pool_test.go:11#0/${step}/${step}/${step}/…{9995 steps:3fa9c1d2e4b5}/${step}`;
    const { root, segments } = splitCanonicalId(deep);
    expect(root).toBe("TestPool");
    expect(segments.map((s) => s.entry)).toEqual([
      "pool.TestPool.func2",
      "pool.worker",
      "pool.worker",
      "pool.worker",
      "…{9995 steps:3fa9c1d2e4b5}",
      "pool.worker",
    ]);
    expect(segments[4]).toEqual({ entry: "…{9995 steps:3fa9c1d2e4b5}", siteKey: "", ordinal: 0 });
    expect(placeInTest(deep, lookup)?.test).toBe("TestPool/go_without_wait");
    expect(shortGoroutine(deep, "TestPool/go_without_wait")).toBe(
      "pool.worker > pool.worker > pool.worker > …{9995 steps:3fa9c1d2e4b5} > pool.worker",
    );
  });

  test("segments from the root created at t.Run lines are subtests; the rest is the goroutine chain inside the last one", () => {
    expect(placeInTest(WORKER, lookup)).toEqual({
      test: "TestPool/go_without_wait/before_wait",
      below: [{ entry: "pool.(*Pool).Go.func1", siteKey: "pool.go:12", ordinal: 0 }],
    });
    expect(placeInTest("TestPool", lookup)).toEqual({ test: "TestPool", below: [] });
    expect(placeInTest("TestPool#1/pool.TestPool.func2@pool_test.go:11#2", lookup)?.test).toBe(
      "TestPool/go_without_wait#02",
    );
    // A t.Run line below a plain goroutine is not followed: subtests hang off the test's own chain.
    expect(placeInTest("TestPool/pool.worker@pool.go:40#0/pool.TestPool.func2@pool_test.go:11#0", lookup)?.test).toBe(
      "TestPool",
    );
    expect(placeInTest("main.main/main.worker@main.go:9#0", lookup)).toBeNull();
  });

  test("the subtest name comes from t.Run's first argument, as go test prints it", () => {
    expect(subtestNameInSource(`\tt.Run("panics on configuration after init", func(t *testing.T) {`)).toBe(
      "panics_on_configuration_after_init",
    );
    expect(subtestNameInSource("\tt.Run(`raw name`, func(t *testing.T) {")).toBe("raw_name");
    expect(subtestNameInSource(`\t\tt.Run(tc.name, func(t *testing.T) {`)).toBe("{tc.name}");
    expect(subtestNameInSource(`\tt.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {`)).toBe(
      `{fmt.Sprintf("n=%d", n)}`,
    );
    expect(subtestNameInSource(`\tt.Run(\n\t\t"on the next line",\n\t\tfunc(t *testing.T) {`)).toBe("on_the_next_line");
    expect(subtestNameInSource(`\tp.Go(func() {})`)).toBeNull();
    expect(rewriteSubtestName("tab\there")).toBe("tab_here");
  });

  test("the table shows the chain below the test, the test's own goroutine, or the root", () => {
    expect(shortGoroutine(WORKER, "TestPool/go_without_wait/before_wait")).toBe("pool.(*Pool).Go.func1");
    expect(shortGoroutine("TestPool", "TestPool")).toBe("(test goroutine)");
    expect(shortGoroutine("TestPool/pool.TestPool.func2@pool_test.go:11#0", "TestPool/go_without_wait")).toBe(
      "(subtest goroutine)",
    );
    expect(shortGoroutine("main.main/main.dispatch@main.go:10#0/main.worker@main.go:20#3", null)).toBe(
      "main.dispatch > main.worker#3",
    );
    expect(shortGoroutine("main.main", null)).toBe("main.main");
  });
});

describe("subtests named from a table", () => {
  const source = [
    "func TestRateLimiter(t *testing.T) {",
    "\ttests := []struct {",
    "\t\tname  string",
    "\t\tburst int",
    "\t}{",
    '\t\t{name: "single", burst: 1},',
    '\t\t{name: "burst of 3", burst: 3}, // {not a row}',
    '\t\t{burst: 1, name: "single"},',
    "\t}",
    "\tfor _, tt := range tests {",
    "\t\tt.Run(tt.name, func(t *testing.T) {",
  ];

  test("t.Run(tt.name) in a loop over a slice literal names each row as testing does, #01 for a repeated name", () => {
    const rows = tableSubtestNames(source, 11, "tt.name");
    expect(rows).toEqual(["single", "burst_of_3", "single"]);
    expect([0, 1, 2].map((ordinal) => subtestName(rows ?? [], ordinal))).toEqual(["single", "burst_of_3", "single#01"]);
    const lookup = (siteKey: string): SubtestNaming | null =>
      siteKey === "limiter_test.go:17" ? (rows ?? null) : null;
    expect(placeInTest("TestRateLimiter/ratelimit.TestRateLimiter.func1@limiter_test.go:17#1", lookup)?.test).toBe(
      "TestRateLimiter/burst_of_3",
    );
  });

  test("rows without field names follow the struct's field order; a named element type and &T{} rows are read too", () => {
    const positional = [
      "\tcases := []struct{ name string; n int }{",
      '\t\t{"empty", 0},',
      '\t\t{"full", 8},',
      "\t}",
      "\tfor _, c := range cases {",
      "\t\tt.Run(c.name, func(t *testing.T) {",
    ];
    expect(tableSubtestNames(positional, 6, "c.name")).toEqual(["empty", "full"]);
    const named = [
      "var cases = []*limitCase{",
      '\t&limitCase{name: "a b", n: 1},',
      "\t{name: `raw`, n: 2},",
      "}",
      "func TestX(t *testing.T) {",
      "\tfor _, c := range cases {",
      "\t\tt.Run(c.name, func(t *testing.T) {",
    ];
    expect(tableSubtestNames(named, 7, "c.name")).toEqual(["a_b", "raw"]);
  });

  test("a table the source does not spell out gives no names, and the call's number stays inside the braces", () => {
    const built = ["\tfor _, tt := range makeCases() {", "\t\tt.Run(tt.name, func(t *testing.T) {"];
    expect(tableSubtestNames(built, 2, "tt.name")).toBeNull();
    const mapped = [
      "\ttests := map[string]int{",
      '\t\t"a": 1,',
      "\t}",
      "\tfor _, tt := range tests {",
      "\t\tt.Run(tt.name, nil)",
    ];
    expect(tableSubtestNames(mapped, 5, "tt.name")).toBeNull();
    const computed = [
      "\ttests := []struct{ name string }{",
      '\t\t{name: fmt.Sprint("n", 1)},',
      "\t}",
      "\tfor _, tt := range tests {",
      "\t\tt.Run(tt.name, nil)",
    ];
    expect(tableSubtestNames(computed, 5, "tt.name")).toBeNull();
    expect([0, 1].map((ordinal) => subtestName("{tt.name}", ordinal))).toEqual(["{tt.name}", "{tt.name #2}"]);
    expect([0, 2].map((ordinal) => subtestName("before_wait", ordinal))).toEqual(["before_wait", "before_wait#02"]);
  });
});
