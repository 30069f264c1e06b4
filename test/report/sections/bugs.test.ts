// The bug section: bugs in reading order (proven first, blocked forever first within a
// verdict), a table whose rows link to each bug's view, filters the script drives, views
// with their pictures from the hook, stacks folded, and the Markdown and JSON forms.

import { describe, expect, test } from "vitest";
import type { BugReport, LeakAnalysis } from "../../../src/leaks/index.js";
import {
  bugEntries,
  bugSection,
  bugViewHtml,
  NO_PICTURES,
  type BugPictures,
} from "../../../src/report/sections/bugs.js";
import { ANALYSIS, BUG, FINDING } from "./leak-analysis.js";

const bug = (fingerprint: string, extra: Partial<BugReport>): BugReport => ({ ...BUG, fingerprint, ...extra });

/** Every kind and verdict, listed out of order. */
const MIXED: LeakAnalysis = {
  ...ANALYSIS,
  bugs: [
    bug("00000000000000b1", { kind: "background", verdict: "likely", program: "a" }),
    bug("00000000000000b2", { kind: "leak", verdict: "likely", program: "b" }),
    bug("00000000000000b3", { kind: "inconclusive", verdict: "inconclusive", program: "a" }),
    bug("00000000000000b4", { kind: "outlived", verdict: "proven", program: "a" }),
    bug("00000000000000b5", { kind: "leak", verdict: "proven", program: "b" }),
    bug("00000000000000b6", { kind: "deadlock", verdict: "proven", program: "c#TestX" }),
    bug("00000000000000b7", { kind: "leak", verdict: "likely", program: "a" }),
  ],
};

/** A test input, not a real picture: a small SVG that names its bug, so the test sees which one was inserted. */
function testPictures(calls: string[] = []): BugPictures {
  const svg = (kind: string, f: string): string =>
    `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" data-test-picture="${kind}-${f}"><rect width="120" height="40"/></svg>`;
  return {
    graph: (f) => {
      calls.push(`graph ${f}`);
      return f === BUG.fingerprint ? svg("graph", f) : null;
    },
    timeline: (f) => {
      calls.push(`timeline ${f}`);
      return f === BUG.fingerprint ? svg("timeline", f) : null;
    },
  };
}

