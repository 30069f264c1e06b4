// Template "errgroup" (test form): worker pools with first-error cancellation. Either a
// hand-rolled errgroup (Go/Wait, the first error cancels a shared context) runs a feeder
// and W workers over a job channel, or a sharded scan reports each shard's error on a
// channel and returns at the first one. Injected bugs: the feeder sends jobs without
// selecting on ctx.Done, so once the workers have returned on the cancellation it blocks
// in chan send, the group's Wait never returns and the results channel is never closed;
// or the error channel is unbuffered, so every failing shard after the first blocks
// sending its error.

import type { Prng } from "../prng.js";
import type { InjectedBug, MarkedBlockedGoroutine, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs } from "./types.js";

const GROUP = `// Group runs functions in goroutines; the first error cancels the group's context.
type Group struct {
	wg     sync.WaitGroup
	once   sync.Once
	err    error
	cancel context.CancelFunc
}

// WithContext returns a group and a context cancelled by the group's first error.
func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{cancel: cancel}, ctx
}

// Go runs f in a new goroutine.
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
@@group@@\tgo func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.once.Do(func() {
				g.err = err
				g.cancel()
			})
		}
	}()
}

// Wait waits for every function and returns the first error.
func (g *Group) Wait() error {
	g.wg.Wait()
	g.cancel()
	return g.err
}
`;

function groupProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const workers = rng.int(2, 5);
  const buffer = rng.int(0, 4);
  const failAt = rng.int(5, 40);
  // After the failure each worker takes at most one more job; the feeder must still hold more than buffer + workers.
  // The margin covers the jobs workers may still take between the failure and the cancel.
  const items = failAt + workers + buffer + rng.int(30, 80);
  const work = rng.pick([100, 500, 2000]);
  // A clean program may also run to completion without an error; a buggy one always fails.
  const failing = rng.chance(0.8) || injectBug;
  const hang = injectBug && rng.chance(0.5);
  const feed = injectBug
    ? "\t\t\tjobs <- it\n"
    : "\t\t\tselect {\n\t\t\tcase jobs <- it:\n\t\t\tcase <-ctx.Done():\n\t\t\t\treturn ctx.Err()\n\t\t\t}\n";
  const lib = `// Package errgroup processes items with a worker pool that stops at the first error.
package errgroup

${importBlock(["context", "fmt", "sync"])}
${GROUP}
func transform(v int) int {
	for i := 0; i < ${work}; i++ {
		v = (v*31 + i) % 1000003
	}
	return v
}

// Process transforms items with ${workers} workers; an item equal to bad fails the run.
func Process(ctx context.Context, items []int, bad int) ([]int, error) {
	g, ctx := WithContext(ctx)
	jobs := make(chan int, ${buffer})
	results := make(chan int)
	g.Go(func() error {
		defer close(jobs)
		for _, it := range items {
${feed}		}
		return nil
	})
	for w := 0; w < ${workers}; w++ {
		g.Go(func() error {
			for it := range jobs {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if it == bad {
					return fmt.Errorf("item %d is malformed", it)
				}
				select {
				case results <- transform(it):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}
@@closer@@\tgo func() {
		g.Wait()
		close(results)
	}()
	var out []int
	for r := range results {
		out = append(out, r)
	}
	return out, g.Wait()
}
`;
  const call = `Process(context.Background(), items, ${failing ? failAt : -1})`;
  const check = failing
    ? `\tif err == nil {
		t.Fatal("want the malformed item to fail the run")
	}
	t.Log(len(out), "items before the failure:", err)
`
    : `\tif err != nil || len(out) != ${items} {
		t.Fatalf("got %d items, %v; want ${items}, nil", len(out), err)
	}
`;
  const test = `package errgroup

${importBlock(["context", "testing", ...(hang ? [] : ["time"])])}
func TestProcessStopsAtFirstError(t *testing.T) {
	items := make([]int, ${items})
	for i := range items {
		items[i] = i
	}
${
  hang
    ? `\tout, err := ${call}
`
    : `\ttype outcome struct {
		out []int
		err error
	}
	done := make(chan outcome, 1)
@@caller@@\tgo func() {
		out, err := ${call}
		done <- outcome{out, err}
	}()
	var out []int
	var err error
	select {
	case o := <-done:
		out, err = o.out, o.err
	case <-time.After(${patience} * time.Millisecond):
		t.Log("Process did not return within ${patience}ms")
		return
	}
