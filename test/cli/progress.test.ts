import { describe, expect, it } from "vitest";
import { progressWriter } from "../../src/cli/progress.js";

/** A stand-in for process.stderr that records what is written. */
function stream(tty: boolean): NodeJS.WriteStream & { text: string } {
  const s = { text: "", isTTY: tty, write(chunk: string) { s.text += chunk; return true; } };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe("progressWriter", () => {
  it("keeps only the lines in a log, leaving out transient counters", () => {
    const out = stream(false);
    const p = progressWriter(out);
    p.write("loading");
    p.write("1/3 states predicted", true);
    p.write("done");
    p.done();
    expect(out.text).toBe("loading\ndone\n");
  });

  it("redraws the counter in place on a terminal and ends it before results", () => {
    const out = stream(true);
    const p = progressWriter(out);
    p.write("1/3", true);
    p.write("kept");
    p.write("3/3", true);
    p.done();
    expect(out.text).toBe("\r1/3\x1b[K\r\x1b[Kkept\n\r3/3\x1b[K\n");
  });

  it("says nothing when quiet (--json)", () => {
    const out = stream(true);
    const p = progressWriter(out, { quiet: true });
    p.write("a");
    p.write("b", true);
    p.done();
    expect(out.text).toBe("");
  });
});