describe("bugEntries", () => {
  test("proven first, then likely, inconclusive, potential; within a verdict blocked forever first, then by program", () => {
    const order = bugEntries(MIXED).map((e) => `${e.verdict} ${e.kind} ${e.program}`);
    expect(order).toEqual([
      "proven deadlock c#TestX",
      "proven leak b",
      "proven outlived a",
      "likely leak a",
      "likely leak b",
      "likely background a",
      "inconclusive inconclusive a",
      "potential lock-order order",
    ]);
  });

  test("an entry carries the table's cells, the package without a split test's name, why, evidence, stacks and commands", () => {
    const entries = bugEntries(MIXED);
    expect(entries.find((e) => e.program === "c#TestX")?.package).toBe("c");
    const [likely] = bugEntries(ANALYSIS);
    expect(likely).toEqual({
      anchor: "bug-0123456789abcdef",
      fingerprint: "0123456789abcdef",
      verdict: "likely",
      kind: "leak",
      program: "pool",
      package: "pool",
      test: "TestPool/go_without_wait",
      goroutines: 1,
      runs: 3,
      why: FINDING.why,
      evidence: expect.stringContaining("trace: wakers-gone"),
      stacks: [
        {
          head: "pool.(*Pool).Go.func1: chan receive at pool.go:13 (created at pool.go:12; blocked in 3/3 runs)",
          own: null,
          frames: [],
        },
      ],
      moreGoroutines: 0,
      next: ["schedlab collect --replay 1 --db schedlab.db", "go tool trace /tmp/traces/pool-1.trace"],
    });
    const potential = bugEntries(ANALYSIS)[1]!;
    expect(potential).toMatchObject({
      verdict: "potential",
      kind: "lock-order",
      goroutines: 2,
      runs: 1,
      evidence: null,
    });
    expect(potential.stacks[0]?.head).toBe(
      "order.TestOrder.func1: took order_test.go:11, then asked at order_test.go:12",
    );
  });

  test("siblings of one go statement waiting at one site are one stack with a count", () => {
    const sibling = { ...FINDING, goroutine: FINDING.goroutine.replace(/#0$/, "#1") };
    const siblings: LeakAnalysis = {
      ...ANALYSIS,
      findings: [FINDING, sibling],
      bugs: [{ ...BUG, goroutines: [FINDING.goroutine, sibling.goroutine] }],
      potentialDeadlocks: [],
    };
    expect(bugEntries(siblings)[0]!.stacks.map((s) => s.head)).toEqual([
      "pool.(*Pool).Go.func1 ×2: chan receive at pool.go:13 (created at pool.go:12; blocked in 3/3 runs)",
    ]);
  });

  test("a goroutine the rule judged otherwise than its bug says how, under its stack's head", () => {
    const differs: LeakAnalysis = {
      ...ANALYSIS,
      bugs: [
        {
          ...BUG,
          differing: [{ goroutine: FINDING.goroutine, kind: "leak", verdict: "proven", why: "the runtime proved it" }],
        },
      ],
      potentialDeadlocks: [],
    };
    const [entry] = bugEntries(differs);
    expect(entry!.stacks[0]!.own).toBe("proven leak — the runtime proved it");
    expect(bugSection(differs).markdown()).toContain(
      "pool.(*Pool).Go.func1: chan receive at pool.go:13 (created at pool.go:12; blocked in 3/3 runs)\n    on its own: proven leak — the runtime proved it",
    );
  });

  test("two entries with one fingerprint get distinct anchors", () => {
    const twice: LeakAnalysis = { ...ANALYSIS, bugs: [BUG, { ...BUG, program: "pool2" }], potentialDeadlocks: [] };
    expect(bugEntries(twice).map((e) => e.anchor)).toEqual(["bug-0123456789abcdef", "bug-0123456789abcdef-2"]);
  });
});

describe("bugSection", () => {
  test("the table's rows carry the filter data and link to the views, which come in the same order", () => {
    const html = bugSection(MIXED).html();
    const rows = [...html.matchAll(/<tr data-bug data-verdict="(\w+)" data-kind="([\w-]+)" data-package="([^"]+)">/g)];
    expect(rows.map((m) => `${m[1]} ${m[2]} ${m[3]}`)).toEqual([
      "proven deadlock c",
      "proven leak b",
      "proven outlived a",
      "likely leak a",
      "likely leak b",
      "likely background a",
      "inconclusive inconclusive a",
      "potential lock-order order",
    ]);
    const links = [...html.matchAll(/<a href="#(bug-[0-9a-f]+)"><code>/g)].map((m) => m[1]);
    const views = [...html.matchAll(/<article class="bug" id="(bug-[0-9a-f]+)"/g)].map((m) => m[1]);
    expect(links).toHaveLength(8);
    expect(views).toEqual(links);
  });

  test("filters offer each verdict, kind and package with its count, hidden until the script shows them", () => {
    const html = bugSection(MIXED).html();
    expect(html).toContain('<form class="bug-filters" hidden>');
    expect(html).toContain('<input type="checkbox" name="verdict" value="proven" checked> proven (3)');
    expect(html).toContain('<input type="checkbox" name="kind" value="leak" checked> leak (3)');
    expect(html).toContain('<option value="a">a (4)</option>');
    expect(html).toContain('<option value="">all (8)</option>');
    expect(html).toMatch(/<script>\(\(\) => \{[\s\S]*form\.hidden = false;[\s\S]*<\/script>$/);
    expect(html).not.toMatch(/ on[a-z]+="/);
  });

  test("a view shows the hook's pictures, stacks folded, the commands; without a picture it says so", () => {
    const withPictures = bugViewHtml(bugEntries(ANALYSIS)[0]!, testPictures());
    expect(withPictures).toContain(
      '<figure class="bug-graph"><svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" data-test-picture="graph-0123456789abcdef">',
    );
    expect(withPictures).toContain('data-test-picture="timeline-0123456789abcdef"');
    expect(withPictures).toContain('<details class="stacks"><summary>Stacks (1 goroutine)</summary><pre>');
    expect(withPictures).not.toContain("<details open");
    expect(withPictures).toContain(
      '<pre class="commands">schedlab collect --replay 1 --db schedlab.db\ngo tool trace /tmp/traces/pool-1.trace</pre>',
    );
    expect(withPictures).toContain(
      '<h3><span class="verdict verdict-likely">LIKELY</span> leak — pool TestPool/go_without_wait <code>0123456789abcdef</code></h3>',
    );
    const without = bugViewHtml(bugEntries(ANALYSIS)[1]!, testPictures());
    expect(without).toContain('<figure class="bug-graph no-picture"><p class="note">no picture</p>');
    expect(without).toContain('<figure class="bug-timeline no-picture"><p class="note">no picture</p>');
    expect(bugViewHtml(bugEntries(ANALYSIS)[0]!, NO_PICTURES)).not.toContain("<svg");
  });

  test("text is escaped", () => {
    const hostile: LeakAnalysis = { ...ANALYSIS, bugs: [{ ...BUG, program: 'x"<script>', why: "a <b> & c" }] };
    const html = bugSection(hostile).html();
    expect(html).toContain('data-package="x&quot;&lt;script&gt;"');
    expect(html).toContain("<p>a &lt;b&gt; &amp; c</p>");
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  test("Markdown has the table and each bug under its head; JSON has the entries and which pictures each has", () => {
    const calls: string[] = [];
    const section = bugSection(ANALYSIS, testPictures(calls));
    const markdown = section.markdown();
    expect(markdown).toContain("| verdict | kind | program | test | goroutines | runs | fingerprint |");
    expect(markdown).toContain("| likely | leak | pool | TestPool/go_without_wait | 1 | 3 | 0123456789abcdef |");
    expect(markdown).toContain("### LIKELY leak — pool TestPool/go_without_wait [0123456789abcdef]");
    expect(markdown).toContain("### POTENTIAL lock-order — order TestOrder [fedcba9876543210]");
    section.html();
    const json = section.json() as { bugs: { fingerprint: string; pictures: unknown }[] };
    expect(json.bugs.map((b) => [b.fingerprint, b.pictures])).toEqual([
      ["0123456789abcdef", { graph: true, timeline: true }],
      ["fedcba9876543210", { graph: false, timeline: false }],
    ]);
    // each picture is drawn once, however many forms are rendered
    expect(calls.sort()).toEqual([
      "graph 0123456789abcdef",
      "graph fedcba9876543210",
      "timeline 0123456789abcdef",
      "timeline fedcba9876543210",
    ]);
  });

  test("without an analysis or without bugs it says so", () => {
    expect(bugSection(null).html()).toContain("did not run");
    const none: LeakAnalysis = { ...ANALYSIS, bugs: [], potentialDeadlocks: [] };
    expect(bugSection(none).markdown()).toMatch(/^Bugs: 0 bugs blocking goroutines forever/);
    expect(bugSection(none).html()).not.toContain("<table");
  });
});
