// Small builders for SVG elements shared by the charts. Text is escaped here.

import { escapeXml } from "../escape.js";

/** Rounds a coordinate to 2 decimals to keep the markup short. */
export const px = (x: number): string => String(Math.round(x * 100) / 100);

/**
 * The root element with an accessible title (shown as a tooltip and read by screen readers).
 * `data` become data-* attributes (e.g. how many points a scatter drew), for tests and tools.
 */
export function svgRoot(
  width: number,
  height: number,
  title: string,
  content: string,
  data: Readonly<Record<string, number>> = {},
): string {
  const attributes = Object.entries(data)
    .map(([k, v]) => ` data-${escapeXml(k)}="${v}"`)
    .join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" ` +
    `height="${height}" role="img" aria-label="${escapeXml(title)}"${attributes}>` +
    `<title>${escapeXml(title)}</title>${content}</svg>`
  );
}

export interface TextOptions {
  readonly anchor?: "start" | "middle" | "end";
  readonly size?: number;
  readonly fill?: string;
  readonly rotate?: number;
  readonly weight?: number;
}

export function text(x: number, y: number, content: string, options: TextOptions = {}): string {
  const rotate = options.rotate === undefined ? "" : ` transform="rotate(${options.rotate} ${px(x)} ${px(y)})"`;
  return `<text x="${px(x)}" y="${px(y)}" font-size="${options.size ?? 11}" text-anchor="${options.anchor ?? "start"}" fill="${options.fill ?? "#1f2328"}"${
    options.weight === undefined ? "" : ` font-weight="${options.weight}"`
  }${rotate}>${escapeXml(content)}</text>`;
}

export function line(x1: number, y1: number, x2: number, y2: number, stroke = "#d1d9e0", extra = ""): string {
  return `<line x1="${px(x1)}" y1="${px(y1)}" x2="${px(x2)}" y2="${px(y2)}" stroke="${stroke}"${extra}/>`;
}

export function rect(
  x: number,
  y: number,
  width: number,
  height: number,
  fill: string,
  tooltip?: string,
  extra = "",
): string {
  const title = tooltip === undefined ? "" : `<title>${escapeXml(tooltip)}</title>`;
  return `<rect x="${px(x)}" y="${px(y)}" width="${px(Math.max(0, width))}" height="${px(Math.max(0, height))}" fill="${fill}"${extra}>${title}</rect>`;
}

/** Series colours, distinguishable and colour-blind safe (Okabe–Ito). */
export const PALETTE = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#CC79A7",
  "#56B4E9",
  "#D55E00",
  "#F0E442",
  "#000000",
] as const;

export function seriesColor(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

/** A left value axis from 0 to `max` with `ticks` gridlines, for a plot area [left, left+width] × [top, top+height]. */
export function valueAxis(
  left: number,
  top: number,
  width: number,
  height: number,
  max: number,
  ticks = 5,
  digits = 1,
): string {
  const parts: string[] = [];
  for (let i = 0; i <= ticks; i++) {
    const value = (max * i) / ticks;
    const y = top + height - (height * i) / ticks;
    parts.push(line(left, y, left + width, y, i === 0 ? "#8c959f" : "#eaeef2"));
    parts.push(text(left - 6, y + 4, value.toFixed(digits), { anchor: "end", size: 10, fill: "#59636e" }));
  }
  return parts.join("");
}

/**
 * Tick values from 0 to at most `max` at the "nice" step (1, 2, 2.5 or 5 × 10^k) nearest
 * to max / target. Example: niceTicks(2.585) → [0, 0.5, 1, 1.5, 2, 2.5].
 */
export function niceTicks(max: number, target = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const candidates = [1, 2, 2.5, 5, 10].map((m) => m * magnitude);
  const step = candidates.reduce((best, s) =>
    Math.abs(Math.log(s / raw)) < Math.abs(Math.log(best / raw)) ? s : best,
  );
  const ticks: number[] = [];
  for (let i = 0; i * step <= max + 1e-9; i++) ticks.push(Math.round(i * step * 1e9) / 1e9);
  return ticks;
}

/**
 * `content` broken at spaces into lines of at most `chars` characters (a longer word stands on a line of its own).
 *
 * @example wrapText("a bb ccc", 4) → ["a bb", "ccc"]
 */
export function wrapText(content: string, chars: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of content.split(/\s+/).filter((w) => w !== "")) {
    if (current !== "" && current.length + 1 + word.length > chars) {
      lines.push(current);
      current = word;
    } else current = current === "" ? word : `${current} ${word}`;
  }
  if (current !== "") lines.push(current);
  return lines;
}

/**
 * `content` cut to `chars` characters with an ellipsis, keeping its end (where a goroutine's
 * name differs from its siblings': "….TestRing.func2") or its start.
 */
export function clip(content: string, chars: number, keep: "start" | "end" = "start"): string {
  if (content.length <= chars) return content;
  return keep === "end" ? `…${content.slice(content.length - chars + 1)}` : `${content.slice(0, chars - 1)}…`;
}

/** The `d` of a path through `points` (closed into a polygon unless `closed` is false). */
export function pathData(points: readonly (readonly [number, number])[], closed = true): string {
  return points.map(([x, y], i) => `${i === 0 ? "M" : "L"}${px(x)} ${px(y)}`).join("") + (closed ? "Z" : "");
}
