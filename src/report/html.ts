// The self-contained HTML page (inline CSS, no external assets; the bug section adds a small
// inline script that only filters) and an HTML table helper.

import { escapeXml } from "./escape.js";
import type { ReportMeta, ReportSection } from "./types.js";

export interface HtmlTable {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Column indices to right-align (numbers). */
  readonly numeric?: readonly number[];
  readonly caption?: string;
}

/** A <table> with escaped cells. */
export function htmlTable(table: HtmlTable): string {
  const numeric = new Set(table.numeric ?? []);
  const cell = (tag: "th" | "td", text: string, i: number): string =>
    `<${tag}${numeric.has(i) ? ' class="num"' : ""}>${escapeXml(text)}</${tag}>`;
  const caption = table.caption === undefined ? "" : `<caption>${escapeXml(table.caption)}</caption>`;
  const head = `<thead><tr>${table.headers.map((h, i) => cell("th", h, i)).join("")}</tr></thead>`;
  const body = `<tbody>${table.rows.map((r) => `<tr>${r.map((c, i) => cell("td", c, i)).join("")}</tr>`).join("\n")}</tbody>`;
  return `<table>${caption}${head}\n${body}</table>`;
}

const STYLE = `
:root { --ink: #1f2328; --muted: #59636e; --rule: #d1d9e0; --bg: #ffffff; --band: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 32px 24px 64px; }
h1 { font-size: 1.7rem; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 1.3rem; margin: 40px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--rule); }
h3 { font-size: 1.05rem; margin: 28px 0 8px; }
p, li { max-width: 78ch; }
.meta { color: var(--muted); font-size: 0.9rem; margin: 0 0 20px; }
nav ol { padding-left: 20px; margin: 8px 0 0; }
nav a, a { color: var(--accent); text-decoration: none; }
table { border-collapse: collapse; margin: 12px 0 20px; font-size: 0.88rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: var(--muted); padding-bottom: 6px; font-size: 0.85rem; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--rule); text-align: left; white-space: nowrap; }
th { background: var(--band); font-weight: 600; }
td.num, th.num { text-align: right; }
.scroll { overflow-x: auto; }
.charts { display: flex; flex-wrap: wrap; gap: 20px; align-items: flex-start; }
figure { margin: 0; }
figcaption { color: var(--muted); font-size: 0.82rem; max-width: 420px; }
svg text { font-family: inherit; }
.note { color: var(--muted); font-size: 0.88rem; }
[hidden] { display: none !important; }
.bug-filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 12px 0; font-size: 0.88rem; }
.bug-filters fieldset { border: 1px solid var(--rule); border-radius: 6px; padding: 4px 10px; margin: 0; }
.bug-filters legend { color: var(--muted); padding: 0 4px; }
.bug-filters label { white-space: nowrap; margin-right: 8px; }
.bug-filters output { color: var(--muted); }
.bug-table td { white-space: normal; overflow-wrap: break-word; }
.bug-table td:last-child { white-space: nowrap; }
.verdict { font-weight: 600; }
.verdict-proven { color: #cf222e; }
.verdict-likely { color: #bc4c00; }
.verdict-inconclusive, .verdict-potential { color: var(--muted); }
.bug { border-top: 1px solid var(--rule); padding: 8px 0 4px; scroll-margin-top: 8px;
  content-visibility: auto; contain-intrinsic-size: auto 700px; }
.bug:target { background: var(--band); }
.bug h3 { margin: 12px 0 6px; }
.bug-pictures { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.bug-pictures figure { max-width: 100%; overflow-x: auto; }
.no-picture p { margin: 4px 0; }
details.stacks summary { cursor: pointer; color: var(--accent); }
pre { background: var(--band); padding: 8px 10px; overflow-x: auto; font-size: 0.82rem; }
`;

/** The whole page: title, table of contents, then each section under its heading. */
export function htmlDocument(meta: ReportMeta, sections: readonly ReportSection[]): string {
  const toc = sections.map((s) => `<li><a href="#${escapeXml(s.id)}">${escapeXml(s.title)}</a></li>`).join("");
  const body = sections
    .map((s) => `<section id="${escapeXml(s.id)}">\n<h2>${escapeXml(s.title)}</h2>\n${s.html()}\n</section>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(meta.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeXml(meta.title)}</h1>
<p class="meta">Generated ${escapeXml(meta.generatedAt)} · ${escapeXml(meta.source)}</p>
<nav><ol>${toc}</ol></nav>
${body}
</main>
</body>
</html>
`;
}
