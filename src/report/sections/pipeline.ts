// Report sections of `schedlab run`: the overview (headline numbers, stage timings,
// settings, warnings), the leak table with sites, the flaky tests, and rollout survival.

import type { BootstrapInterval } from "../../metrics/index.js";
import { bugCounts, evidenceText, kindCounts, type LeakAnalysis } from "../../leaks/index.js";
import type { RolloutReport, StoredRolloutRun } from "../../rollout/index.js";
import { escapeXml } from "../escape.js";
import { fixed, MISSING, pct, pctInterval, plural, EVENT_TYPES } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import { barChart } from "../svg/index.js";
import { accuracyMeansText, bootstrapIntervalCell, estimateWithInterval } from "./evaluationTables.js";
import { crossValidationLine, type CrossValidationBoard } from "./crossValidation.js";
import type { SampleConcentration, WeightedFigures } from "../../eval/index.js";
import type { ReportSection } from "../types.js";

/** One evaluated test set as the overview shows it: the in-distribution holdout or a test corpus. */
export interface OverviewEvaluation {
  /** "in-distribution holdout" or "test corpus NAME". */
  readonly title: string;
  readonly holdout: string;
  readonly testPrograms: readonly string[];
  readonly families: { readonly train: number; readonly validation: number; readonly test: number };
  readonly evalRunId: number;
  /** The student chosen on validation, by its shown name, or null. */
  readonly best: string | null;
  readonly predictors: readonly OverviewPredictor[];
}

/** One predictor's headline numbers on a test set (`schedlab run`'s summary adds its spec and recall). */
export interface OverviewPredictor {
  readonly name: string;
  readonly accuracy: number;
  /** Cluster (family, or program) bootstrap 95 % interval of `accuracy`. */
  readonly accuracyInterval: BootstrapInterval;
  /** Accuracy on the runs it did not read its prefix from (PredictorEvaluation.otherRunsAccuracy); absent before it existed. */
  readonly otherRunsAccuracy?: number;
  readonly ceiling: number;
  /** Leave-one-run-out ceiling. */
  readonly ceilingLoo: number;
  readonly majority: number;
  readonly ece: number;
  /** Cluster bootstrap 95 % interval of `ece` (see PredictorEvaluation.eceInterval). */
  readonly eceInterval: BootstrapInterval;
  readonly macroF1: number;
  /** Accuracy, ECE and NLL with every family, and every program, counted once; absent before they existed. */
  readonly means?: WeightedFigures;
  /** How much of the pooled figures the largest programs hold. */
  readonly concentration?: SampleConcentration;
}

