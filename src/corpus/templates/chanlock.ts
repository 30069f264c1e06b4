// Template "chanlock" (test form): channel & lock. Either a hub publishes batches to a
// subscriber that acknowledges each value under the hub's mutex, or refreshers ask a
// loader goroutine for fresh values that the loader computes under the store's mutex.
// Injected bugs: Publish holds the mutex while sending a batch larger than the channel's
// buffer, so the subscriber blocks in Lock and the publisher in chan send; or Refresh
// holds the mutex while waiting for the loader's reply, so the loader blocks in Lock,
// the refresher in chan receive and every other refresher in Lock.

import type { Prng } from "../prng.js";
import type { InjectedBug, MarkedBlockedGoroutine, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs } from "./types.js";

function hubProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const buffer = rng.int(0, 4);
  const batches = rng.int(1, 6);
  // A batch must overflow the buffer while the subscriber waits for the lock: at least buffer + 2 values.
  const batchSize = rng.int(buffer + 2, buffer + 20);
  const work = rng.pick([100, 500, 2000]);
  const inTest = rng.chance(0.5); // the test goroutine publishes (with the bug: it hangs)
  const total = batches * batchSize;
  const publish = injectBug
    ? `\th.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range batch {
		h.out <- v
		h.published++
	}
`
    : `\tfor _, v := range batch {
		h.out <- v
		h.mu.Lock()
		h.published++
		h.mu.Unlock()
	}
`;
  const lib = `// Package chanlock delivers batches of readings to a subscriber and keeps delivery counts.
package chanlock

${importBlock(["sync"])}
// Hub counts published and acknowledged values under mu.
type Hub struct {
	mu        sync.Mutex
	published int
	acked     int
	out       chan int
}

// NewHub returns a hub whose subscriber channel holds buffer values.
func NewHub(buffer int) *Hub {
	return &Hub{out: make(chan int, buffer)}
}

// Publish sends every value of batch to the subscriber.
func (h *Hub) Publish(batch []int) {
${publish}}

// Ack records that the subscriber handled one value.
func (h *Hub) Ack() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.acked++
}

// Acked reports how many values were acknowledged.
func (h *Hub) Acked() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.acked
}

// Close ends the subscription.
func (h *Hub) Close() {
	close(h.out)
}
`;
  const publishAll = (indent: string): string =>
    `${indent}for b := 0; b < ${batches}; b++ {
${indent}\tbatch := make([]int, ${batchSize})
${indent}\tfor i := range batch {
${indent}\t\tbatch[i] = b*100 + i
${indent}\t}
${indent}\th.Publish(batch)
${indent}}
${indent}h.Close()
`;
  const test = `package chanlock

${importBlock(["testing", ...(inTest ? [] : ["time"])])}
func digest(v int) int {
	for i := 0; i < ${work}; i++ {
		v = (v*31 + i) % 65521
	}
	return v
}

func TestPublishBatches(t *testing.T) {
	h := NewHub(${buffer})
	handled := make(chan int)
@@subscriber@@\tgo func() {
		sum := 0
		for v := range h.out {
			sum += digest(v)
			h.Ack()
		}
		handled <- sum
	}()
${
  inTest
    ? `${publishAll("\t")}	<-handled
`
    : `	published := make(chan struct{})
@@publisher@@\tgo func() {
${publishAll("\t\t")}		close(published)
	}()
	select {
	case <-published:
		<-handled
	case <-time.After(${patience} * time.Millisecond):
		t.Log("publishing did not finish within ${patience}ms")
		return
	}
`
}	if n := h.Acked(); n != ${total} {
		t.Fatalf("acknowledged %d values, want ${total}", n)
	}
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: inTest ? "deadlock" : "leak",
        bugClass: "channel-lock",
        description:
          `Publish holds the hub mutex while sending a batch of ${batchSize} values into a channel with buffer ` +
          `${buffer}; the subscriber, acknowledging its first value, blocks in Lock and the publisher` +
          (inTest
            ? " (the test goroutine) blocks in chan send and the test hangs"
            : ` goroutine blocks in chan send; the test gives up after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "subscriber", creator: "TestPublishBatches", reason: "sync" },
          inTest
            ? { marker: null, creator: "TestPublishBatches", reason: "chan send" }
            : { marker: "publisher", creator: "TestPublishBatches", reason: "chan send" },
        ],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "hub.go", source: lib },
      { name: "hub_test.go", source: test },
    ],
    pattern: "publish-subscribe",
    description:
      `Lock and channel hub: ${batches} batch(es) of ${batchSize} values published ` +
      `${inTest ? "by the test" : "by a goroutine"} to a subscriber over a channel with buffer ${buffer}; ` +
      `the subscriber (${work} work iterations per value) acknowledges each value under the hub mutex` +
      `${injectBug ? "" : ", which Publish takes only between sends"}.`,
    tags: [
      "generated",
      "mutex",
      "channels",
      "publish-subscribe",
      buffer > 0 ? "buffered" : "unbuffered",
      ...(inTest ? [] : ["timeout"]),
    ],
    bug,
  };
}

function storeProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const refreshers = rng.int(1, 4);
  const refreshes = rng.int(2, 12);
  const keys = rng.int(2, 8);
  const work = rng.pick([100, 500, 2000]);
  const buffered = rng.chance(0.5);
  const hang = injectBug && rng.chance(0.5);
  const refresh = injectBug
    ? `\ts.mu.Lock()
	defer s.mu.Unlock()
	r := request{key: key, reply: make(chan int)}
	s.requests <- r
	s.data[key] = <-r.reply
`
    : `\tr := request{key: key, reply: make(chan int)}
	s.requests <- r
	v := <-r.reply
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data[key] = v
`;
  const lib = `// Package chanlock keeps a store of values that a loader goroutine recomputes on request.
package chanlock

${importBlock(["sync"])}
type request struct {
	key   int
	reply chan int
}

// Store holds values under mu; its loader serves refresh requests.
type Store struct {
	mu       sync.Mutex
	data     map[int]int
	requests chan request
}

// NewStore starts the loader.
func NewStore() *Store {
	s := &Store{data: make(map[int]int), requests: make(chan request${buffered ? `, ${refreshers}` : ""})}
@@loader@@\tgo s.load()
	return s
}

func (s *Store) load() {
	for r := range s.requests {
		s.mu.Lock()
		old := s.data[r.key]
		s.mu.Unlock()
		for i := 0; i < ${work}; i++ {
			old = (old*17 + i + r.key) % 4093
		}
		r.reply <- old
	}
}

// Refresh asks the loader for a new value of key and stores it.
func (s *Store) Refresh(key int) {
${refresh}}

// Close stops the loader.
func (s *Store) Close() {
	close(s.requests)
}
`;
  const test = `package chanlock

${importBlock(["sync", "testing", ...(hang ? [] : ["time"])])}
func TestConcurrentRefresh(t *testing.T) {
	s := NewStore()
	var wg sync.WaitGroup
	for r := 0; r < ${refreshers}; r++ {
		wg.Add(1)
@@refresher@@\t\tgo func(id int) {
			defer wg.Done()
			for i := 0; i < ${refreshes}; i++ {
				s.Refresh((id + i) % ${keys})
			}
		}(r)
	}
${
  hang
    ? `	wg.Wait()
`
    : `	done := make(chan struct{})
@@closer@@\tgo func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(${patience} * time.Millisecond):
		t.Log("refreshes did not finish within ${patience}ms")
		return
	}
`
}	s.Close()
}
`;
  const blocked: MarkedBlockedGoroutine[] = [
    { marker: "loader", creator: "NewStore", reason: "sync" },
    { marker: "refresher", creator: "TestConcurrentRefresh", reason: "chan receive" },
    ...(refreshers > 1 ? [{ marker: "refresher", creator: "TestConcurrentRefresh", reason: "sync" as const }] : []),
    hang
      ? { marker: null, creator: "TestConcurrentRefresh", reason: "sync" }
      : { marker: "closer", creator: "TestConcurrentRefresh", reason: "sync" },
  ];
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "channel-lock",
        description:
          `Refresh holds the store mutex while it waits for the loader's reply; the loader needs the mutex to ` +
          `read the old value, so it blocks in Lock, the refresher in chan receive` +
          `${refreshers > 1 ? ", the other refreshers in Lock" : ""}, and ` +
          (hang
            ? "the test in WaitGroup.Wait: it hangs"
            : `the goroutine waiting for them in WaitGroup.Wait; the test gives up after ${patience}ms`) +
          `.`,
        blocked,
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "store.go", source: lib },
      { name: "store_test.go", source: test },
    ],
    pattern: "request-reply",
    description:
      `Lock and request/reply: ${refreshers} refresher(s) × ${refreshes} refreshes over ${keys} keys ask a ` +
      `loader goroutine (${work} work iterations per value, ${buffered ? "buffered" : "unbuffered"} ` +
      `requests) for new values; the loader reads old values under the store mutex` +
      `${injectBug ? "" : ", which Refresh takes only to store the reply"}.`,
    tags: [
      "generated",
      "mutex",
      "channels",
      "request-reply",
      buffered ? "buffered" : "unbuffered",
      ...(hang ? [] : ["timeout"]),
    ],
    bug,
  };
}

export const chanLock: ProgramTemplate = {
  name: "chanlock",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? hubProgram(rng, injectBug) : storeProgram(rng, injectBug);
  },
};
