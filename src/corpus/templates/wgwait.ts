// Template "wgwait" (test form): channel & WaitGroup. Either Gather fans items out to
// workers that send checksums on a channel, or FetchAll starts a fetcher per uncached key
// and closes its output when a WaitGroup says all are done. Injected bugs: Gather waits on
// the WaitGroup before draining the channel, so the workers beyond its buffer block
// sending and never call Done; or FetchAll adds one per key but starts no fetcher for
// cached keys, so the closer waits forever and the range over the output never ends.

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs } from "./types.js";

function checksumFunc(work: number): string {
  return `func checksum(v int) int {
	h := v
	for i := 0; i < ${work}; i++ {
		h = (h*33 + i) % 99991
	}
	return h
}
`;
}

function gatherProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const items = rng.int(4, 24);
  // The bug needs more workers than buffer slots: items - buffer of them block sending.
  const buffer = rng.int(0, items - 2);
  const work = rng.pick([100, 500, 2000]);
  const inTest = rng.chance(0.5); // Gather runs on the test goroutine (with the bug: the test hangs)
  const lib = `// Package wgwait computes checksums concurrently and gathers them from a channel.
package wgwait

${importBlock(["sync"])}
${checksumFunc(work)}
// Gather checksums every item in its own goroutine and returns the results.
func Gather(items []int) []int {
	results := make(chan int, ${buffer})
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
@@worker@@\t\tgo func(v int) {
			defer wg.Done()
			results <- checksum(v)
		}(it)
	}
${injectBug ? "\twg.Wait()\n\tclose(results)\n" : "\tgo func() {\n\t\twg.Wait()\n\t\tclose(results)\n\t}()\n"}	out := make([]int, 0, len(items))
	for r := range results {
		out = append(out, r)
	}
	return out
}
`;
  const itemsLit = `\titems := make([]int, ${items})
	for i := range items {
		items[i] = i * 7
	}
`;
  const test = inTest
    ? `package wgwait

${importBlock(["testing"])}
func TestGather(t *testing.T) {
${itemsLit}	if got := Gather(items); len(got) != ${items} {
		t.Fatalf("got %d checksums, want ${items}", len(got))
	}
}
`
    : `package wgwait

${importBlock(["testing", "time"])}
func TestGather(t *testing.T) {
${itemsLit}	done := make(chan []int)
@@gatherer@@\tgo func() {
		done <- Gather(items)
	}()
	select {
	case got := <-done:
		if len(got) != ${items} {
			t.Fatalf("got %d checksums, want ${items}", len(got))
		}
	case <-time.After(${patience} * time.Millisecond):
		t.Log("Gather did not return within ${patience}ms")
	}
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: inTest ? "deadlock" : "leak",
        bugClass: "channel-waitgroup",
        description:
          `Gather waits on the WaitGroup before draining the results channel (buffer ${buffer}), so ` +
          `${items - buffer} of the ${items} workers block sending and never call Done; ` +
          (inTest
            ? "the test blocks in Wait and hangs"
            : `the gathering goroutine blocks in Wait and the test gives up after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "worker", creator: "Gather", reason: "chan send" },
          inTest
            ? { marker: null, creator: "TestGather", reason: "sync" }
            : { marker: "gatherer", creator: "TestGather", reason: "sync" },
        ],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "gather.go", source: lib },
      { name: "gather_test.go", source: test },
    ],
    pattern: "fan-out-collect",
    description:
      `WaitGroup-tracked fan-out: ${items} workers (${work} work iterations each) send checksums on a ` +
      `channel with buffer ${buffer}; ` +
      (injectBug ? "Gather waits for them, then drains" : "a closer goroutine closes the channel after Wait") +
      `; Gather runs ` +
      (inTest ? "on the test goroutine" : `in a goroutine the test waits for with a ${patience}ms timeout`) +
      `.`,
    tags: [
      "generated",
      "waitgroup",
      "channels",
      "fan-out",
      buffer > 0 ? "buffered" : "unbuffered",
      ...(inTest ? [] : ["timeout"]),
    ],
    bug,
  };
}

