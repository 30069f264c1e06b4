// The bugs of a leak analysis as a reader navigates them: proven first, a table filterable
// by verdict, kind and package (a small inline script; the page reads without it), and one
// view per bug with why, the evidence, its pictures, its stacks folded and the commands to
// replay it and open its trace. Pure: the analysis and the pictures come in.

import { bugCounts, evidenceText, type BugReport, type LeakAnalysis, type LeakFinding } from "../../leaks/index.js";
import {
  fingerprintProgram,
  goroutineLabel,
  siteLine,
  type PotentialDeadlock,
  type Verdict,
} from "../../model/index.js";
import { MISSING, plural } from "../../core/index.js";
import { escapeXml } from "../escape.js";
import { markdownTable } from "../markdown.js";
import { shortName } from "./names.js";
import type { ReportSection } from "../types.js";

/**
 * The pictures of a bug or potential deadlock, by fingerprint: its wait-for graph and its
 * timeline as SVG markup (drawn by the report's own renderers and inserted as they are),
 * or null when none was drawn; the view then says so.
 */
export interface BugPictures {
  graph(fingerprint: string): string | null;
  timeline(fingerprint: string): string | null;
}

/** No picture of any bug. */
export const NO_PICTURES: BugPictures = { graph: () => null, timeline: () => null };

/** A bug's verdict, or "potential" for a deadlock the recorded lock orders make possible though no run hung on it. */
export type BugVerdict = Verdict | "potential";

/** In the order a reader needs them. */
export const BUG_VERDICTS: readonly BugVerdict[] = ["proven", "likely", "inconclusive", "potential"];

/** Blocked forever first, then the kinds that are alive or undecided, then the potential deadlocks' patterns. */
const KIND_ORDER: readonly string[] = [
  "deadlock",
  "leak",
  "outlived",
  "inconclusive",
  "background",
  "lock-order",
  "recursive-read",
];

/** One goroutine (or its repetitions) of a bug: where it waits, and how it got there. */
export interface BugStack {
  /** "label ×count: wait at file:line (created at …; blocked in x/y runs)". */
  readonly head: string;
  /** How the rule judged it on its own, when that is not the bug's kind or verdict ("likely leak — why"); else null. */
  readonly own: string | null;
  /** User frames, innermost first, short names. */
  readonly frames: readonly string[];
}

/** A bug or potential deadlock as the report shows it. */
export interface BugEntry {
  /** The HTML id of its view: "bug-" and its fingerprint. */
  readonly anchor: string;
  readonly fingerprint: string;
  readonly verdict: BugVerdict;
  /** A finding kind (leak, deadlock, outlived, inconclusive, background) or a potential deadlock's pattern. */
  readonly kind: string;
  readonly program: string;
  /** The program without the "#TestName" of a split test: what the package filter offers. */
  readonly package: string;
  /** The test path, or the owner when there is no test (a main program, a potential deadlock). */
  readonly test: string | null;
  readonly goroutines: number;
  readonly runs: number;
  /** The explanation (or the verdict's reason when none was made). */
  readonly why: string;
  /** What decided the verdict; null for a potential deadlock, which no run decided. */
  readonly evidence: string | null;
  readonly stacks: readonly BugStack[];
  /** Goroutines (or repetitions) left out of `stacks`. */
  readonly moreGoroutines: number;
  /** Commands: replay the run, open its trace; for a potential deadlock, where it was seen. */
  readonly next: readonly string[];
}

/** Goroutine groups shown per bug, and frames per goroutine: enough to see the wait; the rest is in `schedlab leaks --json`. */
const STACKS_SHOWN = 8;
const FRAMES_SHOWN = 12;

/** "VERDICT kind — program test [fingerprint]": the line a bug is known by. */
export function bugHead(entry: BugEntry): string {
  return `${entry.verdict.toUpperCase()} ${entry.kind} — ${entry.program}${entry.test === null ? "" : ` ${entry.test}`} [${entry.fingerprint}]`;
}

