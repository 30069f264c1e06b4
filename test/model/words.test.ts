// The words of a finding never contradict themselves (issue 41, item 5), on runs built by
// hand: an outlived ticker loop says what keeps it alive, never that nothing is left to wake
// it; a program of one run never speaks of "other runs"; a wait inside a library call names
// the call.

import { describe, expect, test } from "vitest";
import { explainProgram, groupBugs, judgeProgram, libraryCall, type ProgramRuns } from "../../src/model/index.js";
import { analyseProgram } from "../../src/leaks/index.js";
import { foldedRun, testGoroutine, type Step } from "../helpers/folded-run.js";

const PKG = "schedlab.dev/fixtures/words/ticker";

function program(runs: ProgramRuns["runs"]): ProgramRuns {
  return { program: "words", runs };
}

describe("an outlived goroutine's words", () => {
  const root = testGoroutine(1, "TestPoll", PKG, "TestPoll", "");
  const loop = testGoroutine(2, "TestPoll", PKG, "(*Poller).loop", "poll.go:19");
  const at = `${PKG}.(*Poller).loop poll.go:27`;
  const tick: Step[] = [
    { kind: "GoBlock", g: 2, reason: "select", site: at, stack: `runtime.selectgo;${at}` },
    { kind: "GoUnblock", g: 2, actor: null },
    { kind: "GoStart", g: 2 },
  ];
  const steps: Step[] = [
    { kind: "GoStart", g: 1 },
    { kind: "GoCreate", g: 2 },
    { kind: "GoStart", g: 2 },
    ...tick,
    ...tick,
    ...tick,
    { kind: "GoBlock", g: 2, reason: "select", site: at, stack: `runtime.selectgo;${at}` },
    { kind: "GoEnd", g: 1 },
  ];
  const runs = program([foldedRun(1, [root, loop], steps), foldedRun(2, [root, loop], steps)]);

  test("says the timer keeps it alive and that it outlived its test, never that nothing is left to wake it", () => {
    const [judged] = judgeProgram(runs);
    expect(judged.kind).toBe("outlived");
    const e = explainProgram(runs, [loop.canonicalId]).get(loop.canonicalId);
    expect(e?.partnerGone).toBe(false);
    expect(e?.timerWakes).toBe(6);
    expect(e?.text).toBe(
      "ticker.(*Poller).loop waits at poll.go:27 in select, but a timer woke it there 6 times, so it is alive, " +
        "not blocked; its test TestPoll ended without stopping it.",
    );
    expect(e?.text).not.toMatch(/nothing is left/i);
    // The judgement's why is the paragraph's own words: a bug shows no second, bracketed version.
    expect(e?.text).toContain(judged.why);
  });
});

describe("a program of one run", () => {
  const pkg = "schedlab.dev/fixtures/words/consumer";
  const root = testGoroutine(1, "TestConsume", pkg, "TestConsume", "");
  const consumer = testGoroutine(2, "TestConsume", pkg, "Consume", "queue_test.go:8");
  const at = `${pkg}.Consume queue.go:9`;
  const receive: Step = { kind: "GoBlock", g: 2, reason: "chan receive", site: at, stack: `runtime.chanrecv1;${at}` };
  const steps: Step[] = [
    { kind: "GoStart", g: 1 },
    { kind: "GoCreate", g: 2 },
    { kind: "GoStart", g: 2 },
    receive,
    { kind: "GoUnblock", g: 2, actor: 1 },
    { kind: "GoStart", g: 2 },
    receive,
    { kind: "GoEnd", g: 1 },
  ];

  test("names the wakers of its only run as such, and says what one run cannot show", () => {
    const one = program([foldedRun(1, [root, consumer], steps)]);
    const text = explainProgram(one, [consumer.canonicalId]).get(consumer.canonicalId)?.text ?? "";
    expect(text).toBe(
      "consumer.Consume waits at queue.go:9 in chan receive. Earlier in the only run, it was woken there by " +
        "TestConsume, which had ended. Nothing is left to wake it.",
    );
    expect(text).not.toMatch(/other runs/);
  });

  test("with several runs, says how many the wakers were seen in", () => {
    const two = program([foldedRun(1, [root, consumer], steps), foldedRun(2, [root, consumer], steps)]);
    const text = explainProgram(two, [consumer.canonicalId]).get(consumer.canonicalId)?.text ?? "";
    expect(text).toContain("In the 2 runs, it was woken there by TestConsume");
  });

  test("a wait nobody was seen to wake says the one run is one schedule", () => {
    const alone: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoStart", g: 2 },
      receive,
      { kind: "GoEnd", g: 1 },
    ];
    const text =
      explainProgram(program([foldedRun(1, [root, consumer], alone)]), [consumer.canonicalId]).get(consumer.canonicalId)
        ?.text ?? "";
    expect(text).toContain("The only run does not show who could wake it");
    expect(text).toContain("One run shows one schedule: more runs (--runs) can show whether another one wakes it.");
    expect(text).not.toMatch(/No run shows|other runs/);
  });
});

