// Template "selectmany" (main form): one loop selects over many cases (4–8): M input
// channels it sets to nil as they close, a stats request channel a monitor queries, a
// one-shot deadline, and (clean programs only) a default case that yields or sleeps.
// Injected bug: one producer returns early without closing its channel (close is not
// deferred), so the loop never sees every input closed and blocks in select forever;
// main gives up waiting for its result (leak) or waits forever (deadlock).

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile, patienceMs, YIELD_BUDGET } from "./types.js";

export const selectMany: ProgramTemplate = {
  name: "selectmany",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const patience = patienceMs(injectBug);
    const inputs = rng.int(3, 6);
    const perInput = rng.int(20, 90);
    const buffer = rng.int(0, 3);
    const work = rng.pick([50, 300, 1200]);
    const stats = inputs === 3 || rng.chance(0.6);
    const queries = rng.int(2, 8);
    const deadlineDrawn = rng.chance(0.5);
    const deadlineMicros = rng.pick([100, 400, 1500]);
    // A default case would keep the buggy loop spinning instead of blocking, so only clean loops have one.
    const idle = injectBug ? "none" : rng.pick(["none", "sleep", "gosched"] as const);
    const failing = rng.int(0, inputs - 1);
    const failAt = rng.int(1, perInput - 1);
    const hang = injectBug && rng.chance(0.5);
    // A loop once woken by the deadline timer is alive to the leak rule (a timer can wake
    // it: docs/leaks.md, "One rule"), so hanging programs have none.
    const deadline = deadlineDrawn && !hang;
    const cases = inputs + (stats ? 1 : 0) + (deadline ? 1 : 0) + (idle === "none" ? 0 : 1);
    const inputCases = Array.from(
      { length: inputs },
      (_, i) => `\t\tcase v, ok := <-in${i}:
			if !ok {
				in${i} = nil
				open--
				continue
			}
			count++
			sum += v
`,
    ).join("");
    const statsCase = stats ? "\t\tcase reply := <-stats:\n\t\t\treply <- count\n" : "";
    const deadlineCase = deadline ? "\t\tcase <-late:\n\t\t\tlate = nil\n\t\t\tlateCount = count\n" : "";
    const idleCase =
      idle === "sleep"
        ? "\t\tdefault:\n\t\t\tidleRounds++\n\t\t\ttime.Sleep(20 * time.Microsecond)\n"
        : idle === "gosched"
          ? `\t\tdefault:\n\t\t\tidleRounds++\n\t\t\tif idleRounds < ${YIELD_BUDGET} {\n` +
            `\t\t\t\truntime.Gosched()\n\t\t\t} else {\n\t\t\t\ttime.Sleep(20 * time.Microsecond)\n\t\t\t}\n`
          : "";
    const produce = injectBug
      ? `func produce(id, n int, out chan<- int) {
	for i := 0; i < n; i++ {
		if id == ${failing} && i == ${failAt} {
			return
		}
		out <- reading(id, i)
	}
	close(out)
}
`
      : `func produce(id, n int, out chan<- int) {
	defer close(out)
	for i := 0; i < n; i++ {
		if id == ${failing} && i == ${failAt} {
			return
		}
		out <- reading(id, i)
	}
}
`;
    const monitor = stats
      ? `	monitorDone := make(chan struct{})
	go func() {
		defer close(monitorDone)
		for q := 0; q < ${queries}; q++ {
			reply := make(chan int)
			select {
			case stats <- reply:
				<-reply
			case <-merged:
				return
			}
		}
	}()
`
      : "";
    const wait = hang
      ? `\tsum := <-result
`
      : `\tvar sum int
	select {
	case sum = <-result:
	case <-time.After(${patience} * time.Millisecond):
		fmt.Println("the merge loop did not finish within ${patience}ms")
		return
	}
`;
    const inNames = Array.from({ length: inputs }, (_, i) => `in${i}`).join(", ");
    const expectedCount = inputs * perInput - (perInput - failAt);
    const shape =
      `${inputs} inputs${stats ? ", stats requests" : ""}${deadline ? ", a one-shot deadline" : ""}` +
      (idle === "none" ? "" : `, a default that ${idle === "sleep" ? "sleeps" : "yields"}`);
    const mergeLocals =
      (deadline ? `\tlate := time.After(${deadlineMicros} * time.Microsecond)\n\tlateCount := -1\n` : "") +
      (idle === "none" ? "" : "\tidleRounds := 0\n");
    const source = `// A merge loop selecting over ${cases} cases: ${shape}.
package main

${importBlock(["fmt", ...(deadline || idle !== "none" || !hang ? ["time"] : []), ...(idle === "gosched" ? ["runtime"] : [])])}
func reading(id, i int) int {
	h := id*7919 + i
	for k := 0; k < ${work}; k++ {
		h = (h*31 + k) % 1000003
	}
	return h
}

${produce}
func merge(${inNames} <-chan int, ${stats ? "stats <-chan chan int, " : ""}result chan<- int, merged chan<- struct{}) {
	defer close(merged)
	open, count, sum := ${inputs}, 0, 0
${mergeLocals}	for open > 0 {
		select {
${inputCases}${statsCase}${deadlineCase}${idleCase}		}
	}
	fmt.Println(count, "readings"${deadline ? `, lateCount, "before the deadline"` : ""}${idle === "none" ? "" : ', idleRounds, "idle rounds"'})
	result <- sum
}

func main() {
	ins := make([]chan int, ${inputs})
	for i := range ins {
		ins[i] = make(chan int, ${buffer})
	}
	for i := range ins {
@@producer@@\t\tgo produce(i, ${perInput}, ins[i])
	}
${stats ? "\tstats := make(chan chan int)\n" : ""}	result := make(chan int)
	merged := make(chan struct{})
@@loop@@\tgo merge(${Array.from({ length: inputs }, (_, i) => `ins[${i}]`).join(", ")}, ${stats ? "stats, " : ""}result, merged)
${monitor}${wait}${stats ? "\t<-monitorDone\n" : ""}	fmt.Println("merged ${expectedCount} readings, checksum", sum)
}
`;
    const bug: InjectedBug | null = injectBug
      ? {
          outcome: hang ? "deadlock" : "leak",
          bugClass: "select-without-ready-case",
          description:
            `producer ${failing} returns at reading ${failAt} without closing its channel (close is not ` +
            `deferred), so the merge loop, waiting for all ${inputs} inputs to close, blocks in its select ` +
            `forever` +
            (hang
              ? " and main, waiting for the result, blocks too: the program hangs"
              : `; main gives up after ${patience}ms`) +
            `.`,
          blocked: [
            { marker: "loop", creator: "main", reason: "select" },
            ...(hang ? [{ marker: null, creator: "main", reason: "chan receive" as const }] : []),
          ],
        }
      : null;
    return {
      form: "main",
      files: mainFile(source),
      pattern: "select-many-cases",
      description:
        `Select over ${cases} cases: ${inputs} producers send up to ${perInput} readings (${work} work ` +
        `iterations each, buffer ${buffer}; producer ${failing} stops at ${failAt}); the merge loop nils ` +
        `closed inputs${stats ? `, answers ${queries} stats requests of a monitor` : ""}` +
        (deadline ? `, notes a ${deadlineMicros}µs deadline` : "") +
        (idle === "none"
          ? ""
          : `, and ${idle === "sleep" ? "sleeps 20µs" : `yields (sleeping after ${YIELD_BUDGET} yields)`} in its default case`) +
        `.`,
      tags: [
        "generated",
        "select",
        "many-cases",
        "nil-channel",
        ...(idle === "none" ? [] : ["select-default", idle]),
        ...(deadline ? ["time.After"] : []),
        buffer > 0 ? "buffered" : "unbuffered",
      ],
      bug,
    };
  },
};
