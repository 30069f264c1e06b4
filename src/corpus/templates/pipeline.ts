// Template "pipeline": a source goroutine feeds 1–3 transform stages, each run by one or
// more goroutines over buffered channels, into a sink in main. Injected bug: the sink
// stops after the first K values and returns without cancelling the pipeline.

import type { Prng } from "../prng.js";
import type { MarkedBlockedGoroutine, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile } from "./types.js";

interface Stage {
  readonly workers: number;
  /** Buffer of the stage's output channel. */
  readonly buffer: number;
  readonly factor: number;
}

function stageCode(s: Stage, index: number, input: string, work: number): string {
  const n = index + 1;
  const out = `s${n}`;
  if (s.workers === 1) {
    return `\t${out} := make(chan int, ${s.buffer})
@@stage${n}@@\tgo func() {
		defer close(${out})
		transform(${input}, ${out}, ${s.factor}, ${work})
	}()
`;
  }
  return `\t${out} := make(chan int, ${s.buffer})
	var wg${n} sync.WaitGroup
	for i := 0; i < ${s.workers}; i++ {
		wg${n}.Add(1)
@@stage${n}@@\t\tgo func() {
			defer wg${n}.Done()
			transform(${input}, ${out}, ${s.factor}, ${work})
		}()
	}
@@closer${n}@@\tgo func() {
		wg${n}.Wait()
		close(${out})
	}()
`;
}

export const pipeline: ProgramTemplate = {
  name: "pipeline",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const stages: Stage[] = Array.from({ length: rng.int(1, 3) }, () => ({
      workers: rng.int(1, 3),
      buffer: rng.int(0, 6),
      factor: rng.int(2, 9),
    }));
    const sourceBuffer = rng.int(0, 6);
    const work = rng.pick([20, 100, 400, 1500]);
    const yieldEvery = rng.pick([0, 0, 4, 9]);
    const capacity = sourceBuffer + stages.reduce((a, s) => a + s.buffer, 0);
    const stageWorkers = stages.reduce((a, s) => a + s.workers, 0);
    const keep = rng.int(30, 90);
    // With more values left than the pipeline can hold (buffers, one per stage goroutine,
    // one in the source), every goroutine ends blocked on a send.
    const items = keep + capacity + stageWorkers + 1 + rng.int(5, 60);
    const usesSync = stages.some((s) => s.workers > 1);
    const imports = [
      "fmt",
      ...(usesSync ? ["sync"] : []),
      ...(yieldEvery > 0 ? ["runtime"] : []),
      ...(injectBug ? ["time"] : []),
    ];
    const yieldLine = yieldEvery > 0 ? `\t\tif v%${yieldEvery} == 0 {\n\t\t\truntime.Gosched()\n\t\t}\n` : "";
    const last = `s${stages.length}`;
    const sink = injectBug
      ? `\ttotal, taken := 0, 0
	for v := range ${last} {
		total += v
		taken++
		if taken == ${keep} {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	fmt.Println("first", taken, "values, total", total)
`
      : `\ttotal, taken := 0, 0
	for v := range ${last} {
		total += v
		taken++
	}
	fmt.Println(taken, "values, total", total)
`;
    const source = `// A pipeline: a source emits ${items} values (buffer ${sourceBuffer}) through ${stages.length} transform stage(s)
// into main.
package main

${importBlock(imports)}
func source(n int, out chan<- int) {
	for i := 0; i < n; i++ {
		out <- i
	}
	close(out)
}

func transform(in <-chan int, out chan<- int, factor, work int) {
	for v := range in {
${yieldLine}		h := v
		for i := 0; i < work; i++ {
			h = (h*factor + i) % 65521
		}
		out <- h
	}
}

func main() {
	s0 := make(chan int, ${sourceBuffer})
@@source@@\tgo source(${items}, s0)
${stages.map((s, i) => stageCode(s, i, `s${i}`, work)).join("")}${sink}}
`;
    const blocked: MarkedBlockedGoroutine[] = [{ marker: "source", creator: "main", reason: "chan send" }];
    stages.forEach((s, i) => {
      blocked.push({ marker: `stage${i + 1}`, creator: "main", reason: "chan send" });
      if (s.workers > 1) blocked.push({ marker: `closer${i + 1}`, creator: "main", reason: "sync" });
    });
    const shape = stages.map((s) => `${s.workers}x(buffer ${s.buffer})`).join(" → ");
    return {
      form: "main",
      files: mainFile(source),
      pattern: "pipeline",
      description:
        `Pipeline: ${items} values, source buffer ${sourceBuffer}, stages ${shape}, ${work} work iterations ` +
        `per value${yieldEvery > 0 ? `, runtime.Gosched every ${yieldEvery} values` : ""}.`,
      tags: [
        "generated",
        "pipeline",
        "buffered",
        ...(usesSync ? ["waitgroup"] : []),
        ...(yieldEvery > 0 ? ["gosched"] : []),
      ],
      bug: injectBug
        ? {
            outcome: "leak",
            bugClass: "orphaned-send",
            description:
              `main takes the first ${keep} values and returns without cancelling the pipeline: the source and ` +
              `every stage goroutine block sending` +
              `${usesSync ? ", and the stage closers block in WaitGroup.Wait" : ""}.`,
            blocked,
          }
        : null,
    };
  },
};
