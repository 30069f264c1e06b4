// A translucent point marker with a tooltip.

import { escapeXml } from "../escape.js";
import { px } from "./elements.js";

export function circle(cx: number, cy: number, r: number, tooltip: string, fill = "#0072B2"): string {
  return `<circle cx="${px(cx)}" cy="${px(cy)}" r="${px(r)}" fill="${fill}" fill-opacity="0.45"><title>${escapeXml(tooltip)}</title></circle>`;
}