/** What the overview shows; the pipeline fills it in (the report stage does not depend on it). */
export interface OverviewInput {
  readonly programs: number;
  readonly abstraction: string;
  /** The in-distribution holdout first, then each test corpus. */
  readonly evaluations: readonly OverviewEvaluation[];
  /** The leave-family-out CV scoreboard, the headline when present (null: the stage did not run). */
  readonly crossValidation?: CrossValidationBoard | null;
  readonly leaks: {
    readonly findings: number;
    readonly programsWithFindings: number;
    readonly programsAnalysed: number;
    readonly precision: number | null;
    readonly recall: number | null;
    readonly falsePositivesOnClean: number;
  } | null;
  readonly rollout: {
    readonly predictor: string;
    readonly steps: number;
    readonly meanSurvival: number;
    readonly kStepAccuracy: number;
    readonly reachedK: number;
    readonly greedy: { readonly meanSurvival: number; readonly reachedK: number };
  } | null;
  readonly settings: {
    readonly corpus: string;
    readonly testCorpora: readonly string[];
    readonly quick: boolean;
    readonly runs: number;
    readonly timeoutMs: number;
    readonly studentModel: string;
  };
  readonly collected: {
    readonly programs: number;
    readonly executed: number;
    readonly skipped: number;
    readonly buildErrors: number;
  };
  readonly stages: readonly {
    readonly stage: string;
    readonly status: string;
    readonly elapsedMs: number;
    readonly note: string;
  }[];
  readonly warnings: readonly string[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** "(half of its samples from 2 of 60 programs)" or "". */
function pooledWeighs(p: OverviewPredictor): string {
  const c = p.concentration;
  return c === undefined || c.programs === 0
    ? ""
    : ` (half of its samples from ${c.programsForHalf} of ${plural(c.programs, "program")})`;
}

function headline(input: OverviewInput): string[] {
  const lines: string[] = [];
  const main = input.evaluations[0];
  if (input.crossValidation !== undefined && input.crossValidation !== null) {
    lines.push(
      `Headline — ${crossValidationLine(input.crossValidation, main?.best ?? null)}. ` +
        "Every program is tested once, by predictors trained on folds without its family; the family and program " +
        "means weigh each family, and each program, once, where the pooled figure follows the longest programs.",
    );
  }
  for (const e of input.evaluations) {
    const best = e.predictors.find((p) => p.name === e.best);
    const where = `${plural(e.testPrograms.length, "program")} in ${plural(e.families.test, "family", "families")} (${e.title}, eval run ${e.evalRunId})`;
    const means = best?.means === undefined ? "" : accuracyMeansText(best.means);
    lines.push(
      best === undefined
        ? `No student could be trained; the baselines on ${where} are below.`
        : `On ${where}, the student chosen on validation, ${best.name}, ` +
            `predicts the next scheduling event with accuracy ${pct(best.accuracy)} ${pctInterval(best.accuracyInterval)} pooled${pooledWeighs(best)}` +
            (means === "" ? "" : `, ${means}`) +
            (best.otherRunsAccuracy === undefined
              ? ", "
              : ` (${pct(best.otherRunsAccuracy)} on the runs other than the one whose prefix it read), `) +
            `against ${pct(best.majority)} for always guessing the majority event and a ceiling ` +
            `of ${pct(best.ceiling)} (${pct(best.ceilingLoo)} leave-one-run-out: ` +
            "the most frequent next event of each state, which no predictor can beat)" +
            (best.means === undefined
              ? "."
              : `; ECE ${fixed(best.ece)} pooled, ${estimateWithInterval(best.means.ece.familyMean.estimate, best.means.ece.familyMean)} ` +
                `family mean, ${estimateWithInterval(best.means.ece.programMean.estimate, best.means.ece.programMean)} program mean.`),
    );
  }
  lines.push(`${input.programs} programs in all; ${input.abstraction} states; training and test never share a family.`);
  if (input.leaks !== null) {
    lines.push(
      `Leak detection found ${plural(input.leaks.findings, "goroutine")} blocked forever ` +
        `in ${input.leaks.programsWithFindings} of ${plural(input.leaks.programsAnalysed, "program")}; ` +
        `against the manifests' labels precision ${pct(input.leaks.precision)}, ` +
        `recall ${pct(input.leaks.recall)}, ${plural(input.leaks.falsePositivesOnClean, "false positive")} on ` +
        "clean programs.",
    );
  }
  if (input.rollout !== null) {
    lines.push(
      `Rolled out ${input.rollout.steps} steps without constraints, ${input.rollout.predictor} stays valid ` +
        `for ${input.rollout.greedy.meanSurvival.toFixed(2)} steps on average greedily ` +
        `(${pct(input.rollout.greedy.reachedK)} reach step ${input.rollout.steps}) ` +
        `and ${input.rollout.meanSurvival.toFixed(2)} when sampled (${pct(input.rollout.reachedK)}).`,
    );
  }
  return lines;
}

const PREDICTOR_HEADERS = [
  "test set",
  "predictor",
  "accuracy",
  "95% CI",
  "other runs",
  "majority",
  "ceiling",
  "LOO ceiling",
  "gap to LOO ceiling (other runs)",
  "macro-F1",
  "ECE",
  "ECE 95% CI",
] as const;
const STAGE_HEADERS = ["stage", "status", "time", "what happened"] as const;

/** First section: the answer in a few sentences, every test set's predictors side by side, how the run went. */
export function overviewSection(input: OverviewInput): ReportSection {
  const rows = input.evaluations.flatMap((e) =>
    e.predictors.map((p) => [
      e.title,
      p.name === e.best ? `${p.name} (chosen)` : p.name,
      pct(p.accuracy),
      bootstrapIntervalCell(p.accuracyInterval),
      p.otherRunsAccuracy === undefined ? MISSING : pct(p.otherRunsAccuracy),
      pct(p.majority),
      pct(p.ceiling),
      pct(p.ceilingLoo),
      pct(p.ceilingLoo - (p.otherRunsAccuracy ?? p.accuracy)),
      fixed(p.macroF1),
      fixed(p.ece),
      bootstrapIntervalCell(p.eceInterval),
    ]),
  );
  const stageRows = input.stages.map((s) => [
    s.stage,
    s.status,
    s.status === "skipped" ? MISSING : seconds(s.elapsedMs),
    s.note,
  ]);
  const first = input.evaluations[0];
  const chart =
    first === undefined
      ? ""
      : barChart({
          title: `Accuracy of each predictor (${first.title}), with the ceilings and the majority baseline`,
          categories: first.predictors.map((p) => p.name),
          series: [
            { name: "accuracy", values: first.predictors.map((p) => p.accuracy) },
            { name: "LOO ceiling", values: first.predictors.map((p) => p.ceilingLoo) },
            { name: "majority", values: first.predictors.map((p) => p.majority) },
          ],
          max: 1,
          yLabel: "accuracy",
          width: Math.max(560, 110 * first.predictors.length + 120),
        });
  const testCorpora =
    input.settings.testCorpora.length === 0
      ? ""
      : `; test corpora ${input.settings.testCorpora.join(", ")} (never trained on)`;
  const familySplits = input.evaluations
    .map(
      (e) => `${e.title} ${e.families.train - e.families.validation} / ${e.families.validation} / ${e.families.test}`,
    )
    .join("; ");
  const settings =
    `Corpus ${input.settings.corpus}${input.settings.quick ? " (--quick: one program per family)" : ""}${testCorpora}; ` +
    `${input.settings.runs} runs per program, deadline ${seconds(input.settings.timeoutMs)}; ` +
    `${input.collected.programs} programs collected (${input.collected.executed} runs executed now, ` +
    `${input.collected.skipped} resumed` +
    `${input.collected.buildErrors > 0 ? `, ${input.collected.buildErrors} build errors` : ""}); ` +
    `students: ${input.settings.studentModel}. Families (train / validation / test): ${familySplits}.`;
  const warnings =
    input.warnings.length === 0
      ? ""
      : `<h3>Warnings</h3><ul>${input.warnings.map((w) => `<li>${escapeXml(w)}</li>`).join("")}</ul>`;
  const numeric = [2, 3, 4, 5, 6, 7, 8, 9, 10];
  return {
    id: "overview",
    title: "Overview",
    html: () =>
      [
        ...headline(input).map((line) => `<p>${escapeXml(line)}</p>`),
        `<div class="scroll">${htmlTable({ headers: PREDICTOR_HEADERS, rows, numeric })}</div>`,
        chart === ""
          ? ""
          : `<div class="charts"><figure>${chart}<figcaption>Accuracy against each run's observed next event ` +
            "on the held-out programs.</figcaption></figure></div>",
        `<h3>How this run went</h3><p class="note">${escapeXml(settings)}</p>`,
        htmlTable({ headers: STAGE_HEADERS, rows: stageRows, numeric: [2] }),
        warnings,
      ].join("\n"),
    markdown: () =>
      [
        ...headline(input),
        markdownTable(PREDICTOR_HEADERS, rows, numeric),
        settings,
        markdownTable(STAGE_HEADERS, stageRows, [2]),
        ...(input.warnings.length === 0 ? [] : ["Warnings:", input.warnings.map((w) => `- ${w}`).join("\n")]),
      ].join("\n\n"),
    json: () => input,
  };
}

const LEAK_HEADERS = [
  "program",
  "test",
  "goroutine",
  "count",
  "kind",
  "verdict",
  "reason",
  "created at",
  "blocked at",
  "runs blocked / seen",
  "P(GoUnblock) ≤",
  "why",
] as const;
const RACE_HEADERS = [
  "program",
  "access",
  "racing with",
  "goroutines created at",
  "runs reporting / searched",
] as const;
const CRASH_HEADERS = ["program", "test", "goroutine", "reason", "blocked at", "crashed runs"] as const;

type Finding = LeakAnalysis["findings"][number];

/** The last path component of a function or site, so the table stays readable: "pkg/x.(*T).run" → "x.(*T).run". */
function short(text: string | null): string {
  if (text === null) return MISSING;
  return text
    .split(" ")
    .map((part) => part.slice(part.lastIndexOf("/") + 1))
    .join(" ");
}

/** "pkg.f /x/y/file.go:12" → "file.go:12": the goroutine column already names the function. */
function lastToken(site: string | null): string {
  if (site === null) return MISSING;
  const token = site.split(" ").pop()!;
  return token.slice(token.lastIndexOf("/") + 1);
}

/**
 * Findings grouped by (program, test, entry, kind, reason, sites): sibling goroutines from
 * one `go` statement in a loop are one row with a count. Pure; rows in program order.
 */
export function leakRows(findings: readonly Finding[]): string[][] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = JSON.stringify([
      f.program,
      f.test,
      f.entry,
      f.kind,
      f.verdict,
      f.reason,
      f.creationSite,
      f.blockingSite,
    ]);
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()].map((group) => {
    const f = group[0]!;
    const blocked = Math.min(...group.map((g) => g.runsBlocked));
    const seen = Math.max(...group.map((g) => g.runsSeen));
    return [
      f.program,
      f.test ?? MISSING,
      short(f.entry ?? f.goroutine),
      String(group.length),
      f.kind,
      f.verdict,
      f.reason,
      f.isRoot ? "(root goroutine)" : (f.creationSiteKey ?? short(f.creationSite)),
      lastToken(f.blockingSite),
      `${blocked} / ${seen}`,
      fixed(Math.max(...group.map((g) => g.pUnblockUpper))),
      f.why,
    ];
  });
}

