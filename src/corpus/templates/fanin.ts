// Template "fanin": P producers send onto one merged channel, each selecting on a quit
// channel; main merges with a select guarded by a timeout. Injected bug: main returns
// after the first K values without closing quit, so every producer blocks in select.

import type { Prng } from "../prng.js";
import type { ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile } from "./types.js";

export const fanIn: ProgramTemplate = {
  name: "fanin",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const producers = rng.int(3, 6);
    const perProducer = rng.int(60, 120);
    const buffer = rng.int(0, 4);
    const work = rng.pick([30, 150, 600]);
    const pauseEvery = rng.pick([0, 5, 8]);
    const pauseMicros = rng.pick([20, 50, 100]);
    // Each producer can have sent at most K + buffer values, fewer than its quota, so all stay blocked.
    const keep = rng.int(Math.floor((perProducer * 2) / 3), perProducer - buffer - 1);
    const timeoutMs = 200;
    const imports = ["fmt", "sync", "time"];
    const pause =
      pauseEvery > 0
        ? `\t\tif i%${pauseEvery} == ${pauseEvery - 1} {\n\t\t\ttime.Sleep(${pauseMicros} * time.Microsecond)\n\t\t}\n`
        : "";
    const target = injectBug ? keep : producers * perProducer;
    const source = `// Fan-in: ${producers} producers each send ${perProducer} values onto one merged channel (buffer ${buffer});
// main merges them with a select that gives up after ${timeoutMs}ms.
package main

${importBlock(imports)}
func measure(id, i, work int) int {
	h := id*7919 + i
	for k := 0; k < work; k++ {
		h = (h*33 + k) % 99991
	}
	return h
}

func produce(id, n, work int, out chan<- int, quit <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		v := measure(id, i, work)
${pause}		select {
		case out <- v:
		case <-quit:
			return
		}
	}
}

func main() {
	merged := make(chan int, ${buffer})
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for p := 0; p < ${producers}; p++ {
		wg.Add(1)
@@producer@@\t\tgo produce(p, ${perProducer}, ${work}, merged, quit, &wg)
	}
	received, sum := 0, 0
	timeout := time.After(${timeoutMs} * time.Millisecond)
loop:
	for received < ${target} {
		select {
		case v := <-merged:
			sum += v
			received++
		case <-timeout:
			fmt.Println("timed out")
			break loop
		}
	}
${injectBug ? "\ttime.Sleep(5 * time.Millisecond)\n" : "\tclose(quit)\n\twg.Wait()\n"}	fmt.Println(received, "values, sum", sum)
}
`;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "fan-in",
      description:
        `Fan-in with select and timeout: ${producers} producers × ${perProducer} values, merged buffer ` +
        `${buffer}, ${work} work iterations per value` +
        `${pauseEvery > 0 ? `, a ${pauseMicros}µs sleep every ${pauseEvery} values` : ""}.`,
      tags: ["generated", "fan-in", "select", "timeout", "quit-channel", ...(pauseEvery > 0 ? ["sleep"] : [])],
      bug: injectBug
        ? {
            outcome: "leak",
            bugClass: "orphaned-send",
            description: `main stops after the first ${keep} values and returns without closing quit, so every producer blocks in its select.`,
            blocked: [{ marker: "producer", creator: "main", reason: "select" }],
          }
        : null,
    };
  },
};