describe("a wait inside a library call", () => {
  test("names the standard-library call the user's line made, not the runtime's primitives", () => {
    expect(libraryCall("io.(*PipeReader).Read")).toBe("io.(*PipeReader).Read");
    expect(libraryCall("net/http.(*Client).Do")).toBe("http.(*Client).Do");
    expect(libraryCall("runtime.selectgo")).toBeNull();
    expect(libraryCall("runtime.chanrecv1")).toBeNull();
    expect(libraryCall("sync.(*Mutex).Lock")).toBeNull();
    expect(libraryCall("")).toBeNull();
  });

  test("the paragraph places it at the user's line and names the call", () => {
    const pkg = "schedlab.dev/fixtures/words/pipewait";
    const root = testGoroutine(1, "TestDrainNoWriter", pkg, "TestDrainNoWriter", "");
    const drain = testGoroutine(2, "TestDrainNoWriter", pkg, "Drain", "copy_test.go:12");
    const at = `${pkg}.Drain copy.go:11`;
    const run = foldedRun(
      1,
      [root, drain],
      [
        { kind: "GoStart", g: 1 },
        { kind: "GoCreate", g: 2 },
        { kind: "GoStart", g: 2 },
        { kind: "GoBlock", g: 2, reason: "select", site: at, stack: `io.(*PipeReader).Read;${at}` },
        { kind: "GoEnd", g: 1 },
      ],
    );
    const e = explainProgram(program([run]), [drain.canonicalId]).get(drain.canonicalId);
    expect(e?.inside).toBe("io.(*PipeReader).Read");
    expect(e?.text).toMatch(/^pipewait\.Drain waits at copy\.go:11 in select inside io\.\(\*PipeReader\)\.Read\. /);
  });
});

