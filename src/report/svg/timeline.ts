// The timeline of a bug drawn as SVG: one lane per goroutine involved, coloured by state
// (running, runnable, blocked, waiting, syscall), the last block, goroutine ends and lock
// operations marked, over a time axis in real units whose collapsed gaps say their length.

import type { BugTimeline, LaneState, TimelineLane, TimelineMark, TimeWindow } from "../../leaks/index.js";
import { siteLine } from "../../model/index.js";
import { escapeXml } from "../escape.js";
import { clip, line, pathData, px, rect, svgRoot, text } from "./elements.js";

const LABEL_WIDTH = 170;
const PLOT_WIDTH = 620;
const LANE_HEIGHT = 14;
const LANE_GAP = 12;
const GAP_WIDTH = 22;
/** A kept window is never drawn narrower than this, so a short burst of activity stays readable. */
const MIN_WINDOW = 60;

const STATE_COLOURS: Record<LaneState, string> = {
  running: "#2da44e",
  runnable: "#e3b341",
  blocked: "#cf222e",
  waiting: "#8c959f",
  syscall: "#8250df",
};

/** A duration in nanoseconds in the unit that reads best: "850 ns", "12.5 µs", "3.2 ms", "1.5 s". */
export function formatNs(ns: number): string {
  const units: [number, string][] = [
    [1e9, "s"],
    [1e6, "ms"],
    [1e3, "µs"],
  ];
  for (const [scale, unit] of units) if (Math.abs(ns) >= scale) return `${Number((ns / scale).toPrecision(3))} ${unit}`;
  return `${Math.round(ns)} ns`;
}

/** The x of each window's start and its width: gaps a fixed width, kept windows by duration (at least MIN_WINDOW). */
function windowXs(windows: readonly TimeWindow[], left: number): { x: number; width: number }[] {
  const gaps = windows.filter((w) => w.gap).length;
  const kept = windows.filter((w) => !w.gap);
  const total = kept.reduce((s, w) => s + (w.endNs - w.startNs), 0);
  const room = PLOT_WIDTH - gaps * GAP_WIDTH - kept.length * MIN_WINDOW;
  let x = left;
  return windows.map((w) => {
    const width = w.gap
      ? GAP_WIDTH
      : MIN_WINDOW + (total > 0 ? (Math.max(0, room) * (w.endNs - w.startNs)) / total : room / kept.length);
    const at = { x, width };
    x += width;
    return at;
  });
}

/** Maps a time to x: linear inside each window, so the map is monotonic over the whole axis. */
function timeScale(windows: readonly TimeWindow[], left: number): (t: number) => number {
  const xs = windowXs(windows, left);
  return (t) => {
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i];
      if (t <= w.endNs || i === windows.length - 1) {
        const span = w.endNs - w.startNs;
        const f = span > 0 ? Math.min(1, Math.max(0, (t - w.startNs) / span)) : 0;
        return xs[i].x + f * xs[i].width;
      }
    }
    return left;
  };
}

interface LaneRect {
  state: LaneState;
  x1: number;
  x2: number;
  reason: string;
  startNs: number;
  endNs: number;
  /** Segments drawn as this one rectangle: more than one when they were narrower than a pixel. */
  segments: number;
}

/**
 * A lane's segments as rectangles at least a pixel wide. Adjacent segments narrower than a
 * pixel are one rectangle in the state they spent the most time in, so a goroutine that
 * switched a million times draws a handful of rectangles, never more than its lane has pixels.
 */
function laneRects(lane: TimelineLane, x: (t: number) => number, y: number): string {
  const rects: LaneRect[] = [];
  const place = (r: LaneRect): void => {
    const last = rects[rects.length - 1];
    if (last !== undefined && last.state === r.state && last.reason === r.reason && r.x1 - last.x2 < 1) {
      last.x2 = Math.max(last.x2, r.x2);
      last.endNs = r.endNs;
      last.segments += r.segments;
      return;
    }
    const x1 = last === undefined ? r.x1 : Math.max(r.x1, last.x2);
    if (r.x2 - x1 > 0.01 || last === undefined) rects.push({ ...r, x1, x2: Math.max(r.x2, x1 + 1) });
  };
  // Sub-pixel segments gathered: where they start and end, and the time spent in each state.
  let mix: { x1: number; x2: number; startNs: number; endNs: number; time: Map<LaneState, number>; n: number } | null =
    null;
  const flush = (): void => {
    if (mix === null) return;
    const [state] = [...mix.time].reduce((a, b) => (b[1] > a[1] ? b : a));
    place({ state, x1: mix.x1, x2: mix.x2, reason: "", startNs: mix.startNs, endNs: mix.endNs, segments: mix.n });
    mix = null;
  };
  for (const s of lane.segments) {
    const [x1, x2] = [x(s.startNs), x(s.endNs)];
    if (x2 - x1 >= 1) {
      flush();
      place({ ...s, x1, x2, segments: 1 });
      continue;
    }
    if (mix !== null && x1 - mix.x2 >= 1) flush();
    mix ??= { x1, x2, startNs: s.startNs, endNs: s.endNs, time: new Map(), n: 0 };
    mix.x2 = Math.max(mix.x2, x2);
    mix.endNs = s.endNs;
    mix.time.set(s.state, (mix.time.get(s.state) ?? 0) + (s.endNs - s.startNs));
    mix.n++;
  }
  flush();
  return rects
    .map((r) =>
      rect(
        r.x1,
        y,
        r.x2 - r.x1,
        LANE_HEIGHT,
        STATE_COLOURS[r.state],
        (r.segments > 1 ? `mostly ${r.state} (${r.segments} segments)` : `${r.state}`) +
          `${r.reason === "" ? "" : ` (${r.reason})`} ${formatNs(r.startNs)} – ${formatNs(r.endNs)}`,
      ),
    )
    .join("");
}