/** A bug's goroutines folded by (label without ordinal, site, wait), so the siblings of a loop are one stack. */
function bugStacks(bug: BugReport, findings: ReadonlyMap<string, LeakFinding>): BugStack[] {
  const differing = new Map(bug.differing.map((m) => [m.goroutine, m]));
  const groups = new Map<string, { finding: LeakFinding | null; id: string; count: number }>();
  for (const id of bug.goroutines) {
    const f = findings.get(id) ?? null;
    const key = `${goroutineLabel(id).replace(/#\d+$/, "")}|${f?.blockingSite ?? ""}|${f?.wait ?? ""}`;
    const seen = groups.get(key);
    if (seen === undefined) groups.set(key, { finding: f, id, count: 1 });
    else seen.count++;
  }
  return [...groups.values()].map(({ finding: f, id, count }) => {
    const label = count > 1 ? `${goroutineLabel(id).replace(/#\d+$/, "")} ×${count}` : goroutineLabel(id);
    const judged = differing.get(id);
    const own = judged === undefined ? null : `${judged.verdict} ${judged.kind} — ${judged.why}`;
    if (f === null) return { head: label, own, frames: [] };
    const created = f.isRoot ? "root" : `created at ${f.creationSiteKey ?? shortName(f.creationSite)}`;
    const stack = f.explanation?.stack ?? [];
    return {
      head:
        `${label}: ${f.wait} at ${siteLine(f.blockingSite)} ` +
        `(${created}; blocked in ${f.runsBlocked}/${f.runsSeen} runs)`,
      own,
      frames: [
        ...stack.slice(0, FRAMES_SHOWN).map(shortName),
        ...(stack.length > FRAMES_SHOWN ? [`… ${stack.length - FRAMES_SHOWN} more frame(s)`] : []),
      ],
    };
  });
}

function potentialEntry(p: PotentialDeadlock): Omit<BugEntry, "anchor"> {
  const stacks = p.steps.map((step) => ({
    head: `${goroutineLabel(step.goroutine)}: took ${siteLine(step.heldAt)}, then asked at ${siteLine(step.takenAt)}`,
    own: null,
    frames: (step.takenStack ?? "")
      .split(";")
      .slice(1)
      .filter((frame) => frame !== "")
      .slice(0, FRAMES_SHOWN)
      .map(shortName),
  }));
  return {
    fingerprint: p.fingerprint,
    verdict: "potential",
    kind: p.pattern,
    program: p.program,
    package: fingerprintProgram(p.program),
    test: p.owner,
    goroutines: new Set(p.steps.map((s) => s.goroutine)).size,
    runs: p.runIds.length,
    why: p.why,
    evidence: null,
    stacks: stacks.slice(0, STACKS_SHOWN),
    moreGoroutines: Math.max(0, stacks.length - STACKS_SHOWN),
    next: [`seen in ${plural(p.runIds.length, "run")}, none of which hung on it`],
  };
}

/**
 * Every bug, then every potential deadlock, as entries in reading order: by verdict
 * (proven, likely, inconclusive, potential), within a verdict blocked forever first
 * (deadlock, leak, then outlived, inconclusive, background), then by program, test and
 * fingerprint. Anchors are unique on a page.
 */
