// Opens the report of a real collection with over 100 bugs — every program of go-programs/,
// two traced runs each — in headless Chromium: it loads in under 2 s and weighs under 5 MB;
// filtering by kind and verdict shows exactly the rows and views that match; a bug's link
// opens its view with its graph and timeline rendered and its stacks folded; with scripts
// off every bug is on the page. SCHEDLAB_SCREENSHOTS=DIR saves the table and a bug's view
// there (docs/leaks.md shows them); without it nothing is written into the tree.

import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { analyseLeaks } from "../../src/leaks/index.js";
import { bugEntries, collectionReportSections, writeReport, type BugEntry } from "../../src/report/index.js";
import { openExistingDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";
import { launchChromium } from "../helpers/chromium.js";

const CORPUS = fileURLToPath(new URL("../../go-programs/", import.meta.url));

let root: string;
let html: string;
let entries: BugEntry[];
let browser: Browser | null = null;
const problems: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "schedlab-bugs-browser-"));
  const db = join(root, "s.db");
  const collected = await runCli([
    "collect",
    CORPUS,
    "--runs",
    "2",
    "--jobs",
    "2",
    "--db",
    db,
    "--traces",
    join(root, "traces"),
  ]);
  expect(collected.code, collected.stderr).toBe(0);
  const store = openExistingDatabase(db);
  try {
    const analysis = await analyseLeaks(store, { save: false });
    entries = bugEntries(analysis);
    const sections = await collectionReportSections(store, { analysis });
    html = writeReport(sections, join(root, "report"), {
      title: "schedlab report",
      generatedAt: new Date().toISOString(),
      source: db,
    }).html;
  } finally {
    store.close();
  }
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  rmSync(root, { recursive: true, force: true });
});

async function openReport(javaScriptEnabled = true): Promise<Page> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(pathToFileURL(html).href, { waitUntil: "load" });
  return page;
}

/** The fingerprints of the table rows and bug views the page shows. */
function shown(page: Page): Promise<{ rows: string[]; views: string[]; count: string }> {
  return page.evaluate(() => {
    const visible = (el: Element): boolean => (el as HTMLElement).offsetParent !== null;
    return {
      rows: [...document.querySelectorAll("#bugs tbody tr")]
        .filter(visible)
        .map((tr) => tr.querySelector("a")?.getAttribute("href")?.slice(1) ?? ""),
      views: [...document.querySelectorAll("#bugs article.bug")].filter(visible).map((a) => a.id),
      count: (document.querySelector("#bugs form output") as HTMLOutputElement).value,
    };
  });
}

