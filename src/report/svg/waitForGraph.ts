// The wait-for graph of a bug drawn as SVG: the cycle on a circle, the other nodes in layers
// from waiters to what they wait for, arrows for "waits for" and "holds", ended goroutines
// dashed and grey, the evidence below. Every node and edge carries data attributes, so a
// test or tool reads the relation back from the markup.

import type { GraphEdge, GraphNode, WaitForGraph } from "../../leaks/index.js";
import { siteLine } from "../../model/index.js";
import { escapeXml } from "../escape.js";
import { clip, line, pathData, px, svgRoot, text, wrapText } from "./elements.js";

const NODE_WIDTH = 206;
const NODE_HEIGHT = 36;
const COLUMN_GAP = 70;
const ROW_GAP = 22;
const MARGIN = 16;
/** Between the centres of a two-goroutine cycle's nodes, one above the other. */
const TWO_CYCLE_GAP = 130;
/** How high a goroutine's wait for itself loops above its box. */
const SELF_LOOP = 30;
/** Characters of 10.5 px text that fit in a node. */
const NODE_CHARS = 31;

interface Box {
  readonly x: number;
  readonly y: number;
}

/** Stroke, fill and dash of a node by what it is and how it ended. */
function nodeStyle(node: GraphNode): { stroke: string; fill: string; dash: boolean; ink: string } {
  if (node.kind === "lock") return { stroke: "#0969da", fill: "#ddf4ff", dash: false, ink: "#0a3069" };
  switch (node.state) {
    case "blocked":
      return { stroke: "#cf222e", fill: "#ffebe9", dash: false, ink: "#1f2328" };
    case "ended":
      return { stroke: "#8c959f", fill: "#f6f8fa", dash: true, ink: "#59636e" };
    case "unknown":
      return { stroke: "#8c959f", fill: "#ffffff", dash: false, ink: "#1f2328" };
    default:
      return { stroke: "#1a7f37", fill: "#dafbe1", dash: false, ink: "#1f2328" };
  }
}

/** The second line of a node: where and on what it waits, or its state. */
function nodeDetail(node: GraphNode): string {
  if (node.kind === "lock") return node.site === null ? "" : `taken at ${siteLine(node.site)}`;
  if (node.state === "ended") return "ended";
  if (node.wait !== null && node.site !== null) return `${node.wait} at ${siteLine(node.site)}`;
  if (node.wait !== null) return node.wait;
  return node.state === "unknown" ? (node.site === null ? "state unknown" : siteLine(node.site)) : node.state;
}

/**
 * Columns of the nodes: breadth-first layers from the nodes nothing waits for (the cycle
 * counting as one node, and the first layer when every node is waited for), so a wait-for
 * loop beside the cycle cannot push a node anywhere odd; what no layer reaches starts a new one.
 */
function ranks(graph: WaitForGraph): Map<string, number> {
  const onCycle = new Set(graph.cycle ?? []);
  const unit = (id: string): string => (onCycle.has(id) ? "\u0000cycle" : id);
  const units = [...new Set(graph.nodes.map((n) => unit(n.id)))];
  const next = new Map<string, string[]>(units.map((u) => [u, []]));
  const waitedFor = new Set<string>();
  for (const e of graph.edges) {
    const [from, to] = [unit(e.from), unit(e.to)];
    if (from === to) continue;
    next.get(from)?.push(to);
    waitedFor.add(to);
  }
  const rank = new Map<string, number>();
  const layer = (starts: readonly string[], from: number): void => {
    let frontier = starts.filter((u) => !rank.has(u));
    for (const u of frontier) rank.set(u, from);
    for (let depth = from + 1; frontier.length > 0; depth++) {
      const reached: string[] = [];
      for (const u of frontier)
        for (const v of next.get(u) ?? [])
          if (!rank.has(v)) {
            rank.set(v, depth);
            reached.push(v);
          }
      frontier = reached;
    }
  };
  const roots = units.filter((u) => !waitedFor.has(u));
  layer(roots.length > 0 ? roots : onCycle.size > 0 ? ["\u0000cycle"] : units.slice(0, 1), 0);
  for (const u of units) if (!rank.has(u)) layer([u], 0);
  return new Map(graph.nodes.map((n) => [n.id, rank.get(unit(n.id)) ?? 0]));
}

