// Template "timers" (test form): timers and tickers. Either a watchdog whose timer each
// kick stops and resets, or a flusher whose ticker drives a flush loop while producers,
// throttled with time.After in their loop, add items. Injected bugs: the kick drains the
// timer's channel after a failed Stop although the expiry case already received from it,
// so the watchdog blocks in chan receive forever; or Close stops the ticker (which never
// closes its channel) and the loop ranging over ticker.C blocks in chan receive forever.
//
// The watchdog test makes its trigger certain: early kicks reset the timer to a second,
// one kick resets it to a few hundred microseconds, and the test waits for the expiry
// before the kick that hits the stale drain.

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs } from "./types.js";

function watchdogProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const earlyKicks = rng.int(5, 60);
  const work = rng.pick([100, 800, 3000]);
  const shortMicros = rng.pick([50, 150, 400]);
  // With the bug the first kick after an expiry hangs the watchdog, so only one expiry is awaited.
  const expiries = injectBug ? 1 : rng.int(1, 3);
  const hang = injectBug && rng.chance(0.5);
  const drain = injectBug
    ? "\t\t\tif !t.Stop() {\n\t\t\t\t<-t.C\n\t\t\t}\n"
    : "\t\t\tif !t.Stop() {\n\t\t\t\tselect {\n\t\t\t\tcase <-t.C:\n\t\t\t\tdefault:\n\t\t\t\t}\n\t\t\t}\n";
  const lib = `// Package timers watches a worker that must kick its watchdog before the timer expires.
package timers

${importBlock(["time"])}
// Watchdog counts the expiries of a timer that every kick resets.
type Watchdog struct {
	kick    chan time.Duration
	quit    chan struct{}
	expired chan int
	stopped chan struct{}
}

// Start runs a watchdog whose first deadline is d from now.
func Start(d time.Duration) *Watchdog {
	w := &Watchdog{
		kick:    make(chan time.Duration),
		quit:    make(chan struct{}),
		expired: make(chan int, 1),
		stopped: make(chan struct{}),
	}
@@watchdog@@\tgo w.run(d)
	return w
}

func (w *Watchdog) run(d time.Duration) {
	defer close(w.stopped)
	t := time.NewTimer(d)
	expiries := 0
	for {
		select {
		case next := <-w.kick:
${drain}			t.Reset(next)
		case <-t.C:
			expiries++
			select {
			case w.expired <- expiries:
			default:
			}
		case <-w.quit:
			t.Stop()
			return
		}
	}
}

// Kick moves the deadline to d from now.
func (w *Watchdog) Kick(d time.Duration) {
	w.kick <- d
}

// Expired waits for the next expiry and returns how many there were.
func (w *Watchdog) Expired() int {
	return <-w.expired
}
`;
  const stop = hang
    ? `\tclose(w.quit)
	<-w.stopped
`
    : `\tclose(w.quit)
	select {
	case <-w.stopped:
	case <-time.After(${patience} * time.Millisecond):
		t.Log("the watchdog did not stop within ${patience}ms")
	}
`;
  const test = `package timers

${importBlock(["testing", "time"])}
func busy(n int) int {
	h := n
	for i := 0; i < ${work}; i++ {
		h = (h*7 + i) % 10007
	}
	return h
}

func TestWatchdogExpiresAndRecovers(t *testing.T) {
	w := Start(time.Second)
	for i := 0; i < ${earlyKicks}; i++ {
		busy(i)
		w.Kick(time.Second)
	}
	for e := 1; e <= ${expiries}; e++ {
		w.Kick(${shortMicros} * time.Microsecond)
		if n := w.Expired(); n != e {
			t.Fatalf("expiry %d reported as %d", e, n)
		}
	}
	w.Kick(time.Second)
${stop}}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "timer-stop-drain",
        description:
          `after an expiry already received from t.C, the next kick finds Stop false and drains t.C again, so ` +
          `the watchdog goroutine blocks in chan receive forever` +
          (hang
            ? " and the test, waiting for it to stop, blocks too: it hangs"
            : `; the test gives up on stopping it after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "watchdog", creator: "Start", reason: "chan receive" },
          ...(hang
            ? [{ marker: null, creator: "TestWatchdogExpiresAndRecovers", reason: "chan receive" as const }]
            : []),
        ],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "watchdog.go", source: lib },
      { name: "watchdog_test.go", source: test },
    ],
    pattern: "watchdog-timer",
    description:
      `Timer watchdog: ${earlyKicks} early kicks (${work} work iterations apart) push the deadline out, ` +
      `then ${expiries} kick(s) shorten it to ${shortMicros}µs and the test waits for each expiry; every ` +
      `kick stops, drains${injectBug ? "" : " without blocking"} and resets the timer.`,
    tags: ["generated", "timer", "select", "timer-reset", "unbuffered", ...(hang ? [] : ["timeout"])],
    bug,
  };
}

function flusherProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const tickMicros = rng.pick([100, 250, 500]);
  const producers = rng.int(1, 4);
  const items = rng.int(20, 100);
  const throttleEvery = rng.int(3, 10);
  const throttleMicros = rng.pick([20, 60, 120]);
  const total = producers * items;
  const loop = injectBug
    ? `\tfor range f.ticker.C {
		f.flush()
	}
`
    : `\tdefer close(f.exited)
	for {
		select {
		case <-f.ticker.C:
			f.flush()
		case <-f.done:
			return
		}
	}
`;
  const close = injectBug
    ? `\tf.ticker.Stop()
	f.flush()
`
    : `\tf.ticker.Stop()
	close(f.done)
	<-f.exited
	f.flush()
`;
  const lib = `// Package timers batches items and flushes them on every tick of a ticker.
package timers

${importBlock(["sync", "time"])}
// Flusher collects items under mu and moves them to flushed on every tick.
type Flusher struct {
	mu      sync.Mutex
	pending []int
	flushed int
	ticker  *time.Ticker
	done    chan struct{}
	exited  chan struct{}
}

// NewFlusher starts a flush loop driven by a ticker of the given period.
func NewFlusher(every time.Duration) *Flusher {
	f := &Flusher{ticker: time.NewTicker(every), done: make(chan struct{}), exited: make(chan struct{})}
@@loop@@\tgo f.loop()
	return f
}

func (f *Flusher) loop() {
${loop}}

func (f *Flusher) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushed += len(f.pending)
	f.pending = f.pending[:0]
}

// Add queues an item for the next flush.
func (f *Flusher) Add(v int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending = append(f.pending, v)
}

// Close stops the ticker and flushes what is left.
func (f *Flusher) Close() {
${close}}

// Flushed reports how many items were flushed.
func (f *Flusher) Flushed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushed
}
`;
  const test = `package timers

${importBlock(["sync", "testing", "time"])}
func TestFlushEverything(t *testing.T) {
	f := NewFlusher(${tickMicros} * time.Microsecond)
	var wg sync.WaitGroup
	for p := 0; p < ${producers}; p++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			for i := 0; i < ${items}; i++ {
				f.Add(id*1000 + i)
				if i%${throttleEvery} == 0 {
					<-time.After(${throttleMicros} * time.Microsecond)
				}
			}
		}(p)
	}
	wg.Wait()
	f.Close()
	if n := f.Flushed(); n != ${total} {
		t.Fatalf("flushed %d items, want ${total}", n)
	}
	// Let a tick that was already due reach the loop.
	time.Sleep(2 * time.Millisecond)
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: "leak",
        bugClass: "ticker-loop-without-exit",
        description:
          "Close stops the ticker, but Stop does not close ticker.C, so the flush loop ranging over it blocks in chan receive forever after the last tick.",
        blocked: [{ marker: "loop", creator: "NewFlusher", reason: "chan receive" }],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "flusher.go", source: lib },
      { name: "flusher_test.go", source: test },
    ],
    pattern: "ticker-flush",
    description:
      `Ticker-driven flusher: ${producers} producer(s) add ${items} items each, waiting on ` +
      `time.After(${throttleMicros}µs) every ${throttleEvery} items, while a loop flushes on a ` +
      `${tickMicros}µs ticker; Close stops the ticker` +
      `${injectBug ? "" : ", signals the loop to return and waits for it"} and flushes the rest.`,
    tags: ["generated", "ticker", "time.After", "mutex", "waitgroup", "sleep"],
    bug,
  };
}

export const timers: ProgramTemplate = {
  name: "timers",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? watchdogProgram(rng, injectBug) : flusherProgram(rng, injectBug);
  },
};
