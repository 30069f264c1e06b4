// Reads the data attributes of the pictures back from SVG markup, as a tool would: the <g>
// elements that carry them, their attribute values unescaped.

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

function unescapeXml(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);
}

/** The attributes of every <g> element that has `name`, in document order. */
export function svgAttributes(svg: string, name: string, ...others: string[]): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  for (const [, inside] of svg.matchAll(/<g\s([^>]*)>/g)) {
    const attributes: Record<string, string> = {};
    for (const [, key, value] of inside.matchAll(/([\w:-]+)="([^"]*)"/g)) attributes[key] = unescapeXml(value);
    if (!(name in attributes)) continue;
    out.push(Object.fromEntries([name, ...others].filter((k) => k in attributes).map((k) => [k, attributes[k]])));
  }
  return out;
}

export interface SvgNode {
  readonly id: string;
  readonly kind: string;
  readonly state: string | null;
  readonly cycleIndex: number | null;
}

/** The nodes of a wait-for graph's SVG. */
export function svgNodes(svg: string): SvgNode[] {
  return svgAttributes(svg, "data-node", "data-kind", "data-state", "data-cycle-index").map((a) => ({
    id: a["data-node"],
    kind: a["data-kind"],
    state: a["data-state"] ?? null,
    cycleIndex: a["data-cycle-index"] === undefined ? null : Number(a["data-cycle-index"]),
  }));
}

export interface SvgEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: string;
  readonly basis: string;
}

/** The edges of a wait-for graph's SVG. */
export function svgEdges(svg: string): SvgEdge[] {
  return svgAttributes(svg, "data-edge-from", "data-edge-to", "data-edge-kind", "data-basis").map((a) => ({
    from: a["data-edge-from"],
    to: a["data-edge-to"],
    kind: a["data-edge-kind"],
    basis: a["data-basis"],
  }));
}
