// Template "workerpool": a dispatcher fills a buffered job queue that W workers drain,
// sending results to main. Injected bug: main keeps only the first K results and
// returns without stopping the workers (orphaned senders).

import type { ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile } from "./types.js";
import type { Prng } from "../prng.js";

export const workerPool: ProgramTemplate = {
  name: "workerpool",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const workers = rng.int(2, 6);
    const jobs = rng.int(4 * workers + 10, 120);
    const queue = rng.int(0, 8);
    const work = rng.pick([50, 200, 800, 2000]);
    const yieldEvery = rng.pick([0, 3, 5, 7]);
    // Exactly K results are read; each worker then takes one more job and blocks sending it.
    const keep = rng.int(Math.floor(jobs / 4), jobs - workers - 1);
    // Jobs left for the dispatcher after K results and W in-flight jobs: it blocks iff they overflow the queue.
    const dispatcherBlocks = jobs - keep - workers > queue;
    const imports = ["fmt", "sync", ...(yieldEvery > 0 ? ["runtime"] : []), ...(injectBug ? ["time"] : [])];
    const yieldLine = yieldEvery > 0 ? `\t\tif job%${yieldEvery} == 0 {\n\t\t\truntime.Gosched()\n\t\t}\n` : "";
    const collect = injectBug
      ? `\tsum, received := 0, 0
	for r := range results {
		sum += r
		received++
		if received == ${keep} {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	fmt.Println("first", received, "results, checksum", sum)
`
      : `\tsum, received := 0, 0
	for r := range results {
		sum += r
		received++
	}
	fmt.Println(received, "results, checksum", sum)
`;
    const source = `// A worker pool: a dispatcher queues ${jobs} jobs (queue buffer ${queue}) for ${workers} workers,
// which send each result to main over an unbuffered channel.
package main

${importBlock(imports)}
func process(job int) int {
	h := job
	for i := 0; i < ${work}; i++ {
		h = (h*31 + i) % 1000003
	}
	return h
}

func worker(jobs <-chan int, results chan<- int, wg *sync.WaitGroup) {
	defer wg.Done()
	for job := range jobs {
${yieldLine}		results <- process(job)
	}
}

func main() {
	jobs := make(chan int, ${queue})
	results := make(chan int)
@@dispatcher@@	go func() {
		for j := 0; j < ${jobs}; j++ {
			jobs <- j
		}
		close(jobs)
	}()
	var wg sync.WaitGroup
	for w := 0; w < ${workers}; w++ {
		wg.Add(1)
@@worker@@		go worker(jobs, results, &wg)
	}
@@closer@@	go func() {
		wg.Wait()
		close(results)
	}()
${collect}}
`;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "worker-pool",
      description:
        `Worker pool: ${workers} workers, ${jobs} jobs, queue buffer ${queue}, ${work} work iterations per ` +
        `job${yieldEvery > 0 ? `, runtime.Gosched every ${yieldEvery} jobs` : ""}.`,
      tags: ["generated", "worker-pool", "waitgroup", "unbuffered", ...(yieldEvery > 0 ? ["gosched"] : [])],
      bug: injectBug
        ? {
            outcome: "leak",
            bugClass: "orphaned-send",
            description:
              `main reads only the first ${keep} results and returns without stopping the pool: every worker ` +
              `blocks sending a result, the closer blocks in WaitGroup.Wait` +
              `${dispatcherBlocks ? ", and the dispatcher blocks on the full queue" : ""}.`,
            blocked: [
              { marker: "worker", creator: "main", reason: "chan send" },
              { marker: "closer", creator: "main", reason: "sync" },
              ...(dispatcherBlocks ? [{ marker: "dispatcher", creator: "main", reason: "chan send" as const }] : []),
            ],
          }
        : null,
    };
  },
};
