// Bad inputs: truncated traces keep every complete generation; corrupt files and text
// files are refused with a clear error.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TraceCorruptError } from "../../src/trace/errors.js";
import { decodeAll, fixture } from "./helpers.js";

const scratch = mkdtempSync(join(tmpdir(), "schedlab-trace-inputs-"));

describe("truncated and corrupt traces", () => {
  it("keeps the complete generations of a trace cut in the middle", async () => {
    const full = await decodeAll(fixture("generations.trace"), { mode: "main" });
    expect(full.summary.generations).toBeGreaterThanOrEqual(3);
    const bytes = readFileSync(fixture("generations.trace"));
    const cut = join(scratch, "cut.trace");
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const partial = await decodeAll(cut, { mode: "main" });
    expect(partial.summary.status).toBe("truncated");
    expect(partial.summary.message).toMatch(/read/);
    expect(partial.summary.generations).toBeGreaterThanOrEqual(1);
    expect(partial.summary.generations).toBeLessThan(full.summary.generations);
    expect(partial.records.length).toBeGreaterThan(0);
    expect(partial.records.length).toBeLessThan(full.records.length);
    // what is kept is exactly the start of the full decode
    expect(partial.records).toEqual(full.records.slice(0, partial.records.length));
  });

  it("reports a trace cut inside its first generation as truncated with no records", async () => {
    const cut = join(scratch, "cut-early.trace");
    writeFileSync(cut, readFileSync(fixture("tree.trace")).subarray(0, 600));
    const d = await decodeAll(cut, { mode: "main" });
    expect(d.summary.status).toBe("truncated");
    expect(d.records).toHaveLength(0);
  });

  it("refuses random bytes and a text file with TraceCorruptError", async () => {
    const random = join(scratch, "random.trace");
    writeFileSync(random, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)));
    await expect(decodeAll(random)).rejects.toThrow(TraceCorruptError);
    await expect(decodeAll(random)).rejects.toThrow(/not a Go execution trace/);
    const text = join(scratch, "notes.txt");
    writeFileSync(text, "this is not a trace\n");
    await expect(decodeAll(text)).rejects.toThrow(/not a Go execution trace/);
    const garbage = join(scratch, "garbage-after-header.trace");
    writeFileSync(garbage, Buffer.concat([Buffer.from("go 1.26 trace\0\0\0"), Buffer.alloc(2000, 135)]));
    await expect(decodeAll(garbage)).rejects.toThrow(TraceCorruptError);
  });

  it("refuses a missing file with a hint", async () => {
    await expect(decodeAll(join(scratch, "missing.trace"))).rejects.toMatchObject({
      hint: expect.stringMatching(/collect/),
    });
  });
});