function drawMark(mark: TimelineMark, x: number, y: number): string {
  switch (mark.kind) {
    case "last-block": {
      const site = mark.block.site ?? "";
      const tooltip = `last block: ${mark.block.reason}${site === "" ? "" : ` at ${site}`} from ${formatNs(mark.timeNs)}`;
      return (
        `<g data-last-block="${escapeXml(site)}" data-goroutine="${escapeXml(mark.goroutine)}"><title>${escapeXml(tooltip)}</title>` +
        line(x, y - 4, x, y + LANE_HEIGHT + 4, "#1f2328", ' stroke-width="2"') +
        `<path d="M${px(x - 5)} ${px(y - 9)}L${px(x + 5)} ${px(y - 9)}L${px(x)} ${px(y - 3)}Z" fill="#1f2328"/>` +
        `</g>`
      );
    }
    case "go-end": {
      const [top, bottom] = [y + 3, y + LANE_HEIGHT - 3];
      const cross =
        pathData(
          [
            [x - 4, top],
            [x + 4, bottom],
          ],
          false,
        ) +
        pathData(
          [
            [x + 4, top],
            [x - 4, bottom],
          ],
          false,
        );
      return (
        `<g data-go-end="${escapeXml(mark.goroutine)}"><title>${escapeXml(`ended at ${formatNs(mark.timeNs)}`)}</title>` +
        `<path d="${cross}" stroke="#1f2328" stroke-width="2"/>` +
        `</g>`
      );
    }
    case "lock": {
      const what = `${mark.phase} ${mark.mode === "r" ? "read " : ""}lock`;
      const tooltip = `${what}${mark.site === null ? "" : ` at ${mark.site}`}, ${formatNs(mark.timeNs)}`;
      const triangle = pathData([
        [x, y + LANE_HEIGHT + 1],
        [x - 4, y + LANE_HEIGHT + 7],
        [x + 4, y + LANE_HEIGHT + 7],
      ]);
      const fill = mark.phase === "want" ? "#ffffff" : mark.phase === "got" ? "#0969da" : "#9a6700";
      return (
        `<g data-lock="${mark.phase}"><title>${escapeXml(tooltip)}</title>` +
        `<path d="${triangle}" fill="${fill}" stroke="#0969da"/>` +
        `</g>`
      );
    }
  }
}

/** Ticks at a round step inside each kept window wide enough to hold them; each gap says its duration. */
function axis(windows: readonly TimeWindow[], x: (t: number) => number, y: number, laneTop: number): string {
  const xs = windowXs(windows, LABEL_WIDTH);
  const parts = [line(LABEL_WIDTH, y, LABEL_WIDTH + PLOT_WIDTH, y, "#8c959f")];
  windows.forEach((w, i) => {
    if (w.gap) {
      const cx = xs[i].x + xs[i].width / 2;
      parts.push(
        `<g data-gap-ns="${Math.round(w.endNs - w.startNs)}"><title>${escapeXml(`${formatNs(w.endNs - w.startNs)} collapsed`)}</title>` +
          rect(
            xs[i].x + 3,
            laneTop - 4,
            xs[i].width - 6,
            y - laneTop + 4,
            "#ffffff",
            undefined,
            ' fill-opacity="0.85"',
          ) +
          `<path d="M${px(cx - 4)} ${px(y - 5)}L${px(cx)} ${px(y + 5)}M${px(cx + 2)} ${px(y - 5)}L${px(cx + 6)} ${px(y + 5)}" stroke="#57606a"/>` +
          text(cx, y + 24, `+${formatNs(w.endNs - w.startNs)}`, { anchor: "middle", size: 9, fill: "#9a6700" }) +
          `</g>`,
      );
      return;
    }
    const span = w.endNs - w.startNs;
    const count = Math.floor(xs[i].width / 70);
    if (count < 1 || !(span > 0)) return;
    const raw = span / count;
    const magnitude = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
    for (let t = Math.ceil(w.startNs / step) * step; t <= w.endNs; t += step) {
      const tx = x(t);
      parts.push(line(tx, y, tx, y + 4, "#8c959f"));
      parts.push(text(tx, y + 14, formatNs(t), { anchor: "middle", size: 9, fill: "#59636e" }));
    }
  });
  return parts.join("");
}