export function bugEntries(analysis: LeakAnalysis): BugEntry[] {
  const findings = new Map(analysis.findings.map((f) => [`${f.program}\u0000${f.goroutine}`, f]));
  const bugs = analysis.bugs.map((bug): Omit<BugEntry, "anchor"> => {
    const own = new Map<string, LeakFinding>();
    for (const g of bug.goroutines) {
      const f = findings.get(`${bug.program}\u0000${g}`);
      if (f !== undefined) own.set(g, f);
    }
    const stacks = bugStacks(bug, own);
    return {
      fingerprint: bug.fingerprint,
      verdict: bug.verdict,
      kind: bug.kind,
      program: bug.program,
      package: fingerprintProgram(bug.program),
      test: bug.test ?? bug.owner,
      goroutines: bug.goroutines.length,
      runs: bug.runIds.length,
      why: bug.explained?.explanation.text ?? bug.why,
      evidence: evidenceText(bug.evidence),
      stacks: stacks.slice(0, STACKS_SHOWN),
      moreGoroutines: Math.max(0, stacks.length - STACKS_SHOWN),
      next: [bug.replay, bug.trace === null ? null : `go tool trace ${bug.trace}`].filter(
        (x): x is string => x !== null,
      ),
    };
  });
  const rank = (e: Omit<BugEntry, "anchor">): [number, number] => [
    BUG_VERDICTS.indexOf(e.verdict),
    KIND_ORDER.indexOf(e.kind),
  ];
  const sorted = [...bugs, ...analysis.potentialDeadlocks.map(potentialEntry)].sort((a, b) => {
    const [va, ka] = rank(a);
    const [vb, kb] = rank(b);
    return (
      va - vb ||
      ka - kb ||
      a.program.localeCompare(b.program) ||
      (a.test ?? "").localeCompare(b.test ?? "") ||
      a.fingerprint.localeCompare(b.fingerprint)
    );
  });
  const anchors = new Map<string, number>();
  return sorted.map((e) => {
    const n = (anchors.get(e.fingerprint) ?? 0) + 1;
    anchors.set(e.fingerprint, n);
    return { ...e, anchor: n === 1 ? `bug-${e.fingerprint}` : `bug-${e.fingerprint}-${n}` };
  });
}

const TABLE_HEADERS = ["verdict", "kind", "program", "test", "goroutines", "runs", "fingerprint"] as const;
const TABLE_NUMERIC = [4, 5];

function tableCells(e: BugEntry): string[] {
  return [e.verdict, e.kind, e.program, e.test ?? MISSING, String(e.goroutines), String(e.runs), e.fingerprint];
}

/** The data attributes the filter script reads, on a table row and on a view alike. */
function filterAttributes(e: BugEntry): string {
  return `data-bug data-verdict="${escapeXml(e.verdict)}" data-kind="${escapeXml(e.kind)}" data-package="${escapeXml(e.package)}"`;
}

function tableHtml(entries: readonly BugEntry[]): string {
  const numeric = new Set(TABLE_NUMERIC);
  const th = TABLE_HEADERS.map((h, i) => `<th${numeric.has(i) ? ' class="num"' : ""}>${escapeXml(h)}</th>`).join("");
  const rows = entries.map((e) => {
    const cells = tableCells(e).map((text, i) => {
      if (i === 0) return `<td><span class="verdict verdict-${escapeXml(e.verdict)}">${escapeXml(text)}</span></td>`;
      if (i === TABLE_HEADERS.length - 1)
        return `<td><a href="#${escapeXml(e.anchor)}"><code>${escapeXml(text)}</code></a></td>`;
      return `<td${numeric.has(i) ? ' class="num"' : ""}>${escapeXml(text)}</td>`;
    });
    return `<tr ${filterAttributes(e)}>${cells.join("")}</tr>`;
  });
  return `<div class="scroll"><table class="bug-table"><thead><tr>${th}</tr></thead>\n<tbody>${rows.join("\n")}</tbody></table></div>`;
}