/** Where each node's centre goes, and the drawing's size. */
function layout(graph: WaitForGraph): { at: Map<string, Box>; width: number; height: number } {
  const cycle = graph.cycle ?? [];
  const rankOf = ranks(graph);
  const columns = new Map<number, string[]>();
  for (const n of graph.nodes) {
    if (cycle.includes(n.id)) continue;
    const r = rankOf.get(n.id) ?? 0;
    columns.set(r, [...(columns.get(r) ?? []), n.id]);
  }
  const cycleRank = cycle.length > 0 ? (rankOf.get(cycle[0]) ?? 0) : -1;
  // A circle whose chord between neighbours clears a node's width.
  const radius =
    cycle.length === 0
      ? 0
      : cycle.length <= 2
        ? TWO_CYCLE_GAP / 2
        : (NODE_WIDTH + 60) / (2 * Math.sin(Math.PI / cycle.length));
  const cycleWidth = cycle.length === 0 ? 0 : cycle.length <= 2 ? NODE_WIDTH : 2 * radius + NODE_WIDTH;
  const cycleHeight = cycle.length === 0 ? 0 : 2 * radius + NODE_HEIGHT;
  const maxRank = Math.max(cycleRank, ...columns.keys(), 0);
  const heightOf = (ids: readonly string[]): number => ids.length * NODE_HEIGHT + (ids.length - 1) * ROW_GAP;
  let height = cycleHeight;
  for (const ids of columns.values()) height = Math.max(height, heightOf(ids));
  const at = new Map<string, Box>();
  let x = MARGIN;
  // A column's nodes in the order of the mean height of the nodes pointing at them, so edges cross less.
  const meanSourceY = (id: string): number => {
    const ys = graph.edges.filter((e) => e.to === id && at.has(e.from)).map((e) => (at.get(e.from) as Box).y);
    return ys.length === 0 ? Infinity : ys.reduce((a, b) => a + b, 0) / ys.length;
  };
  for (let r = 0; r <= maxRank; r++) {
    const ids = [...(columns.get(r) ?? [])]
      .map((id, i) => ({ id, i, y: meanSourceY(id) }))
      .sort((a, b) => (a.y === b.y ? a.i - b.i : a.y - b.y))
      .map((e) => e.id);
    const hasCycle = r === cycleRank;
    const columnWidth = Math.max(ids.length > 0 ? NODE_WIDTH : 0, hasCycle ? cycleWidth : 0);
    if (columnWidth === 0) continue;
    const centre = x + columnWidth / 2;
    if (hasCycle) {
      // The cycle clockwise from the top (two nodes: one above the other, so both reach the next column).
      cycle.forEach((id, i) => {
        const angle = -Math.PI / 2 + (2 * Math.PI * i) / cycle.length;
        at.set(id, { x: centre + radius * Math.cos(angle), y: MARGIN + height / 2 + radius * Math.sin(angle) });
      });
      // Other nodes of the same rank go below the circle.
      ids.forEach((id, i) =>
        at.set(id, { x: centre, y: MARGIN + height + ROW_GAP + NODE_HEIGHT / 2 + i * (NODE_HEIGHT + ROW_GAP) }),
      );
    } else {
      const top = MARGIN + (height - heightOf(ids)) / 2;
      ids.forEach((id, i) => at.set(id, { x: centre, y: top + NODE_HEIGHT / 2 + i * (NODE_HEIGHT + ROW_GAP) }));
    }
    x += columnWidth + COLUMN_GAP;
  }
  // A circle leaves room unused above or below its nodes: move the drawing up to its top node.
  const boxes = [...at.values()];
  const shift = Math.min(...boxes.map((b) => b.y - NODE_HEIGHT / 2)) - MARGIN;
  const placed = new Map([...at].map(([id, b]) => [id, { x: b.x, y: b.y - shift }]));
  const bottom = Math.max(...[...placed.values()].map((b) => b.y + NODE_HEIGHT / 2), MARGIN);
  return { at: placed, width: Math.max(x - COLUMN_GAP + MARGIN, 2 * MARGIN + NODE_WIDTH), height: bottom + MARGIN };
}

/** The point where the segment from a box's centre towards (tx, ty) leaves the box. */
function border(from: Box, tx: number, ty: number): Box {
  const dx = tx - from.x;
  const dy = ty - from.y;
  if (dx === 0 && dy === 0) return from;
  const scale = Math.min(
    dx === 0 ? Infinity : NODE_WIDTH / 2 / Math.abs(dx),
    dy === 0 ? Infinity : NODE_HEIGHT / 2 / Math.abs(dy),
  );
  return { x: from.x + dx * scale, y: from.y + dy * scale };
}