function legend(y: number): string {
  const parts: string[] = [];
  let x = 8;
  for (const [state, colour] of Object.entries(STATE_COLOURS)) {
    parts.push(rect(x, y - 8, 10, 10, colour), text(x + 13, y, state, { size: 9.5 }));
    x += 20 + state.length * 6;
  }
  parts.push(
    line(x + 4, y - 10, x + 4, y + 2, "#1f2328", ' stroke-width="2"'),
    text(x + 10, y, "last block", { size: 9.5 }),
    text(x + 70, y, "✕ ended", { size: 9.5 }),
    `<path d="M${x + 124} ${y - 8}L${x + 120} ${y}L${x + 128} ${y}Z" fill="#0969da"/>`,
    text(x + 132, y, "lock op", { size: 9.5 }),
  );
  return parts.join("");
}

/**
 * The SVG of a bug's timeline: deterministic. Each lane is `<g data-lane="canonical id"
 * data-gid>`; the last block of a lane is `<g data-last-block="function file:line">` (the
 * finding's blocking site), an end `<g data-go-end>`, a lock operation `<g data-lock>`, a
 * collapsed stretch `<g data-gap-ns>`.
 */
export function timelineSvg(timeline: BugTimeline): string {
  const title = `Timeline of ${timeline.title}${timeline.runId === null ? "" : ` (run ${timeline.runId})`}`;
  const parts: string[] = [legend(14)];
  const laneTop = 36;
  if (timeline.lanes.length === 0) {
    parts.push(text(8, laneTop + 12, timeline.note ?? "No goroutine of this bug is in the run.", { size: 11 }));
    return svgRoot(LABEL_WIDTH + PLOT_WIDTH + 10, laneTop + 24, title, parts.join(""), { lanes: 0 });
  }
  const x = timeScale(timeline.windows, LABEL_WIDTH);
  const laneY = new Map<string, number>();
  timeline.lanes.forEach((lane, i) => {
    const y = laneTop + i * (LANE_HEIGHT + LANE_GAP);
    laneY.set(lane.goroutine, y);
    const name = `${clip(lane.label, 22, "end")} g${lane.gid}`;
    const block =
      lane.lastBlock === null ? "" : `, last block ${lane.lastBlock.reason} at ${lane.lastBlock.site ?? "?"}`;
    parts.push(
      `<g data-lane="${escapeXml(lane.goroutine)}" data-gid="${lane.gid}"><title>${escapeXml(`${lane.goroutine} (goroutine ${lane.gid})${block}`)}</title>` +
        text(LABEL_WIDTH - 6, y + 10, name, { anchor: "end", size: 10.5, weight: lane.member ? 600 : undefined }) +
        laneRects(lane, x, y) +
        `</g>`,
    );
  });
  const axisY = laneTop + timeline.lanes.length * (LANE_HEIGHT + LANE_GAP) + 2;
  parts.push(axis(timeline.windows, x, axisY, laneTop));
  for (const mark of timeline.marks) {
    const y = laneY.get(mark.goroutine);
    if (y !== undefined) parts.push(drawMark(mark, x(mark.timeNs), y));
  }
  // The site of each last block, in words, under the axis.
  let y = axisY + 36;
  for (const lane of timeline.lanes) {
    if (lane.lastBlock === null || !lane.member) continue;
    parts.push(
      text(8, y, `${lane.label}: last block ${lane.lastBlock.reason} at ${siteLine(lane.lastBlock.site)}`, {
        size: 9.5,
        fill: "#59636e",
      }),
    );
    y += 13;
  }
  if (timeline.note !== null) {
    parts.push(text(8, y, timeline.note, { size: 9.5, fill: "#9a6700" }));
    y += 13;
  }
  return svgRoot(LABEL_WIDTH + PLOT_WIDTH + 10, y + 4, title, parts.join(""), {
    lanes: timeline.lanes.length,
    marks: timeline.marks.length,
  });
}