`
}${check}}
`;
  const blocked: MarkedBlockedGoroutine[] = [
    { marker: "group", creator: "(*Group).Go", reason: "chan send" },
    { marker: "closer", creator: "Process", reason: "sync" },
    hang
      ? { marker: null, creator: "TestProcessStopsAtFirstError", reason: "chan receive" }
      : { marker: "caller", creator: "TestProcessStopsAtFirstError", reason: "chan receive" },
  ];
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "errgroup-feeder-without-cancel",
        description:
          `item ${failAt} fails and cancels the group; the workers return, but the feeder sends jobs without ` +
          `selecting on ctx.Done and blocks in chan send, so Wait never returns, the closer blocks in sync and ` +
          (hang
            ? "the test, ranging over the results inside Process, blocks in chan receive: it hangs"
            : `the goroutine running Process blocks in chan receive; the test gives up after ${patience}ms`) +
          `.`,
        blocked,
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "group.go", source: lib },
      { name: "group_test.go", source: test },
    ],
    pattern: "errgroup-pool",
    description:
      `Hand-rolled errgroup worker pool: a feeder queues ${items} items (buffer ${buffer}) for ${workers} ` +
      `workers (${work} work iterations per item) that send results on an unbuffered channel; ` +
      (failing ? `item ${failAt} fails and cancels the group` : "no item fails") +
      `${injectBug ? "; the feeder does not watch ctx.Done" : "; every send also selects on ctx.Done"}.`,
    tags: [
      "generated",
      "errgroup",
      "context",
      "cancellation",
      "waitgroup",
      "once",
      "select",
      ...(hang ? [] : ["timeout"]),
    ],
    bug,
  };
}

function shardProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const shards = rng.int(3, 7);
  const perShard = rng.int(10, 80);
  const badShards = rng.int(2, shards); // at least two shards fail, so one error is always left unread
  const work = rng.pick([100, 500, 2000]);
  const lib = `// Package errgroup scans shards concurrently and reports the first shard error.
package errgroup

${importBlock(["fmt"])}
func checksum(shard, i int) int {
	h := shard*7919 + i
	for k := 0; k < ${work}; k++ {
		h = (h*33 + k) % 99991
	}
	return h
}

// Scan checks ${shards} shards of n records; records of the first bad shards are corrupt.
// It returns the first error any shard reports.
func Scan(n, bad int) error {
	errc := make(chan error${injectBug ? "" : `, ${shards}`})
	for s := 0; s < ${shards}; s++ {
@@shard@@\t\tgo func(shard int) {
			for i := 0; i < n; i++ {
				if c := checksum(shard, i); shard < bad && i == n/2 {
					errc <- fmt.Errorf("shard %d: record %d (checksum %d) is corrupt", shard, i, c)
					return
				}
			}
			errc <- nil
		}(s)
	}
	for s := 0; s < ${shards}; s++ {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}
`;
  const test = `package errgroup

${importBlock(["testing", "time"])}
func TestScanReportsCorruption(t *testing.T) {
	if err := Scan(${perShard}, 0); err != nil {
		t.Fatalf("clean shards: %v", err)
	}
	if err := Scan(${perShard}, ${badShards}); err == nil {
		t.Fatal("want an error from the corrupt shards")
	}
	// Let the shards that lost the race reach their report.
	time.Sleep(${Math.min(patience, 5)} * time.Millisecond)
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: "leak",
        bugClass: "early-return-leaves-senders",
        description:
          `Scan returns at the first shard error while the error channel is unbuffered, so the other ` +
          `${badShards - 1} failing shard(s)${shards > badShards ? " and the shards still scanning" : ""} ` +
          `block in chan send.`,
        blocked: [{ marker: "shard", creator: "Scan", reason: "chan send" }],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "scan.go", source: lib },
      { name: "scan_test.go", source: test },
    ],
    pattern: "first-error",
    description:
      `Sharded scan with first-error return: ${shards} shard goroutines × ${perShard} records (${work} ` +
      `work iterations each); a clean run, then a run with ${badShards} corrupt shards; each shard reports ` +
      `on a${injectBug ? "n unbuffered" : " buffered"} error channel.`,
    tags: ["generated", "first-error", "fan-out", "channels", injectBug ? "unbuffered" : "buffered", "sleep"],
    bug,
  };
}

export const errGroup: ProgramTemplate = {
  name: "errgroup",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? groupProgram(rng, injectBug) : shardProgram(rng, injectBug);
  },
};