/** One row per data race: both accesses (kind and top user frame), where the goroutines were created, runs. */
export function raceRows(races: LeakAnalysis["races"]): string[][] {
  return races.map((r) => [
    r.program,
    `${r.accesses[0]} ${short(r.frames[0])}`,
    `${r.accesses[1]} ${short(r.frames[1])}`,
    r.createdAt.map((c) => short(c)).join(", "),
    `${r.runs} / ${r.runsChecked}`,
  ]);
}

/** One row per goroutine that was blocked when a run crashed (not a leak). */
export function crashRows(blocked: LeakAnalysis["blockedAtCrash"]): string[][] {
  return blocked.map((b) => [
    b.program,
    b.test ?? MISSING,
    short(b.entry ?? b.goroutine),
    b.reason,
    short(b.blockingSite),
    String(b.runsCrashed),
  ]);
}

/** One bug or potential deadlock as the report shows it: a verdict line, why, and the stacks that lead there. */
interface BugView {
  readonly head: string;
  readonly why: string;
  readonly stacks: readonly string[];
  readonly next: readonly string[];
}

/** The bugs first (blocked forever, then the other kinds), then the potential deadlocks. */
export function bugViews(analysis: LeakAnalysis): BugView[] {
  const findings = new Map(analysis.findings.map((f) => [`${f.program}\u0000${f.goroutine}`, f]));
  const rank = (b: LeakAnalysis["bugs"][number]): number =>
    b.gating ? 0 : ["leak", "deadlock", "outlived", "inconclusive", "background"].indexOf(b.kind) + 1;
  const bugs = [...analysis.bugs]
    .sort((a, b) => rank(a) - rank(b))
    .map((bug) => ({
      head: `${bug.verdict.toUpperCase()} ${bug.kind} — ${bug.program}${bug.test === null ? "" : ` ${bug.test}`} [${bug.fingerprint}]`,
      why: `${bug.explained?.explanation.text ?? bug.why} Evidence: ${evidenceText(bug.evidence)}.`,
      stacks: bug.goroutines.slice(0, 4).map((g) => {
        const f = findings.get(`${bug.program}\u0000${g}`);
        return f === undefined
          ? short(g)
          : [
              `${short(f.entry ?? g)}: ${f.wait} at ${lastToken(f.blockingSite)}`,
              ...(f.explanation?.stack ?? []).slice(0, 4).map((frame) => `    ${short(frame)}`),
            ].join("\n");
      }),
      next: [bug.replay, bug.trace === null ? null : `go tool trace ${bug.trace}`].filter(
        (x): x is string => x !== null,
      ),
    }));
  const potential = analysis.potentialDeadlocks.map((p) => ({
    head: `POTENTIAL ${p.pattern} — ${p.program} ${p.owner} [${p.fingerprint}]`,
    why: p.why,
    stacks: p.steps.map((step) =>
      [
        `${short(step.goroutine.split("/").pop() ?? step.goroutine)}: took ${lastToken(step.heldAt)}, then asked at ${lastToken(step.takenAt)}`,
        ...(step.takenStack ?? "")
          .split(";")
          .slice(1, 5)
          .filter((x) => x !== "")
          .map((frame) => `    ${short(frame)}`),
      ].join("\n"),
    ),
    next: [`seen in ${plural(p.runIds.length, "run")}, none of which hung on it`],
  }));
  return [...bugs, ...potential];
}