function edgeText(edge: GraphEdge, label: (id: string) => string): string {
  const basis = edge.basis === "cycle" ? "a step of the cycle" : edge.basis;
  return edge.kind === "holds"
    ? `${label(edge.from)} holds ${label(edge.to)}`
    : `${label(edge.from)} waits for ${label(edge.to)}${edge.label === null ? "" : ` in ${edge.label}`} (${basis})`;
}

/** A goroutine waiting for itself (a lock it holds): a loop over the right of its box, its arrow coming back down. */
function selfLoop(box: Box, stroke: string, caption: string | null): string {
  const top = box.y - NODE_HEIGHT / 2;
  const [x1, x2] = [box.x + 30, box.x + 80];
  const loop = `M${px(x1)} ${px(top)}C${px(x1)} ${px(top - SELF_LOOP)} ${px(x2)} ${px(top - SELF_LOOP)} ${px(x2)} ${px(top - 8)}`;
  const head = pathData([
    [x2, top],
    [x2 - 4, top - 9],
    [x2 + 4, top - 9],
  ]);
  return (
    `<path d="${loop}" fill="none" stroke="${stroke}" stroke-width="2"/><path d="${head}" fill="${stroke}"/>` +
    (caption === null ? "" : text(x2 + 8, top - SELF_LOOP / 2, caption, { size: 9.5, fill: stroke }))
  );
}

function drawEdge(
  edge: GraphEdge,
  at: ReadonlyMap<string, Box>,
  reverse: boolean,
  inCycle: boolean,
  tooltip: string,
): string {
  const a = at.get(edge.from);
  const b = at.get(edge.to);
  if (a === undefined || b === undefined) return "";
  const stroke = edge.kind === "holds" ? "#0969da" : inCycle ? "#cf222e" : "#57606a";
  const open =
    `<g data-edge-from="${escapeXml(edge.from)}" data-edge-to="${escapeXml(edge.to)}" ` +
    `data-edge-kind="${edge.kind}" data-basis="${edge.basis}"><title>${escapeXml(tooltip)}</title>`;
  if (edge.from === edge.to) return open + selfLoop(a, stroke, edge.label) + "</g>";
  // Two edges between the same pair, one each way: shift both sideways so both show.
  const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const nx = reverse ? (-(b.y - a.y) / length) * 7 : 0;
  const ny = reverse ? ((b.x - a.x) / length) * 7 : 0;
  const start = border({ x: a.x + nx, y: a.y + ny }, b.x + nx, b.y + ny);
  const end = border({ x: b.x + nx, y: b.y + ny }, a.x + nx, a.y + ny);
  const ux = (end.x - start.x) / (Math.hypot(end.x - start.x, end.y - start.y) || 1);
  const uy = (end.y - start.y) / (Math.hypot(end.x - start.x, end.y - start.y) || 1);
  const dash = edge.kind === "holds" ? ' stroke-dasharray="5 3"' : "";
  // An arrowhead drawn as a path, not a <marker>: ids would clash between the pictures of one page.
  const head = pathData([
    [end.x, end.y],
    [end.x - 9 * ux - 4 * uy, end.y - 9 * uy + 4 * ux],
    [end.x - 9 * ux + 4 * uy, end.y - 9 * uy - 4 * ux],
  ]);
  // The caption of one of a pair of opposite edges goes on its own side of it.
  const mid = { x: (start.x + end.x) / 2 + nx, y: (start.y + end.y) / 2 + ny };
  const anchor = !reverse || Math.abs(nx) < 1 ? "middle" : nx > 0 ? "start" : "end";
  // A caption only where the arrow has room for it; the tooltip always says it.
  const room = Math.hypot(end.x - start.x, end.y - start.y) > 70;
  const caption = !room ? "" : edge.kind === "holds" ? "holds" : (edge.label ?? "");
  return (
    open +
    line(start.x, start.y, end.x - 8 * ux, end.y - 8 * uy, stroke, ` stroke-width="${inCycle ? 2 : 1.3}"${dash}`) +
    `<path d="${head}" fill="${stroke}"/>` +
    (caption === ""
      ? ""
      : `<text x="${px(mid.x + nx / 2)}" y="${px(mid.y - 3 + ny / 2)}" font-size="9.5" text-anchor="${anchor}" fill="${stroke}" ` +
        `stroke="#fff" stroke-width="3" paint-order="stroke">${escapeXml(caption)}</text>`) +
    `</g>`
  );
}

