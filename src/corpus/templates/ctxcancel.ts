// Template "ctxcancel" (test form): channel & context. Either a replicated lookup that
// asks R replicas and keeps the first answer, cancelling the rest, or a watch stream a
// producer feeds until its context is cancelled. Injected bugs: replicas send their answer
// without selecting on ctx.Done, so the R-1 late ones block in chan send; or the stream's
// producer returns on cancellation without closing its channel, so the consumer ranging
// over it blocks in chan receive (a goroutine that leaks, or the test itself, which hangs).

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs } from "./types.js";

function spin(name: string): string {
  return `func ${name}(seed, n int) int {
	h := seed
	for i := 0; i < n; i++ {
		h = (h*31 + i) % 1000003
	}
	return h
}
`;
}

function firstAnswer(rng: Prng, injectBug: boolean): TemplateProgram {
  const replicas = rng.int(2, 6);
  const queries = rng.int(2, 8);
  const work = rng.pick([100, 400, 1500, 4000]);
  const parallel = rng.chance(0.5);
  // A clean program either buffers every answer or selects on ctx.Done; a buggy one does neither.
  const cleanFix = rng.pick(["select", "buffer"] as const);
  const buffered = !injectBug && cleanFix === "buffer";
  const withTimeout = rng.chance(0.5);
  const send =
    injectBug || cleanFix === "buffer"
      ? `\t\t\tanswers <- v\n`
      : `\t\t\tselect {
			case answers <- v:
			case <-ctx.Done():
			}
`;
  const lib = `// Package ctxcancel asks every replica of a store for a key and keeps the first answer.
package ctxcancel

${importBlock(["context"])}
// Replica work per lookup: iterations of a hash loop.
const lookupWork = ${work}

${spin("lookup")}
// First asks ${replicas} replicas for key and returns the first answer; returning cancels
// the others.
func First(ctx context.Context, key int) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan int${buffered ? `, ${replicas}` : ""})
	for r := 0; r < ${replicas}; r++ {
@@replica@@\t\tgo func(id int) {
			v := lookup(key*${replicas}+id, lookupWork+id*17)
${send}		}(r)
	}
	select {
	case v := <-answers:
		return v, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
`;
  const ctxLine = withTimeout
    ? `\tctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)\n\tdefer cancel()\n`
    : `\tctx := context.Background()\n`;
  const body = parallel
    ? `	var wg sync.WaitGroup
	errs := make(chan error, ${queries})
	for q := 0; q < ${queries}; q++ {
		wg.Add(1)
		go func(key int) {
			defer wg.Done()
			if _, err := First(ctx, key); err != nil {
				errs <- err
			}
		}(q)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("lookup failed: %v", err)
	}
`
    : `	for q := 0; q < ${queries}; q++ {
		if _, err := First(ctx, q); err != nil {
			t.Fatalf("lookup %d: %v", q, err)
		}
	}
`;
  const test = `package ctxcancel

${importBlock(["context", "testing", "time", ...(parallel ? ["sync"] : [])])}
func TestFirstAnswer(t *testing.T) {
${ctxLine}${body}	// Give the replicas that lost each race time to reach their send.
	time.Sleep(5 * time.Millisecond)
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: "leak",
        bugClass: "channel-context",
        description:
          `replicas send their answer on an unbuffered channel without selecting on ctx.Done, so after First ` +
          `returns with the first answer the other ${replicas - 1} replica(s) of each of the ${queries} ` +
          `lookups block in chan send.`,
        blocked: [{ marker: "replica", creator: "First", reason: "chan send" }],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "replica.go", source: lib },
      { name: "replica_test.go", source: test },
    ],
    pattern: "first-response",
    description:
      `Replicated lookup with context cancellation: ${queries} ${parallel ? "parallel" : "sequential"} ` +
      `lookups, each asking ${replicas} replicas (${work} work iterations) and keeping the first answer; ` +
      `late replicas ` +
      (injectBug
        ? "send on an unbuffered channel"
        : buffered
          ? "send into a buffer sized for all"
          : "select on ctx.Done") +
      `.`,
    tags: [
      "generated",
      "context",
      "cancellation",
      "first-response",
      "select",
      ...(buffered ? ["buffered"] : ["unbuffered"]),
      ...(withTimeout ? ["timeout"] : []),
    ],
    bug,
  };
}

function watchStream(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const buffer = rng.int(0, 6);
  const take = rng.int(20, 150);
  const work = rng.pick([50, 300, 1200]);
  const pauseEvery = rng.pick([0, 4, 9]);
  const consumerInTest = rng.chance(0.5); // with the bug: the test itself hangs
  const pause =
    pauseEvery > 0 ? `\t\t\tif i%${pauseEvery} == 0 {\n\t\t\t\ttime.Sleep(30 * time.Microsecond)\n\t\t\t}\n` : "";
  const lib = `// Package ctxcancel streams sampled readings until the caller's context is cancelled.
package ctxcancel

${importBlock(["context", ...(pauseEvery > 0 ? ["time"] : [])])}
${spin("sample")}
// Watch starts a producer that sends readings until ctx is done.
func Watch(ctx context.Context) <-chan int {
	out := make(chan int, ${buffer})
@@producer@@\tgo func() {
${injectBug ? "" : "\t\tdefer close(out)\n"}		for i := 0; ; i++ {
			v := sample(i, ${work})
${pause}			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
`;
  const consume = (signal: boolean): string => `	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	count, sum := 0, 0
	for v := range Watch(ctx) {
		sum += v
		count++
		if count == ${take} {
			cancel()${signal ? "\n\t\t\tclose(cancelled)" : ""}
		}
	}
`;
  const test = consumerInTest
    ? `package ctxcancel

${importBlock(["context", "testing"])}
func TestWatchUntilCancelled(t *testing.T) {
${consume(false)}	if count < ${take} {
		t.Fatalf("got %d readings, want at least ${take}", count)
	}
	t.Log(count, "readings, sum", sum)
}
`
    : `package ctxcancel

${importBlock(["context", "testing", "time"])}
func TestWatchUntilCancelled(t *testing.T) {
	cancelled := make(chan struct{})
	done := make(chan int)
@@consumer@@\tgo func() {
${consume(true).replace(/^\t/gm, "\t\t")}		done <- count
	}()
	<-cancelled
	select {
	case n := <-done:
		if n < ${take} {
			t.Fatalf("got %d readings, want at least ${take}", n)
		}
	case <-time.After(${patience} * time.Millisecond):
		t.Log("consumer still waiting for the stream to end ${patience}ms after cancelling")
	}
}
`;
  const bug: InjectedBug | null = injectBug
    ? consumerInTest
      ? {
          outcome: "deadlock",
          bugClass: "channel-context",
          description:
            `the producer returns on cancellation without closing its channel, so the test, ranging over the ` +
            `stream after taking ${take} readings, blocks in chan receive and hangs.`,
          blocked: [{ marker: null, creator: "TestWatchUntilCancelled", reason: "chan receive" }],
        }
      : {
          outcome: "leak",
          bugClass: "channel-context",
          description:
            `the producer returns on cancellation without closing its channel, so the consumer goroutine ranging ` +
            `over the stream blocks in chan receive; the test gives up ${patience}ms after the cancellation.`,
          blocked: [{ marker: "consumer", creator: "TestWatchUntilCancelled", reason: "chan receive" }],
        }
    : null;
  return {
    form: "test",
    files: [
      { name: "watch.go", source: lib },
      { name: "watch_test.go", source: test },
    ],
    pattern: "context-stream",
    description:
      `Context-cancelled stream: a producer sends readings (buffer ${buffer}, ${work} work iterations each` +
      `${pauseEvery > 0 ? `, a 30µs pause every ${pauseEvery}` : ""}) selecting on ctx.Done; the ` +
      `${consumerInTest ? "test" : "consumer goroutine"} cancels after ${take} readings and ranges until ` +
      `the stream ends.`,
    tags: [
      "generated",
      "context",
      "cancellation",
      "select",
      "range-over-channel",
      ...(pauseEvery > 0 ? ["sleep"] : []),
    ],
    bug,
  };
}

export const ctxCancel: ProgramTemplate = {
  name: "ctxcancel",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? firstAnswer(rng, injectBug) : watchStream(rng, injectBug);
  },
};
