// Template "loopvar" (main form): goroutines started in a loop capture the loop's
// variable. Before Go 1.22 every iteration shared one variable; the programs make that
// explicit with a variable declared outside the loop (`for _, j = range jobs`), which
// keeps the old semantics under any Go version. Each job has its own reply channel.
// Injected bug: the goroutines read the shared variable after the loop has finished (they
// wait for a start signal, which also makes the read race-free), so every one of them
// serves the last job: they all send on its reply channel, while main waits on the first
// job's. main gives up (leak: all workers block in chan send) or waits forever (deadlock).

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile, patienceMs } from "./types.js";

export const loopVar: ProgramTemplate = {
  name: "loopvar",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const patience = patienceMs(injectBug);
    const jobs = rng.int(3, 16);
    const work = rng.pick([200, 1000, 5000]);
    const collection = rng.pick(["slice", "pointers"] as const);
    const replyBuffer = rng.pick([0, 0, 1]);
    const yieldEvery = rng.pick([0, 2, 3]);
    const hang = injectBug && rng.chance(0.5);
    const jobType = collection === "slice" ? "job" : "*job";
    const make =
      collection === "slice"
        ? `job{id: i, size: ${work} + i*37, reply: make(chan int${replyBuffer > 0 ? `, ${replyBuffer}` : ""})}`
        : `&job{id: i, size: ${work} + i*37, reply: make(chan int${replyBuffer > 0 ? `, ${replyBuffer}` : ""})}`;
    // The fix passes the job as an argument; the bug reads the one shared variable.
    const start = injectBug
      ? `\tvar j ${jobType}
	for _, j = range jobs {
@@worker@@\t\tgo func() {
			<-start
			j.reply <- run(j)
		}()
	}
`
      : `\tvar j ${jobType}
	for _, j = range jobs {
@@worker@@\t\tgo func(j ${jobType}) {
			<-start
			j.reply <- run(j)
		}(j)
	}
`;
    const yieldLine = yieldEvery > 0 ? `\t\tif i%(${work}/${yieldEvery}) == 0 {\n\t\t\truntime.Gosched()\n\t\t}\n` : "";
    const collect = hang
      ? `\tfor _, j := range jobs {
		sum += <-j.reply
	}
`
      : `\ttimeout := time.After(${patience} * time.Millisecond)
	for _, j := range jobs {
		select {
		case r := <-j.reply:
			sum += r
		case <-timeout:
			fmt.Println("no reply for job", j.id)
			return
		}
	}
`;
    const source = `// Per-job reply channels: ${jobs} goroutines each run one job and reply on its channel.
package main

${importBlock(["fmt", ...(hang ? [] : ["time"]), ...(yieldEvery > 0 ? ["runtime"] : [])])}
type job struct {
	id    int
	size  int
	reply chan int
}

func run(j ${jobType}) int {
	h := j.id
	for i := 0; i < j.size; i++ {
${yieldLine}		h = (h*29 + i) % 65521
	}
	return h
}

func main() {
	jobs := make([]${jobType}, ${jobs})
	for i := range jobs {
		jobs[i] = ${make}
	}
	start := make(chan struct{})
${start}	close(start)
	sum := 0
${collect}	fmt.Println("all", len(jobs), "jobs replied, checksum", sum)
}
`;
    const bug: InjectedBug | null = injectBug
      ? {
          outcome: hang ? "deadlock" : "leak",
          bugClass: "captured-loop-variable",
          description:
            `the goroutines capture the shared loop variable j and read it after the loop, so all ${jobs} run ` +
            `the last job and send on its reply channel${replyBuffer > 0 ? ` (buffer ${replyBuffer})` : ""}; ` +
            `main waits on the first job's reply` +
            `${hang ? " forever: the program hangs" : ` and gives up after ${patience}ms`}, and every worker ` +
            `${replyBuffer > 0 ? "but the one that fills the buffer " : ""}blocks in chan send.`,
          blocked: [
            { marker: "worker", creator: "main", reason: "chan send" },
            ...(hang ? [{ marker: null, creator: "main", reason: "chan receive" as const }] : []),
          ],
        }
      : null;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "per-job-reply",
      description:
        `Loop-started goroutines with per-job reply channels: ${jobs} jobs held as ` +
        `${collection === "slice" ? "values" : "pointers"} (${work}+ work iterations` +
        `${yieldEvery > 0 ? `, ${yieldEvery} runtime.Gosched per job` : ""}), reply buffer ${replyBuffer}; ` +
        `the goroutines wait for a start signal, ` +
        (injectBug
          ? "then read the loop variable shared by all iterations"
          : "having received their job as an argument") +
        `.`,
      tags: [
        "generated",
        "loop-variable",
        "closure",
        "channels",
        replyBuffer > 0 ? "buffered" : "unbuffered",
        ...(yieldEvery > 0 ? ["gosched"] : []),
        ...(hang ? [] : ["timeout"]),
      ],
      bug,
    };
  },
};