function fetchProgram(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const keys = rng.int(6, 30);
  const cacheEvery = rng.int(2, Math.min(5, keys)); // keys divisible by cacheEvery are cached: key 0 always is
  const buffer = rng.int(0, 4);
  const work = rng.pick([100, 500, 2000]);
  const inTest = rng.chance(0.5);
  const uncached = Array.from({ length: keys }, (_, k) => k).filter((k) => k % cacheEvery !== 0).length;
  const lib = `// Package wgwait fetches the keys a cache does not hold, concurrently.
package wgwait

${importBlock(["sync"])}
${checksumFunc(work)}
// FetchAll starts one fetcher per key that cached reports missing and returns their
// values on a channel that is closed once every fetcher is done.
func FetchAll(keys []int, cached func(int) bool) <-chan int {
	out := make(chan int, ${buffer})
	var wg sync.WaitGroup
${injectBug ? "\twg.Add(len(keys))\n" : ""}	for _, k := range keys {
		if cached(k) {
			continue
		}
${injectBug ? "" : "\t\twg.Add(1)\n"}		go func(key int) {
			defer wg.Done()
			out <- checksum(key)
		}(k)
	}
@@closer@@\tgo func() {
		wg.Wait()
		close(out)
	}()
	return out
}
`;
  const setup = `\tkeys := make([]int, ${keys})
	for i := range keys {
		keys[i] = i
	}
	cached := func(k int) bool { return k%${cacheEvery} == 0 }
`;
  const test = inTest
    ? `package wgwait

${importBlock(["testing"])}
func TestFetchMissing(t *testing.T) {
${setup}	n := 0
	for range FetchAll(keys, cached) {
		n++
	}
	if n != ${uncached} {
		t.Fatalf("fetched %d keys, want ${uncached}", n)
	}
}
`
    : `package wgwait

${importBlock(["testing", "time"])}
func TestFetchMissing(t *testing.T) {
${setup}	fetched := make(chan int, 1)
	counted := make(chan int, ${uncached})
@@consumer@@\tgo func() {
		n := 0
		for v := range FetchAll(keys, cached) {
			counted <- v
			n++
		}
		fetched <- n
	}()
	for i := 0; i < ${uncached}; i++ {
		<-counted
	}
	select {
	case n := <-fetched:
		if n != ${uncached} {
			t.Fatalf("fetched %d keys, want ${uncached}", n)
		}
	case <-time.After(${patience} * time.Millisecond):
		t.Log("the fetch results were never closed")
	}
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: inTest ? "deadlock" : "leak",
        bugClass: "waitgroup-misuse",
        description:
          `FetchAll adds ${keys} to the WaitGroup but starts fetchers only for the ${uncached} uncached keys, ` +
          `so the closer blocks in Wait forever and ` +
          (inTest
            ? "the test, ranging over the output, blocks in chan receive and hangs"
            : `the consumer ranging over the output blocks in chan receive; the test gives up ${patience}ms after the last value`) +
          `.`,
        blocked: [
          { marker: "closer", creator: "FetchAll", reason: "sync" },
          inTest
            ? { marker: null, creator: "TestFetchMissing", reason: "chan receive" }
            : { marker: "consumer", creator: "TestFetchMissing", reason: "chan receive" },
        ],
      }
    : null;
  return {
    form: "test",
    files: [
      { name: "fetch.go", source: lib },
      { name: "fetch_test.go", source: test },
    ],
    pattern: "waitgroup-closer",
    description:
      `WaitGroup-closed result channel: FetchAll starts fetchers (${work} work iterations) for the ` +
      `${uncached} of ${keys} keys not cached (every ${cacheEvery}th is), sends on a channel with buffer ` +
      `${buffer}, and a closer closes it after Wait; ` +
      (inTest ? "the test ranges over it" : "a consumer goroutine ranges over it while the test counts values") +
      `.`,
    tags: [
      "generated",
      "waitgroup",
      "channels",
      "range-over-channel",
      buffer > 0 ? "buffered" : "unbuffered",
      ...(inTest ? [] : ["timeout"]),
    ],
    bug,
  };
}

export const wgWait: ProgramTemplate = {
  name: "wgwait",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? gatherProgram(rng, injectBug) : fetchProgram(rng, injectBug);
  },
};
