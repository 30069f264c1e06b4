// Template "condsignal" (test form): channel & condition variable. Either producers feed
// a channel that a pump moves into a Cond-guarded queue drained by C consumers, or
// workers pass a Cond-guarded gate and report on a channel. Injected bugs (lost or missed
// signal): Close wakes one waiter with Signal instead of Broadcast, so the other C-1
// consumers stay in Cond.Wait; or Gate.Wait calls Cond.Wait without checking the
// predicate, so workers that arrive after Open sleep forever.
//
// Both programs make the trigger certain: waiters are counted under the lock (a waker
// decrements the count for the waiter it signals), and the test waits until every
// consumer (or early worker) is parked before it closes (opens).

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs, pollLoop } from "./types.js";

/** The test's wait while `pending` holds. */
function pollWhile(pending: string, style: "sleep" | "gosched"): string {
  return pollLoop(pending, style, 20, "\t");
}

function queueProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const producers = rng.int(1, 4);
  const perProducer = rng.int(20, 120);
  const buffer = rng.int(0, 8);
  const consumers = rng.int(2, 5);
  const work = rng.pick([50, 300, 1500]);
  const poll = rng.pick(["sleep", "gosched"] as const);
  const hang = injectBug && rng.chance(0.5);
  const total = producers * perProducer;
  const lib = `// Package condsignal hands items to consumers through a queue guarded by a condition variable.
package condsignal

${importBlock(["sync"])}
// Queue is an unbounded FIFO. Get waits on cond while the queue is empty and open;
// waiting counts the parked consumers no wake-up has been sent to yet.
type Queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []int
	closed  bool
	waiting int
}

// NewQueue returns an empty open queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Put appends v and wakes one parked consumer, if any.
func (q *Queue) Put(v int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.items = append(q.items, v)
	if q.waiting > 0 {
		q.waiting--
		q.cond.Signal()
	}
}

// Get returns the next item, or false once the queue is closed and empty.
func (q *Queue) Get() (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.waiting++
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return 0, false
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, true
}

// Waiting reports how many consumers are parked in Get.
func (q *Queue) Waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting
}

// Close marks the queue closed and wakes the parked consumers, which then return.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
${injectBug ? "\tif q.waiting > 0 {\n\t\tq.waiting--\n\t\tq.cond.Signal()\n\t}\n" : "\tq.waiting = 0\n\tq.cond.Broadcast()\n"}}
`;
  const wait = hang
    ? `\tconsumers.Wait()
	checkTotals(t, handled)
`
    : `\tdone := make(chan struct{})
@@closer@@\tgo func() {
		consumers.Wait()
		close(done)
	}()
	select {
	case <-done:
		checkTotals(t, handled)
	case <-time.After(${patience} * time.Millisecond):
		t.Log("consumers still parked ${patience}ms after Close")
	}
`;
  const test = `package condsignal

${importBlock(["sync", "testing", "time", ...(poll === "gosched" ? ["runtime"] : [])])}
func handle(v int) int {
	h := v
	for i := 0; i < ${work}; i++ {
		h = (h*17 + i) % 8191
	}
	return h
}

func checkTotals(t *testing.T, handled []int) {
	n := 0
	for _, c := range handled {
		n += c
	}
	if n != ${total} {
		t.Errorf("handled %d items, want ${total}", n)
	}
}

func TestDrainThenClose(t *testing.T) {
	q := NewQueue()
	in := make(chan int, ${buffer})
	var producers sync.WaitGroup
	for p := 0; p < ${producers}; p++ {
		producers.Add(1)
		go func(id int) {
			defer producers.Done()
			for i := 0; i < ${perProducer}; i++ {
				in <- id*1000 + i
			}
		}(p)
	}
	go func() {
		producers.Wait()
		close(in)
	}()
	pumped := make(chan struct{})
	go func() {
		for v := range in {
			q.Put(v)
		}
		close(pumped)
	}()
	var consumers sync.WaitGroup
	handled := make([]int, ${consumers})
	for c := 0; c < ${consumers}; c++ {
		consumers.Add(1)
@@consumer@@\t\tgo func(id int) {
			defer consumers.Done()
			for {
				v, ok := q.Get()
				if !ok {
					return
				}
				handle(v)
				handled[id]++
			}
		}(c)
	}
	<-pumped
	// Every item is handled once all ${consumers} consumers are parked on the empty queue.
${pollWhile(`q.Waiting() < ${consumers}`, poll)}	q.Close()
${wait}}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "cond-missed-signal",
        description:
          `Close wakes one parked consumer with Signal instead of Broadcast, so the other ${consumers - 1} ` +
          `consumer(s) stay in Cond.Wait` +
          (hang
            ? " and the test blocks in WaitGroup.Wait and hangs"
            : `, the goroutine waiting for them blocks in WaitGroup.Wait, and the test gives up after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "consumer", creator: "TestDrainThenClose", reason: "sync.(*Cond).Wait" },
          hang
            ? { marker: null, creator: "TestDrainThenClose", reason: "sync" }
            : { marker: "closer", creator: "TestDrainThenClose", reason: "sync" },
        ],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "queue.go", source: lib },
      { name: "queue_test.go", source: test },
    ],
    pattern: "cond-queue",
    description:
      `Condition-variable queue fed from a channel: ${producers} producer(s) × ${perProducer} items into a ` +
      `channel (buffer ${buffer}) that a pump moves into the queue; ${consumers} consumers (${work} work ` +
      `iterations per item) wait on the Cond; the test polls (${poll}) until all are parked, then closes ` +
      `the queue.`,
    tags: ["generated", "cond", "mutex", "waitgroup", "channels", poll === "sleep" ? "sleep" : "gosched"],
    bug,
  };
}

function gateProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const early = rng.int(1, 5);
  const late = rng.int(1, 3);
  const work = rng.pick([100, 600, 2500]);
  const poll = rng.pick(["sleep", "gosched"] as const);
  const buffered = rng.chance(0.5);
  const hang = injectBug && rng.chance(0.5);
  const lib = `// Package condsignal holds workers at a gate until it opens.
package condsignal

${importBlock(["sync"])}
// Gate blocks Wait until Open; waiting counts the workers parked at the gate.
type Gate struct {
	mu      sync.Mutex
	cond    *sync.Cond
	open    bool
	waiting int
}

// NewGate returns a closed gate.
func NewGate() *Gate {
	g := &Gate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Wait returns once the gate is open.
func (g *Gate) Wait() {
	g.mu.Lock()
	defer g.mu.Unlock()
${injectBug ? "\tg.waiting++\n\tg.cond.Wait()\n" : "\tfor !g.open {\n\t\tg.waiting++\n\t\tg.cond.Wait()\n\t}\n"}}

// Waiting reports how many workers are parked at the gate.
func (g *Gate) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// Open lets every parked and every later worker through.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = true
	g.waiting = 0
	g.cond.Broadcast()
}
`;
  // The early workers pass on every schedule; only the late ones can miss the wake-up.
  const collect = `\tfor i := 0; i < ${early}; i++ {
		sum += <-arrived
	}
${
  hang
    ? `\tfor i := 0; i < ${late}; i++ {
		sum += <-arrived
	}
`
    : `\ttimeout := time.After(${patience} * time.Millisecond)
	for i := 0; i < ${late}; i++ {
		select {
		case v := <-arrived:
			sum += v
		case <-timeout:
			t.Log(i, "of ${late} late workers passed the gate")
			return
		}
	}
`
}\tt.Log("all workers passed, sum", sum)
`;
  const test = `package condsignal

${importBlock(["testing", "time", ...(poll === "gosched" ? ["runtime"] : [])])}
func warmUp(id int) int {
	h := id
	for i := 0; i < ${work}; i++ {
		h = (h*29 + i) % 65521
	}
	return h
}

func TestGateLetsEveryoneThrough(t *testing.T) {
	g := NewGate()
	arrived := make(chan int${buffered ? `, ${early + late}` : ""})
	for w := 0; w < ${early}; w++ {
@@early@@\t\tgo func(id int) {
			v := warmUp(id)
			g.Wait()
			arrived <- v
		}(w)
	}
${pollWhile(`g.Waiting() < ${early}`, poll)}	g.Open()
	for w := 0; w < ${late}; w++ {
@@late@@\t\tgo func(id int) {
			v := warmUp(id)
			g.Wait()
			arrived <- v
		}(${early} + w)
	}
	sum := 0
${collect}}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "cond-missed-signal",
        description:
          `Gate.Wait calls Cond.Wait without checking whether the gate is already open, so the ${late} ` +
          `worker(s) arriving after Open sleep in Cond.Wait forever` +
          (hang
            ? " and the test blocks receiving their arrivals and hangs"
            : `; the test gives up after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "late", creator: "TestGateLetsEveryoneThrough", reason: "sync.(*Cond).Wait" },
          ...(hang ? [{ marker: null, creator: "TestGateLetsEveryoneThrough", reason: "chan receive" as const }] : []),
        ],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "gate.go", source: lib },
      { name: "gate_test.go", source: test },
    ],
    pattern: "cond-gate",
    description:
      `Condition-variable gate: ${early} early workers park at the gate (the test polls with ${poll} until ` +
      `they have), the gate opens, ${late} late worker(s) pass it; every worker (${work} work iterations) ` +
      `reports on a${buffered ? " buffered" : "n unbuffered"} channel.`,
    tags: [
      "generated",
      "cond",
      "mutex",
      "channels",
      poll === "sleep" ? "sleep" : "gosched",
      buffered ? "buffered" : "unbuffered",
    ],
    bug,
  };
}

export const condSignal: ProgramTemplate = {
  name: "condsignal",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? queueProgram(rng, injectBug) : gateProgram(rng, injectBug);
  },
};
