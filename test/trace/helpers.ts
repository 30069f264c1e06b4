// Shared helpers for the trace tests: fixture paths and decoding a whole trace into memory.

import { fileURLToPath } from "node:url";
import { decodeTrace, type DecodeOptions } from "../../src/trace/decode.js";
import type { DecodeSummary } from "../../src/trace/types.js";
import type { GoroutineRecord } from "../../src/core/index.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/traces/", import.meta.url));

export function fixture(name: string): string {
  return `${FIXTURES}${name}`;
}

export interface Decoded {
  readonly summary: DecodeSummary;
  readonly records: GoroutineRecord[];
}

export async function decodeAll(path: string, options: DecodeOptions = {}): Promise<Decoded> {
  const records: GoroutineRecord[] = [];
  const summary = await decodeTrace(path, options, (batch) => records.push(...batch));
  return { summary, records };
}

/** One line per record, with canonical ids: the golden-file form of a decoded trace. */
export function renderDecoded({ summary, records }: Decoded): string {
  const ids = new Map(summary.goroutines.map((g) => [g.goroutine, g.canonicalId]));
  const lines = [`status ${summary.status} generations ${summary.generations} records ${summary.recordCount}`];
  for (const g of summary.goroutines)
    lines.push(`goroutine ${g.canonicalId} entry=${g.entry ?? ""} site=${g.creationSite ?? ""}`);
  for (const r of records) {
    const actor = r.actor === null ? "-" : (ids.get(r.actor) ?? `?${r.actor}`);
    lines.push(
      `${r.seq} ${r.kind} ${ids.get(r.goroutine) ?? `?${r.goroutine}`} actor=${actor} reason=${JSON.stringify(r.reason)} site=${r.site ?? "-"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
