// Opens the report of a real `schedlab run --quick` in headless Chromium and checks that its
// charts and tables render without console errors; saves a full-page screenshot.

import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CHROMIUM, launchChromium } from "../helpers/chromium.js";
import { smallCorpus } from "../run/corpus.js";

const { root, corpus } = smallCorpus(
  ["patterns/channels/orphan-receiver-leak", "patterns/fan/fan-in-merge", "generated/pipeline-1001"],
  "schedlab-browser-",
);
let browser: Browser | null = null;
afterAll(async () => {
  await browser?.close();
  if (process.env.SCHEDLAB_KEEP_SCREENSHOT === undefined) rmSync(root, { recursive: true, force: true });
});

describe("report/index.html in a browser", () => {
  it("renders the overview, predictor tables, charts, leak table and rollout survival with no console errors", async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does it)`).toBe(true);
    const out = join(root, "report");
    const run = await runCli([
      "run",
      "--quick",
      "--runs",
      "2",
      "--corpus",
      corpus,
      "--db",
      join(root, "s.db"),
      "--out",
      out,
      "--adapters",
      join(root, "adapters"),
      "--traces",
      join(root, "traces"),
    ]);
    expect(run.stderr).not.toMatch(/schedlab: error/);
    expect(run.code).toBe(0);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning")
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
    await page.goto(pathToFileURL(join(out, "index.html")).href, { waitUntil: "load" });

    const sections = await page.$$eval("main section", (nodes) => nodes.map((n) => n.id));
    // the bugs right after the overview, before the prediction sections
    expect(sections.slice(0, 2)).toEqual(["overview", "bugs"]);
    expect(sections).toEqual(expect.arrayContaining(["leaks", "rollout"]));
    // uniform, majority, ngram:3, cal:ngram:3 and the two students (PIPELINE_STUDENTS)
    expect(sections.filter((id) => id.startsWith("predictor-"))).toHaveLength(6);

    // Every chart and table has a real on-screen size (an SVG that failed to parse has none).
    const boxes = await page.$$eval("svg, table", (nodes) =>
      nodes.map((n) => {
        const r = n.getBoundingClientRect();
        return { tag: n.tagName.toLowerCase(), width: r.width, height: r.height };
      }),
    );
    const svgs = boxes.filter((b) => b.tag === "svg");
    const tables = boxes.filter((b) => b.tag === "table");
    // overview bars, per-event bars, 3 charts per predictor × 6, 2 rollout charts
    expect(svgs.length).toBeGreaterThanOrEqual(6 * 3 + 3);
    expect(tables.length).toBeGreaterThanOrEqual(6 + 3);
    for (const box of boxes) {
      expect(box.width).toBeGreaterThan(50);
      expect(box.height).toBeGreaterThan(20);
    }
    const kinds = await page.evaluate(() => ({
      reliabilityBars: document.querySelectorAll("section[id^=predictor-] svg rect").length,
      scatterPoints: document.querySelectorAll("section[id^=predictor-] svg circle").length,
      leakRows: document.querySelectorAll("#leaks tbody tr").length,
      leakText: document.querySelector("#leaks tbody")?.textContent ?? "",
      rolloutCharts: document.querySelectorAll("#rollout svg").length,
      overviewRows: document.querySelectorAll("#overview .scroll > table tbody tr").length,
      overviewHeaders: [...document.querySelectorAll("#overview .scroll > table thead th")].map(
        (th) => th.textContent ?? "",
      ),
      overviewEceIntervals: [...document.querySelectorAll("#overview .scroll > table tbody tr")].map(
        (tr) => tr.lastElementChild?.textContent ?? "",
      ),
    }));
    expect(kinds.reliabilityBars).toBeGreaterThan(0);
    expect(kinds.scatterPoints).toBeGreaterThan(0);
    expect(kinds.leakRows).toBeGreaterThanOrEqual(1);
    expect(kinds.leakText).toContain("orphan-receiver-leak");
    expect(kinds.rolloutCharts).toBe(2);
    expect(kinds.overviewRows).toBe(6);
    // each predictor's ECE carries its cluster-bootstrap interval
    expect(kinds.overviewHeaders.slice(-2)).toEqual(["ECE", "ECE 95% CI"]);
    for (const cell of kinds.overviewEceIntervals) expect(cell).toMatch(/^\[\d\.\d{3}, \d\.\d{3}\]$/);

    const screenshot = join(root, "report.png");
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    expect(problems).toEqual([]);
    if (process.env.SCHEDLAB_KEEP_SCREENSHOT !== undefined) process.stderr.write(`screenshot: ${screenshot}\n`);
  });
});