/** The checkboxes and the select of the filters: hidden until the script shows them, since only it makes them work. */
function filtersHtml(entries: readonly BugEntry[]): string {
  const tally = (values: readonly string[]): [string, number][] => {
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    return [...counts];
  };
  const boxes = (name: string, values: [string, number][]): string =>
    values
      .map(
        ([value, n]) =>
          `<label><input type="checkbox" name="${name}" value="${escapeXml(value)}" checked> ` +
          `${escapeXml(value)} (${n})</label>`,
      )
      .join(" ");
  const packages = tally(entries.map((e) => e.package)).sort(([a], [b]) => a.localeCompare(b));
  const options = packages.map(([p, n]) => `<option value="${escapeXml(p)}">${escapeXml(p)} (${n})</option>`).join("");
  return (
    `<form class="bug-filters" hidden>` +
    `<fieldset><legend>Verdict</legend>${boxes("verdict", tally(entries.map((e) => e.verdict)))}</fieldset>` +
    `<fieldset><legend>Kind</legend>${boxes("kind", tally(entries.map((e) => e.kind)))}</fieldset>` +
    `<fieldset><legend>Package</legend><select name="package"><option value="">all (${entries.length})</option>${options}</select></fieldset>` +
    `<output name="shown"></output></form>`
  );
}

/**
 * Hides the rows and views the filters leave out, and says how many are shown. It only
 * hides: with scripts off every row and view is on the page. No handler attributes, no
 * external code.
 */
const FILTER_SCRIPT = `(() => {
  const section = document.currentScript.closest("section");
  const form = section.querySelector("form.bug-filters");
  const items = section.querySelectorAll("[data-bug]");
  const rows = section.querySelectorAll("tr[data-bug]").length;
  const checked = (name) => new Set([...form.querySelectorAll("input[name=" + name + "]:checked")].map((i) => i.value));
  const apply = () => {
    const verdicts = checked("verdict");
    const kinds = checked("kind");
    const pkg = form.elements.package.value;
    let shown = 0;
    for (const item of items) {
      const d = item.dataset;
      const show = verdicts.has(d.verdict) && kinds.has(d.kind) && (pkg === "" || d.package === pkg);
      item.hidden = !show;
      if (show && item.tagName === "TR") shown++;
    }
    form.elements.shown.value = shown + " of " + rows + " shown";
  };
  form.addEventListener("change", apply);
  form.hidden = false;
  apply();
})();`;

function picture(kind: "graph" | "timeline", svg: string | null): string {
  const caption = kind === "graph" ? "Wait-for graph" : "Timeline";
  return svg === null
    ? `<figure class="bug-${kind} no-picture"><p class="note">no picture</p><figcaption>${caption}</figcaption></figure>`
    : `<figure class="bug-${kind}">${svg}<figcaption>${caption}</figcaption></figure>`;
}

function stackText(entry: BugEntry): string {
  const lines = entry.stacks.flatMap((s) => [
    s.head,
    ...(s.own === null ? [] : [`    on its own: ${s.own}`]),
    ...s.frames.map((f) => `    ${f}`),
  ]);
  if (entry.moreGoroutines > 0)
    lines.push(`… ${plural(entry.moreGoroutines, "more goroutine")} in schedlab leaks --json`);
  return lines.join("\n");
}

/** One bug's view: head, why, evidence, the two pictures, the stacks folded, the commands. */
export function bugViewHtml(
  entry: BugEntry,
  pictures: BugPictures,
  options: { readonly backTo?: string } = {},
): string {
  const head =
    `<span class="verdict verdict-${escapeXml(entry.verdict)}">${escapeXml(entry.verdict.toUpperCase())}</span> ` +
    `${escapeXml(entry.kind)} — ${escapeXml(entry.program)}${entry.test === null ? "" : ` ${escapeXml(entry.test)}`} ` +
    `<code>${escapeXml(entry.fingerprint)}</code>`;
  const stacks = stackText(entry);
  return [
    `<article class="bug" id="${escapeXml(entry.anchor)}" ${filterAttributes(entry)}>`,
    `<h3>${head}</h3>`,
    `<p>${escapeXml(entry.why)}</p>`,
    entry.evidence === null ? "" : `<p class="note">Evidence: ${escapeXml(entry.evidence)}.</p>`,
    `<div class="bug-pictures">${picture("graph", pictures.graph(entry.fingerprint))}${picture("timeline", pictures.timeline(entry.fingerprint))}</div>`,
    stacks === ""
      ? ""
      : `<details class="stacks"><summary>Stacks (${plural(entry.goroutines, "goroutine")})</summary><pre>${escapeXml(stacks)}</pre></details>`,
    entry.next.length === 0 ? "" : `<pre class="commands">${escapeXml(entry.next.join("\n"))}</pre>`,
    options.backTo === undefined
      ? ""
      : `<p class="note"><a href="#${escapeXml(options.backTo)}">back to the table</a></p>`,
    `</article>`,
  ]
    .filter((part) => part !== "")
    .join("\n");
}

