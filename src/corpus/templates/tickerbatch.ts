// Template "tickerbatch": a producer feeds items to a batcher that flushes a batch when
// it is full or when its ticker fires. Injected bug: the batcher stops after a quota of
// batches without draining its input, so the producer blocks sending.

import type { Prng } from "../prng.js";
import type { ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile } from "./types.js";

export const tickerBatcher: ProgramTemplate = {
  name: "tickerbatch",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const batchSize = rng.int(3, 12);
    const buffer = rng.int(0, 8);
    const tickMicros = rng.pick([100, 250, 500]);
    const pauseEvery = rng.int(3, 9);
    const pauseMicros = rng.pick([30, 80, 150]);
    const quota = rng.int(8, 16);
    // The batcher consumes at most quota × batchSize items; the rest overflow the buffer.
    const items = quota * batchSize + buffer + rng.int(10, 80);
    const imports = ["fmt", "time"];
    const quotaCode = injectBug
      ? `\t\t\t\tif batches == ${quota} {
					done <- batches
					return
				}
`
      : "";
    const source = `// A ticker-driven batcher: a producer sends ${items} items (buffer ${buffer}, a ${pauseMicros}µs pause every ${pauseEvery});
// the batcher flushes every ${batchSize} items or every ${tickMicros}µs tick.
package main

${importBlock(imports)}
func main() {
	in := make(chan int, ${buffer})
@@producer@@\tgo func() {
		for i := 0; i < ${items}; i++ {
			in <- i
			if i%${pauseEvery} == 0 {
				time.Sleep(${pauseMicros} * time.Microsecond)
			}
		}
		close(in)
	}()
	done := make(chan int)
	flushed := make([]int, 0, ${items})
@@batcher@@\tgo func() {
		ticker := time.NewTicker(${tickMicros} * time.Microsecond)
		defer ticker.Stop()
		batch, batches := 0, 0
		for {
			select {
			case _, ok := <-in:
				if !ok {
					if batch > 0 {
						flushed = append(flushed, batch)
						batches++
					}
					done <- batches
					return
				}
				batch++
				if batch == ${batchSize} {
					flushed = append(flushed, batch)
					batches++
					batch = 0
				}
${quotaCode}			case <-ticker.C:
				if batch > 0 {
					flushed = append(flushed, batch)
					batches++
					batch = 0
				}
			}
		}
	}()
	n := <-done
${injectBug ? "\ttime.Sleep(5 * time.Millisecond)\n" : ""}	fmt.Println(n, "batches", len(flushed))
}
`;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "ticker-batcher",
      description:
        `Ticker-driven batcher: ${items} items, batch size ${batchSize}, input buffer ${buffer}, ` +
        `${tickMicros}µs ticker, a ${pauseMicros}µs producer pause every ${pauseEvery} items.`,
      tags: ["generated", "ticker-batcher", "ticker", "select", "sleep"],
      bug: injectBug
        ? {
            outcome: "leak",
            bugClass: "orphaned-send",
            description: `the batcher returns after ${quota} batches without draining its input, so the producer blocks sending the remaining items.`,
            blocked: [{ marker: "producer", creator: "main", reason: "chan send" }],
          }
        : null,
    };
  },
};