function drawNode(node: GraphNode, box: Box, cycleIndex: number): string {
  const style = nodeStyle(node);
  const tooltip =
    node.kind === "lock"
      ? `${node.label}${node.site === null ? "" : ` (${node.site})`}`
      : `${node.id}\n${node.state}${node.wait === null ? "" : ` in ${node.wait}`}` +
        (node.site === null ? "" : ` at ${node.site}`);
  const cycle = cycleIndex < 0 ? "" : ` data-cycle-index="${cycleIndex}"`;
  const state = node.kind === "lock" ? "" : ` data-state="${node.state}"`;
  const left = box.x - NODE_WIDTH / 2;
  const top = box.y - NODE_HEIGHT / 2;
  return (
    `<g data-node="${escapeXml(node.id)}" data-kind="${node.kind}"${state}${cycle}><title>${escapeXml(tooltip)}</title>` +
    `<rect x="${px(left)}" y="${px(top)}" width="${NODE_WIDTH}" height="${NODE_HEIGHT}" rx="${node.kind === "lock" ? 14 : 4}" ` +
    `fill="${style.fill}" stroke="${style.stroke}"${style.dash ? ' stroke-dasharray="4 3"' : ""}` +
    `${node.kind === "goroutine" && node.member ? ' stroke-width="2"' : ""}/>` +
    text(box.x, top + 14, node.kind === "lock" ? "lock" : clip(node.label, NODE_CHARS, "end"), {
      anchor: "middle",
      size: 11,
      weight: 600,
      fill: style.ink,
    }) +
    text(box.x, top + 28, clip(nodeDetail(node), NODE_CHARS + 6, "end"), {
      anchor: "middle",
      size: 9.5,
      fill: style.ink,
    }) +
    `</g>`
  );
}

/** What the strokes and boxes mean, in one line. */
const LEGEND =
  "Arrow: waits for (red: on the cycle) · dashed blue: holds · red box: blocked · green: could still act · dashed grey: ended · thick border: the bug's own";

/**
 * The SVG of a wait-for graph: deterministic (the same graph gives the same markup). Nodes
 * are `<g data-node="id" data-kind data-state [data-cycle-index]>`, edges `<g data-edge-from
 * data-edge-to data-edge-kind data-basis>`; the root says how many of each it drew.
 */
export function waitForGraphSvg(graph: WaitForGraph): string {
  const { at, width: drawingWidth, height: drawingHeight } = layout(graph);
  const width = Math.max(drawingWidth, 560);
  const offset = (width - drawingWidth) / 2;

  const label = (id: string): string => graph.nodes.find((n) => n.id === id)?.label ?? id;
  const pairs = new Set(graph.edges.map((e) => `${e.from}\u0000${e.to}`));
  const cycle = graph.cycle ?? [];
  const cycleEdge = (e: GraphEdge): boolean => {
    const i = cycle.indexOf(e.from);
    const j = cycle.indexOf(e.to);
    return i >= 0 && j >= 0 && (j === (i + 1) % cycle.length || i === (j + 1) % cycle.length);
  };
  const legend = wrapText(LEGEND, Math.floor((width - 2 * MARGIN) / 5.2));
  const parts = legend.map((l, i) => text(MARGIN, 14 + 12 * i, l, { size: 9.5, fill: "#59636e" }));
  const top = 12 * legend.length + 6 + (graph.edges.some((e) => e.from === e.to) ? SELF_LOOP : 0);
  const shifted = new Map([...at].map(([id, b]) => [id, { x: b.x + offset, y: b.y + top }]));
  for (const e of graph.edges)
    parts.push(drawEdge(e, shifted, pairs.has(`${e.to}\u0000${e.from}`), cycleEdge(e), edgeText(e, label)));
  for (const n of graph.nodes) {
    const box = shifted.get(n.id);
    if (box !== undefined) parts.push(drawNode(n, box, cycle.indexOf(n.id)));
  }
  let y = drawingHeight + top + 4;
  const lines = [...(graph.note === null ? [] : [graph.note]), ...graph.evidence];
  const chars = Math.floor((width - 2 * MARGIN) / 5.9);
  const evidence = lines.flatMap((l, i) =>
    wrapText(l, chars).map((w) => ({ w, first: i === 0 && graph.note !== null })),
  );
  parts.push(`<g data-evidence="">`);
  for (const { w, first } of evidence) {
    y += 14;
    parts.push(
      text(MARGIN, y, w, { size: 10.5, fill: first ? "#9a6700" : "#1f2328", weight: first ? 600 : undefined }),
    );
  }
  parts.push(`</g>`);
  return svgRoot(width, y + MARGIN, graph.title, parts.join(""), {
    nodes: graph.nodes.length,
    edges: graph.edges.length,
  });
}
