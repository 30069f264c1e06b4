// Template "sharedstate": W goroutines update a mutex-protected counter map with
// runtime.Gosched yield points; main waits for them with a timeout. Injected bug: the
// goroutine that reaches a checkpoint returns while still holding the mutex.

import type { Prng } from "../prng.js";
import type { ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile } from "./types.js";

export const sharedState: ProgramTemplate = {
  name: "sharedstate",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const workers = rng.int(2, 6);
    const iterations = rng.int(150, 300);
    const held = rng.pick([200, 1000, 2500]);
    const keys = rng.int(2, 16);
    const yieldEvery = rng.pick([1, 2, 3]);
    const work = rng.pick([0, 50, 300]);
    // At the checkpoint every other worker has done fewer than `iterations` updates, so all block on Lock.
    const checkpoint = rng.int(Math.floor(iterations / 2), iterations - 1);
    const timeoutMs = injectBug ? 30 : 250;
    const imports = ["fmt", "runtime", "sync", "time"];
    const outside =
      work > 0
        ? `\t\t\tx := id + i
			for k := 0; k < ${work}; k++ {
				x = (x*17 + k) % 8191
			}
			scratch[id] = x
`
        : "";
    const checkpointCode = injectBug
      ? `\t\t\t\tif total == ${checkpoint} {
					fmt.Println("checkpoint reached by worker", id)
					return
				}
`
      : "";
    const source = `// Shared state: ${workers} goroutines update a mutex-protected map of ${keys} counters ${iterations} times each,
// yielding with runtime.Gosched every ${yieldEvery} update(s).
package main

${importBlock(imports)}
func main() {
	var mu sync.Mutex
	counts := make(map[int]int)
	total := 0
	scratch := make([]int, ${workers})
	var wg sync.WaitGroup
	for w := 0; w < ${workers}; w++ {
		wg.Add(1)
@@worker@@\t\tgo func(id int) {
			defer wg.Done()
			for i := 0; i < ${iterations}; i++ {
				mu.Lock()
				h := total
				for k := 0; k < ${held}; k++ {
					h = (h*13 + k) % 4093
				}
				counts[(id*7+i+h)%${keys}]++
				total++
${checkpointCode}				mu.Unlock()
				if i%${yieldEvery} == 0 {
					runtime.Gosched()
				}
${outside.replace(/^\t\t\t/gm, "\t\t\t\t")}			}
		}(w)
	}
	done := make(chan struct{})
@@closer@@\tgo func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		fmt.Println("total", total, "over", len(counts), "keys", scratch[0])
	case <-time.After(${timeoutMs} * time.Millisecond):
		fmt.Println("workers did not finish")
	}
}
`;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "shared-state",
      description:
        `Mutex-protected shared state: ${workers} workers × ${iterations} updates over ${keys} keys, ` +
        `runtime.Gosched every ${yieldEvery} update(s), ${held} work iterations inside and ${work} outside ` +
        `the lock.`,
      tags: ["generated", "shared-state", "mutex", "gosched", "waitgroup", "select", "timeout"],
      bug: injectBug
        ? {
            outcome: "leak",
            bugClass: "double-lock",
            description:
              `the worker that brings the total to ${checkpoint} returns without unlocking, so every other worker ` +
              `blocks in Lock and the WaitGroup closer blocks in Wait; main gives up after ${timeoutMs}ms.`,
            blocked: [
              { marker: "worker", creator: "main", reason: "sync" },
              { marker: "closer", creator: "main", reason: "sync" },
            ],
          }
        : null,
    };
  },
};
