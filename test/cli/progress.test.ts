import { afterEach, describe, expect, it, vi } from "vitest";
import { LOG_PROGRESS_EVERY_MS, logHeartbeat, progressWriter } from "../../src/cli/progress.js";

/** A stand-in for process.stderr that records what is written. */
function stream(tty: boolean): NodeJS.WriteStream & { text: string } {
  const s = {
    text: "",
    isTTY: tty,
    write(chunk: string) {
      s.text += chunk;
      return true;
    },
  };
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

describe("logHeartbeat", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("writes the current status to a log every interval, then the final line, and stops", () => {
    vi.useFakeTimers();
    const out = stream(false);
    let n = 0;
    const heartbeat = logHeartbeat(out, () => `status ${++n}`, { everyMs: 1_000 });
    vi.advanceTimersByTime(999);
    expect(out.text).toBe("");
    vi.advanceTimersByTime(2_001);
    expect(out.text).toBe("status 1\nstatus 2\nstatus 3\n");
    heartbeat.stop("done");
    heartbeat.stop("done again");
    vi.advanceTimersByTime(5_000);
    expect(out.text).toBe("status 1\nstatus 2\nstatus 3\ndone\n");
  });

  it("defaults to one line every 10 s", () => {
    vi.useFakeTimers();
    const out = stream(false);
    const heartbeat = logHeartbeat(out, () => "status");
    vi.advanceTimersByTime(LOG_PROGRESS_EVERY_MS * 3);
    heartbeat.stop();
    expect(LOG_PROGRESS_EVERY_MS).toBe(10_000);
    expect(out.text).toBe("status\nstatus\nstatus\n");
  });

  it("does nothing on a terminal (the live line is its progress) or when quiet", () => {
    vi.useFakeTimers();
    for (const [out, quiet] of [
      [stream(true), false],
      [stream(false), true],
    ] as const) {
      const heartbeat = logHeartbeat(out, () => "status", { everyMs: 10, quiet });
      vi.advanceTimersByTime(1_000);
      heartbeat.stop("final");
      expect(out.text).toBe("");
    }
  });

  it("never keeps the process alive: its timer is unref'd", () => {
    const timers: NodeJS.Timeout[] = [];
    const real = globalThis.setInterval;
    vi.spyOn(globalThis, "setInterval").mockImplementation(((callback: () => void, ms: number) => {
      const timer = real(callback, ms);
      timers.push(timer);
      return timer;
    }) as typeof setInterval);
    const heartbeat = logHeartbeat(stream(false), () => "status", { everyMs: 60_000 });
    expect(timers).toHaveLength(1);
    expect(timers[0]!.hasRef()).toBe(false);
    heartbeat.stop();
  });
});

describe("progressWriter.live", () => {
  it("is true only on a terminal and when not quiet", () => {
    expect(progressWriter(stream(true)).live).toBe(true);
    expect(progressWriter(stream(false)).live).toBe(false);
    expect(progressWriter(stream(true), { quiet: true }).live).toBe(false);
  });
});