/** One bug's view in Markdown: head, why, evidence, stacks and commands in code blocks. */
export function bugViewMarkdown(entry: BugEntry): string {
  const stacks = stackText(entry);
  return [
    `### ${bugHead(entry)}`,
    entry.why,
    entry.evidence === null ? "" : `Evidence: ${entry.evidence}.`,
    stacks === "" ? "" : `\`\`\`\n${stacks}\n\`\`\``,
    entry.next.length === 0 ? "" : `\`\`\`\n${entry.next.join("\n")}\n\`\`\``,
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}

/** Each picture asked of the hook once, however many forms are rendered. */
function memoised(pictures: BugPictures): BugPictures {
  const graphs = new Map<string, string | null>();
  const timelines = new Map<string, string | null>();
  const once = (cache: Map<string, string | null>, draw: (f: string) => string | null) => (f: string) => {
    if (!cache.has(f)) cache.set(f, draw(f));
    return cache.get(f) ?? null;
  };
  return {
    graph: once(graphs, (f) => pictures.graph(f)),
    timeline: once(timelines, (f) => pictures.timeline(f)),
  };
}

/** What an entry is in metrics.json and `show --json`: the entry and which pictures it has. */
export function bugEntryJson(entry: BugEntry, pictures: BugPictures): unknown {
  return {
    ...entry,
    pictures: {
      graph: pictures.graph(entry.fingerprint) !== null,
      timeline: pictures.timeline(entry.fingerprint) !== null,
    },
  };
}

/**
 * The bug section, right after the overview: the counts, the filters, the table of bugs
 * (proven first) linking to each bug's view, the views, and the filter script.
 */
export function bugSection(analysis: LeakAnalysis | null, pictures: BugPictures = NO_PICTURES): ReportSection {
  const entries = analysis === null ? [] : bugEntries(analysis);
  const drawn = memoised(pictures);
  const intro =
    analysis === null
      ? "The leak stage did not run; see the warnings in the overview."
      : `Bugs: ${bugCounts(analysis)}. Each bug is the goroutines of one test (repetitions folded) that end ` +
        "blocked together or wait for one another; its verdict comes first (proven: " +
        "a hang or a wait-for cycle; likely: blocked forever in a finished run), then why, " +
        "the stacks at the block, and the commands to replay the run and open its trace." +
        (entries.length === 0 ? "" : " The table lists them proven first; each fingerprint links to its bug.");
  const rows = entries.map(tableCells);
  return {
    id: "bugs",
    title: "Bugs",
    html: () =>
      entries.length === 0
        ? `<p>${escapeXml(intro)}</p>`
        : [
            `<p>${escapeXml(intro)}</p>`,
            filtersHtml(entries),
            tableHtml(entries),
            ...entries.map((e) => bugViewHtml(e, drawn, { backTo: "bugs" })),
            `<script>${FILTER_SCRIPT}</script>`,
          ].join("\n"),
    markdown: () =>
      entries.length === 0
        ? intro
        : [intro, markdownTable(TABLE_HEADERS, rows, TABLE_NUMERIC), ...entries.map(bugViewMarkdown)].join("\n\n"),
    json: () => ({ bugs: entries.map((e) => bugEntryJson(e, drawn)) }),
  };
}