/**
 * The leak table: every goroutine the leak rule judged — blocked forever (leak, deadlock)
 * first, then outlived, inconclusive and background — with its verdict, test, sites and
 * why; then the data races of -race runs and the goroutines that were only blocked when a
 * run crashed.
 */
export function leakSection(analysis: LeakAnalysis | null, score: OverviewInput["leaks"]): ReportSection {
  const order = (f: Finding): number =>
    f.gating ? 0 : ["leak", "deadlock", "outlived", "inconclusive", "background"].indexOf(f.kind) + 1;
  const findings = [...(analysis?.findings ?? [])].sort((a, b) => order(a) - order(b));
  const blockedForever = findings.filter((f) => f.gating);
  const rows = leakRows(findings);
  const races = raceRows(analysis?.races ?? []);
  const crashed = crashRows(analysis?.blockedAtCrash ?? []);
  const intro =
    analysis === null
      ? "The leak stage did not run; see the warnings in the overview."
      : `${plural(blockedForever.length, "goroutine")} blocked forever (${kindCounts(findings)}) ` +
        `in ${analysis.programs.filter((p) => p.findings.some((f) => f.gating)).length} ` +
        `of ${plural(analysis.programs.length, "program")}. Kinds: leak and deadlock are blocked forever; ` +
        "outlived goroutines are alive (a timer, ticker or context can wake them) after their test ended; " +
        "inconclusive ones were left waiting while a goroutine that woke the same wait elsewhere was still " +
        "live, or only in runs the deadline cut; background ones predate the test or belong to init or " +
        "TestMain. The verdict comes first (proven needs a proof: the runtime's goroutine leak profile, a hang " +
        "of every goroutine of the process, a cycle, a wait nothing can end; likely: the trace and the source " +
        "say so, and the text says which proof is missing), with the evidence that decided it; " +
        "siblings started by the same go statement share a row (count), " +
        "goroutines of tests are listed under their test and subtest, " +
        "and the P(GoUnblock) column is a one-sided 95 % Clopper–Pearson upper bound from the wake-ups counted " +
        `within runs; \`schedlab leaks\` lists every goroutine with its canonical id.` +
        (score === null
          ? ""
          : ` Against the manifests' labels: precision ${pct(score.precision)}, ` +
            `recall ${pct(score.recall)}, ${plural(score.falsePositivesOnClean, "false positive")} on clean ` +
            "programs.");
  const raceIntro =
    analysis === null || analysis.raceRunsChecked === 0
      ? ""
      : `Data races: ${plural(analysis.races.length, "race")} reported ` +
        `by ${plural(analysis.raceRunsChecked, "-race run")} searched, ` +
        "each by the top user frames of its two accesses.";
  const crashIntro =
    crashed.length === 0
      ? ""
      : "Blocked when a run crashed (a panic or fatal error ended the wait; not leaks, " +
        `and crashed runs are left out of the table above): ${plural(crashed.length, "goroutine")}.`;
  const htmlPart = (text: string, headers: readonly string[], body: string[][], numeric: number[]): string =>
    text === ""
      ? ""
      : `\n<p>${escapeXml(text)}</p>${body.length === 0 ? "" : `\n<div class="scroll">${htmlTable({ headers, rows: body, numeric })}</div>`}`;
  const markdownPart = (text: string, headers: readonly string[], body: string[][], numeric: number[]): string =>
    text === "" ? "" : `\n\n${text}${body.length === 0 ? "" : `\n\n${markdownTable(headers, body, numeric)}`}`;
  const views = analysis === null ? [] : bugViews(analysis);
  const bugHtml = (v: (typeof views)[number]): string =>
    `<div class="bug"><p><strong>${escapeXml(v.head)}</strong></p><p>${escapeXml(v.why)}</p>` +
    `<pre>${escapeXml([...v.stacks, ...v.next].join("\n"))}</pre></div>`;
  const bugIntro =
    analysis === null
      ? ""
      : `Bugs: ${bugCounts(analysis)}. Each bug is the goroutines of one test (repetitions folded) that end ` +
        "blocked together or wait for one another; its verdict comes first (proven: " +
        "a hang or a wait-for cycle; likely: blocked forever in a finished run), then why, " +
        "the stacks at the block, and the commands to replay the run and open its trace.";
  const bugsHtml = views.length === 0 ? "" : `<p>${escapeXml(bugIntro)}</p>\n${views.map(bugHtml).join("\n")}\n`;
  const bugsMarkdown =
    views.length === 0
      ? ""
      : `${bugIntro}\n\n${views.map((v) => `**${v.head}**\n\n${v.why}\n\n\`\`\`\n${[...v.stacks, ...v.next].join("\n")}\n\`\`\``).join("\n\n")}\n\n`;
  return {
    id: "leaks",
    title: "Goroutine leaks",
    html: () =>
      bugsHtml +
      `<p>${escapeXml(intro)}</p>\n${rows.length === 0 ? "" : `<div class="scroll">${htmlTable({ headers: LEAK_HEADERS, rows, numeric: [3, 9, 10] })}</div>`}` +
      htmlPart(raceIntro, RACE_HEADERS, races, [4]) +
      htmlPart(crashIntro, CRASH_HEADERS, crashed, [5]),
    markdown: () =>
      `${bugsMarkdown}${intro}\n\n${rows.length === 0 ? "" : markdownTable(LEAK_HEADERS, rows, [3, 9, 10])}` +
      markdownPart(raceIntro, RACE_HEADERS, races, [4]) +
      markdownPart(crashIntro, CRASH_HEADERS, crashed, [5]),
    json: () => ({
      score,
      bugs: analysis?.bugs.length ?? 0,
      potentialDeadlocks: analysis?.potentialDeadlocks.length ?? 0,
      findings: findings.length,
      blockedForever: blockedForever.length,
      rows: rows.length,
      races: races.length,
      blockedAtCrash: crashed.length,
    }),
  };
}

const FLAKY_HEADERS = [
  "program",
  "test",
  "kind",
  "runs failed / passed",
  "failed plain",
  "failing configurations",
  "first failure",
  "replay",
] as const;
const TRACER_HEADERS = ["program", "test", "runs", "failure", "fix"] as const;

/** One row per flaky test: how often it failed and passed, under which configurations, its first failure and the command replaying it. */
export function flakyRows(flaky: LeakAnalysis["flaky"]): string[][] {
  return flaky.map((f) => [
    f.program,
    f.test ?? MISSING,
    f.kind,
    `${f.runsFailed} / ${f.runsPassed}`,
    String(f.plainRunsFailed),
    f.strategies.join(", "),
    f.message.split("\n")[0] ?? "",
    f.replay,
  ]);
}

/**
 * One row per test the tracer made fail: a leak check that saw the tracer's goroutine (with
 * the fix), or a crash its untraced rerun did not repeat. Not flaky, not the code's.
 */
export function tracerInducedRows(failures: LeakAnalysis["tracerInduced"]): string[][] {
  return failures.map((f) => {
    const lines = f.message.trim().split("\n");
    const fix =
      f.kind === "fail"
        ? lines.length > 1
          ? lines.at(-1)!
          : MISSING
        : "none needed in the code: it passed when rerun without the tracer";
    return [f.program, f.test ?? MISSING, String(f.runs), lines[0] ?? "", fix];
  });
}

/**
 * Tests flaky under schedule: failed or panicked in some runs and passed in others (the race
 * detector's own failures are the races'), each with its first failing run to replay; then
 * the failures the execution tracer caused, which are not flaky (docs/leaks.md).
 */
export function flakySection(analysis: LeakAnalysis | null): ReportSection {
  const rows = flakyRows(analysis?.flaky ?? []);
  const tracer = tracerInducedRows(analysis?.tracerInduced ?? []);
  const runs = analysis?.programs.reduce((sum, p) => sum + p.runs, 0) ?? 0;
  const intro =
    analysis === null
      ? "The leak stage did not run; see the warnings in the overview."
      : rows.length === 0
        ? `No test failed on some schedules and passed on others in the ${plural(runs, "run")} read.`
        : `${plural(rows.length, "test")} failed on some schedules and passed on others (flaky under ` +
          `schedule; \`schedlab leaks --fail-on-flaky\` or \`schedlab hunt --fail-on flaky\` gate them). ` +
          `"failed plain" counts the failing runs that were neither perturbed nor -race: ` +
          "0 means it fails only under perturbation, -race or another GOMAXPROCS. Replay the first failing run " +
          "with its seed to see it again.";
  const tracerIntro =
    tracer.length === 0
      ? ""
      : "Failures the execution tracer caused (a leak check saw the tracer's own goroutine, or a crash did " +
        "not happen again when the binary was rerun without the tracer): " +
        `not flaky and not counted by a gate; the fix is in the last column. ${plural(tracer.length, "test")}.`;
  return {
    id: "flaky",
    title: "Flaky tests",
    html: () =>
      `<p>${escapeXml(intro)}</p>${rows.length === 0 ? "" : `\n<div class="scroll">${htmlTable({ headers: FLAKY_HEADERS, rows, numeric: [4] })}</div>`}` +
      (tracerIntro === ""
        ? ""
        : `\n<p>${escapeXml(tracerIntro)}</p>\n<div class="scroll">${htmlTable({ headers: TRACER_HEADERS, rows: tracer, numeric: [2] })}</div>`),
    markdown: () =>
      `${intro}${rows.length === 0 ? "" : `\n\n${markdownTable(FLAKY_HEADERS, rows, [4])}`}` +
      (tracerIntro === "" ? "" : `\n\n${tracerIntro}\n\n${markdownTable(TRACER_HEADERS, tracer, [2])}`),
    json: () => ({ flaky: analysis?.flaky ?? [], tracerInduced: analysis?.tracerInduced ?? [] }),
  };
}