describe("a bug's verdict and its goroutines'", () => {
  const pkg = "schedlab.dev/fixtures/words/pool";
  const root = testGoroutine(1, "TestPool", pkg, "TestPool", "");
  const early = testGoroutine(2, "TestPool", pkg, "fill", "pool_test.go:10");
  const late = testGoroutine(3, "TestPool", pkg, "drain", "pool_test.go:11");
  const fillAt = `${pkg}.fill pool.go:20`;
  const drainAt = `${pkg}.drain pool.go:30`;
  const busy: Step[] = Array.from({ length: 20 }, (): Step[] => [
    { kind: "GoSched", g: 1, reason: "preempted" },
    { kind: "GoStart", g: 1 },
  ]).flat();
  // The deadline cut the run: fill had been blocked for most of it, drain only at the very end.
  const run = foldedRun(
    1,
    [root, early, late],
    [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      { kind: "GoStart", g: 2 },
      { kind: "GoBlock", g: 2, reason: "chan send", site: fillAt, stack: `runtime.chansend1;${fillAt}` },
      ...busy,
      { kind: "GoStart", g: 3 },
      { kind: "GoBlock", g: 3, reason: "chan receive", site: drainAt, stack: `runtime.chanrecv1;${drainAt}` },
      { kind: "GoSched", g: 1, reason: "preempted" },
    ],
    "timeout",
  );
  const runs = program([run]);

  test("the heading verdict is its goroutines' (likely), and a goroutine judged otherwise is listed with why", () => {
    const judgements = judgeProgram(runs);
    expect(judgements.map((j) => `${j.goroutine} ${j.kind} ${j.verdict}`)).toEqual([
      `${late.canonicalId} inconclusive inconclusive`,
      `${early.canonicalId} leak likely`,
    ]);
    const ids = judgements.map((j) => j.goroutine);
    const [bug] = groupBugs(runs, judgements, explainProgram(runs, ids));
    expect(bug.goroutines).toEqual([early.canonicalId, late.canonicalId].sort());
    expect(`${bug.verdict} ${bug.kind}`).toBe("likely leak");
    expect(bug.gating).toBe(false);
    expect(bug.why).toBe("blocked for most of a run the deadline cut (not counted by --fail-on-leak on its own)");
    expect(bug.differing).toEqual([
      {
        goroutine: late.canonicalId,
        kind: "inconclusive",
        verdict: "inconclusive",
        why: "blocked only shortly before the deadline cut the run",
      },
    ]);
  });
});

describe("one item, one place", () => {
  const pkg = "schedlab.dev/fixtures/words/jobs";
  const root = testGoroutine(1, "TestJobs", pkg, "TestJobs", "");
  const worker = testGoroutine(2, "TestJobs", pkg, "worker", "jobs_test.go:9");
  const recvAt = `${pkg}.worker jobs.go:12`;
  const lockAt = `${pkg}.worker jobs.go:18`;
  const start: Step[] = [
    { kind: "GoStart", g: 1 },
    { kind: "GoCreate", g: 2 },
    { kind: "GoStart", g: 2 },
  ];
  const receive: Step = {
    kind: "GoBlock",
    g: 2,
    reason: "chan receive",
    site: recvAt,
    stack: `runtime.chanrecv1;${recvAt}`,
  };
  const lock: Step = { kind: "GoBlock", g: 2, reason: "sync", site: lockAt, stack: `sync.(*Mutex).Lock;${lockAt}` };
  // Two runs end in the lock; the third, which says the most (its waker is named), in the receive.
  const runs = program([
    foldedRun(1, [root, worker], [...start, lock, { kind: "GoEnd", g: 1 }]),
    foldedRun(2, [root, worker], [...start, lock, { kind: "GoEnd", g: 1 }]),
    foldedRun(
      3,
      [root, worker],
      [
        ...start,
        receive,
        { kind: "GoUnblock", g: 2, actor: 1 },
        { kind: "GoStart", g: 2 },
        receive,
        { kind: "GoEnd", g: 1 },
      ],
    ),
  ]);

  test("the finding's wait, line and stack are the explained run's, and the text says where else it ended", () => {
    const { findings, bugs } = analyseProgram(runs);
    const [f] = findings;
    expect(f.explanation?.runId).toBe(3);
    expect(`${f.reason} ${f.wait} ${f.blockingSite}`).toBe(`chan receive chan receive ${recvAt}`);
    expect(f.explanation?.stack).toEqual([recvAt]);
    expect(f.explanation?.places).toEqual([
      { site: recvAt, wait: "chan receive", runs: 1 },
      { site: lockAt, wait: "Mutex.Lock", runs: 2 },
    ]);
    expect(f.explanation?.text).toMatch(/^jobs\.worker waits at jobs\.go:12 in chan receive\. /);
    expect(f.explanation?.text).toContain(
      "It did not always end blocked there: in 1 of 3 runs at jobs.go:12 in chan receive (the run explained), " +
        "in 2 of 3 runs at jobs.go:18 in Mutex.Lock.",
    );
    expect(bugs[0].explained?.explanation.text).toBe(f.explanation?.text);
  });
});
