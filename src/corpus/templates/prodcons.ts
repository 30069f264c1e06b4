// Template "prodcons": P producers and C consumers share a buffered channel; a
// WaitGroup tells main when producers are done, and consumers report their sums.
// Injected bug: main never closes the item channel, so consumers block receiving.

import type { Prng } from "../prng.js";
import type { ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile } from "./types.js";

export const producerConsumer: ProgramTemplate = {
  name: "prodcons",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const producers = rng.int(2, 4);
    const consumers = rng.int(2, 4);
    const perProducer = rng.int(60, 150);
    const buffer = rng.int(0, 6);
    const work = rng.pick([40, 200, 1000]);
    const yieldEvery = rng.pick([0, 6, 11]);
    const timeoutMs = injectBug ? 20 : 250;
    const imports = ["fmt", "sync", "time", ...(yieldEvery > 0 ? ["runtime"] : [])];
    const yieldLine =
      yieldEvery > 0 ? `\t\t\t\tif i%${yieldEvery} == 0 {\n\t\t\t\t\truntime.Gosched()\n\t\t\t\t}\n` : "";
    const source = `// Producer/consumer: ${producers} producer(s) send ${perProducer} items each into a channel of capacity ${buffer};
// ${consumers} consumer(s) drain it and report their sums.
package main

${importBlock(imports)}
func weigh(v, work int) int {
	h := v
	for k := 0; k < work; k++ {
		h = (h*29 + k) % 32749
	}
	return h
}

func main() {
	items := make(chan int, ${buffer})
	sums := make(chan int, ${consumers})
	var producers sync.WaitGroup
	for p := 0; p < ${producers}; p++ {
		producers.Add(1)
@@producer@@\t\tgo func(id int) {
			defer producers.Done()
			for i := 0; i < ${perProducer}; i++ {
${yieldLine}				items <- id*${perProducer} + i
			}
		}(p)
	}
	for c := 0; c < ${consumers}; c++ {
@@consumer@@\t\tgo func() {
			sum := 0
			for v := range items {
				sum += weigh(v, ${work})
			}
			sums <- sum
		}()
	}
	producers.Wait()
${injectBug ? "" : "\tclose(items)\n"}	total := 0
	for c := 0; c < ${consumers}; c++ {
		select {
		case s := <-sums:
			total += s
		case <-time.After(${timeoutMs} * time.Millisecond):
			fmt.Println("a consumer did not report")
		}
	}
	fmt.Println("total", total)
}
`;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "producer-consumer",
      description:
        `Producer/consumer: ${producers} producer(s) × ${perProducer} items, ${consumers} consumer(s), ` +
        `channel capacity ${buffer}, ${work} work iterations per item` +
        `${yieldEvery > 0 ? `, runtime.Gosched every ${yieldEvery} items` : ""}.`,
      tags: [
        "generated",
        "producer-consumer",
        buffer > 0 ? "buffered" : "unbuffered",
        "waitgroup",
        "select",
        "timeout",
        ...(yieldEvery > 0 ? ["gosched"] : []),
      ],
      bug: injectBug
        ? {
            outcome: "leak",
            bugClass: "missing-close",
            description:
              "main waits for the producers but never closes the item channel, so every consumer blocks receiving " +
              "in its range loop; main times out waiting for their sums.",
            blocked: [{ marker: "consumer", creator: "main", reason: "chan receive" }],
          }
        : null,
    };
  },
};