const ROLLOUT_HEADERS = [
  "predictor",
  "temperature",
  "steps",
  "rollouts per prefix",
  "prefixes",
  "mean survival",
  "reach k",
  "k-step accuracy",
  "per-step accuracy",
  "L1",
  "KL",
] as const;

/**
 * Rollout survival: how long rolled-out events stay valid under the goroutine state machine.
 * `predictor` is the name shown (e.g. "student:kl" for a `student:/abs/path` spec); `scope`
 * tells apart the rollouts of several test sets on one page.
 */
export function rolloutSection(
  runs: readonly StoredRolloutRun[],
  report: RolloutReport | null,
  predictor = runs[0]?.predictor ?? "",
  scope: { readonly id: string; readonly title: string } = { id: "", title: "" },
): ReportSection {
  const id = scope.id === "" ? "rollout" : `${scope.id}-rollout`;
  const title = `Rollout survival${scope.title}`;
  const run = runs[0];
  if (run === undefined || report === null) {
    const text = "No rollout was run; see the warnings in the overview.";
    return { id, title, html: () => `<p>${escapeXml(text)}</p>`, markdown: () => text, json: () => null };
  }
  const rows = runs.map((r) => [
    predictor,
    r.temperature === 0 ? "0 (greedy)" : String(r.temperature),
    String(r.steps),
    String(r.samples),
    String(r.prefixes),
    fixed(r.meanSurvival, 2),
    pct(r.reachedK),
    pct(r.kStepAccuracy),
    pct(r.perStepAccuracy),
    fixed(r.l1),
    fixed(r.kl),
  ]);
  const histogram = Array.from({ length: run.steps + 1 }, () => 0);
  for (const prefix of report.prefixes) {
    const s = prefix.metrics.meanSurvival;
    if (Number.isFinite(s)) histogram[Math.min(run.steps, Math.max(0, Math.floor(s)))]! += 1;
  }
  const survival = barChart({
    title: "Prefixes by mean survival (steps before the first invalid event)",
    categories: histogram.map((_, i) => (i === run.steps ? `${i}` : `${i}–${i + 1}`)),
    series: [{ name: "prefixes", values: histogram }],
    yLabel: "prefixes",
    width: 520,
  });
  const events = barChart({
    title: "Event types: rolled out against the real continuations",
    categories: [...EVENT_TYPES],
    series: [
      { name: "rolled out", values: report.overall.rolledDistribution },
      { name: "real", values: report.overall.empiricalDistribution },
    ],
    max: 1,
    yLabel: "share",
    width: 520,
  });
  const intro =
    `${predictor} rolled out ${run.steps} steps from each of ${run.prefixes} held-out ` +
    `prefixes, ${run.samples} times ` +
    `sampled${runs.length > 1 ? " and once greedily (its most probable event every step)" : ""}; ` +
    "each step is checked by the goroutine state machine (no start of a goroutine that is not runnable, " +
    "no unblock of one that is not waiting, …).";
  return {
    id,
    title,
    html: () =>
      [
        `<p>${escapeXml(intro)}</p>`,
        htmlTable({ headers: ROLLOUT_HEADERS, rows, numeric: [2, 3, 4, 5, 6, 7, 8, 9, 10] }),
        `<div class="charts"><figure>${survival}<figcaption>Sampled rollouts: ` +
          "a prefix counts in the bin of its rollouts' mean survival; " +
          `the last bin survived all ${run.steps} steps.</figcaption></figure>`,
        `<figure>${events}<figcaption>L1 ${fixed(run.l1)} between the two distributions.</figcaption></figure></div>`,
      ].join("\n"),
    markdown: () => `${intro}\n\n${markdownTable(ROLLOUT_HEADERS, rows, [2, 3, 4, 5, 6, 7, 8, 9, 10])}`,
    json: () => ({ runs, survivalHistogram: histogram }),
  };
}