describe("the report of a collection with over 100 bugs, in a browser", () => {
  test("loads in under 2 s and weighs under 5 MB, bugs right after the overview, proven first", async () => {
    expect(entries.length).toBeGreaterThan(100);
    expect(statSync(html).size).toBeLessThan(5 * 1024 * 1024);
    const page = await openReport();
    const loadMs = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      return nav.loadEventEnd - nav.startTime;
    });
    expect(loadMs).toBeGreaterThan(0);
    expect(loadMs).toBeLessThan(2000);
    process.stderr.write(
      `bugs-browser: ${entries.length} bugs, index.html ${statSync(html).size} bytes, load event after ${Math.round(loadMs)} ms\n`,
    );
    const sections = await page.$$eval("main section", (nodes) => nodes.map((n) => n.id));
    expect(sections.slice(0, 2)).toEqual(["overview", "bugs"]);
    const { rows, views, count } = await shown(page);
    expect(rows).toEqual(entries.map((e) => e.anchor));
    expect(views).toEqual(rows);
    expect(count).toBe(`${entries.length} of ${entries.length} shown`);
    const verdicts = await page.$$eval("#bugs tbody tr", (trs) => trs.map((tr) => tr.getAttribute("data-verdict")));
    expect(verdicts.indexOf("likely")).toBeGreaterThan(verdicts.lastIndexOf("proven"));
    if (process.env.SCHEDLAB_SCREENSHOTS !== undefined) {
      const dir = resolve(process.env.SCHEDLAB_SCREENSHOTS);
      mkdirSync(dir, { recursive: true });
      await page.evaluate(() => document.querySelector("#bugs")!.scrollIntoView());
      await page.screenshot({ path: join(dir, "report-bugs-table.png") });
    }
    await page.context().close();
  });

  test("filtering by kind, then by verdict, then by package shows exactly the rows and views that match", async () => {
    const page = await openReport();
    const match = (keep: (e: BugEntry) => boolean): string[] => entries.filter(keep).map((e) => e.anchor);

    await page.uncheck('#bugs input[name=kind][value="leak"]');
    const noLeak = match((e) => e.kind !== "leak");
    expect(noLeak.length).toBeGreaterThan(0);
    expect(noLeak.length).toBeLessThan(entries.length);
    let now = await shown(page);
    expect(now.rows).toEqual(noLeak);
    expect(now.views).toEqual(noLeak);
    expect(now.count).toBe(`${noLeak.length} of ${entries.length} shown`);

    await page.uncheck('#bugs input[name=verdict][value="proven"]');
    const neither = match((e) => e.kind !== "leak" && e.verdict !== "proven");
    expect(neither.length).toBeGreaterThan(0);
    expect(neither.length).toBeLessThan(noLeak.length);
    now = await shown(page);
    expect(now.rows).toEqual(neither);
    expect(now.views).toEqual(neither);

    await page.check('#bugs input[name=kind][value="leak"]');
    await page.check('#bugs input[name=verdict][value="proven"]');
    const pkg = entries.find((e) => e.program.startsWith("kernels/"))!.package;
    await page.selectOption("#bugs select[name=package]", pkg);
    now = await shown(page);
    expect(now.rows).toEqual(match((e) => e.package === pkg));
    expect(now.rows.length).toBeGreaterThan(0);
    await page.context().close();
  });

  test("a bug's link opens its view: graph and timeline rendered, stacks folded, replay and trace commands", async () => {
    const page = await openReport();
    const bug = entries.find((e) => e.kind === "deadlock" && e.stacks.some((s) => s.frames.length > 0))!;
    await page.click(`#bugs tbody a[href="#${bug.anchor}"]`);
    expect(await page.evaluate(() => location.hash)).toBe(`#${bug.anchor}`);
    const view = page.locator(`article#${bug.anchor}`);
    const box = await view.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(900);
    for (const picture of ["graph", "timeline"]) {
      const svg = view.locator(`figure.bug-${picture} > svg`);
      expect(await svg.locator(picture === "graph" ? "[data-node]" : "[data-last-block]").count()).toBeGreaterThan(0);
      const size = await svg.boundingBox();
      expect(size!.width).toBeGreaterThan(100);
      expect(size!.height).toBeGreaterThan(40);
    }
    const stacks = view.locator("details.stacks");
    expect(await stacks.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await view.locator("details.stacks pre").isVisible()).toBe(false);
    await stacks.locator("summary").click();
    expect(await view.locator("details.stacks pre").isVisible()).toBe(true);
    expect(await view.locator("details.stacks pre").textContent()).toContain(bug.stacks[0]!.frames[0]!);
    expect(await view.locator("pre.commands").textContent()).toMatch(
      /^schedlab collect --replay \d+ --db .+\ngo tool trace .+\.trace$/,
    );
    if (process.env.SCHEDLAB_SCREENSHOTS !== undefined)
      await view.screenshot({ path: join(resolve(process.env.SCHEDLAB_SCREENSHOTS), "report-bug-view.png") });
    await page.context().close();
  });

  test("with scripts off, every row and view is on the page and the filters that need the script are not", async () => {
    const page = await openReport(false);
    const now = await page.evaluate(() => ({
      rows: [...document.querySelectorAll("#bugs tbody tr")].filter((tr) => (tr as HTMLElement).offsetParent !== null)
        .length,
      views: [...document.querySelectorAll("#bugs article.bug")].filter((a) => (a as HTMLElement).offsetParent !== null)
        .length,
      filters: (document.querySelector("#bugs form") as HTMLElement).offsetParent !== null,
    }));
    expect(now).toEqual({ rows: entries.length, views: entries.length, filters: false });
    await page.context().close();
    expect(problems).toEqual([]);
  });
});
