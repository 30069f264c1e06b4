// Template "orderviolation" (main form): an operation runs before the one it depends on.
// Either a service starts its workers before Init creates the channels they are handed,
// or subscribers register for a one-shot "loaded" notification after it was sent.
// Injected bugs: Start comes before Init, so the workers receive from a nil channel
// (blocked "forever") while main's jobs go to the new channel nobody reads; or the loader
// does not remember that it already notified, so late subscribers wait in chan receive.

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, mainFile, patienceMs } from "./types.js";

function startBeforeInit(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const workers = rng.int(1, 5);
  const buffer = rng.int(0, 6);
  // With the bug, main's sends beyond the buffer are never received.
  const jobs = rng.int(buffer + 1, buffer + 60);
  const work = rng.pick([100, 500, 2000]);
  const hang = injectBug && rng.chance(0.5);
  const submit = hang
    ? `\t\tfor j := 0; j < ${jobs}; j++ {
			s.jobs <- j
		}
		sent := ${jobs}
`
    : `\t\tsent := 0
	submit:
		for sent < ${jobs} {
			select {
			case s.jobs <- sent:
				sent++
			case <-ctx.Done():
				break submit
			}
		}
`;
  const receive = hang
    ? `\tsum := 0
	for got := 0; got < ${jobs}; got++ {
		sum += <-s.results
	}
`
    : `\tsum, got := 0, 0
receive:
	for got < ${jobs} {
		select {
		case r := <-s.results:
			sum += r
			got++
		case <-ctx.Done():
			break receive
		}
	}
	if got < ${jobs} {
		fmt.Println("only", got, "of ${jobs} jobs done:", ctx.Err())
		return
	}
`;
  const source = `// A job service: ${workers} worker(s) take jobs from a channel (buffer ${buffer}) and send results back.
package main

${importBlock(["fmt", "sync", ...(hang ? [] : ["context", "time"])])}
// Service hands its channels to the workers it starts.
type Service struct {
	jobs    chan int
	results chan int
	wg      sync.WaitGroup
}

// Init creates the service's channels.
func (s *Service) Init() {
	s.jobs = make(chan int, ${buffer})
	s.results = make(chan int, ${buffer})
}

// Start launches the workers on the service's current channels.
func (s *Service) Start(n int) {
	for w := 0; w < n; w++ {
		s.wg.Add(1)
@@worker@@\t\tgo s.work(s.jobs, s.results)
	}
}

func (s *Service) work(jobs <-chan int, results chan<- int) {
	defer s.wg.Done()
	for j := range jobs {
		h := j
		for i := 0; i < ${work}; i++ {
			h = (h*31 + i) % 1000003
		}
		results <- h
	}
}

func main() {
	s := &Service{}
${injectBug ? `\ts.Start(${workers})\n\ts.Init()\n` : `\ts.Init()\n\ts.Start(${workers})\n`}${
    hang
      ? ""
      : `\tctx, cancel := context.WithTimeout(context.Background(), ${patience}*time.Millisecond)\n\tdefer ` +
        `cancel()\n`
  }	done := make(chan int, 1)
@@submitter@@\tgo func() {
${submit}		close(s.jobs)
		done <- sent
	}()
${receive}	sent := <-done
	s.wg.Wait()
	fmt.Println(sent, "jobs, checksum", sum)
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "order-violation",
        description:
          `main calls Start before Init, so the ${workers} worker(s) are handed nil channels and block ` +
          `receiving forever; ` +
          (hang
            ? `the submitter blocks sending job ${buffer + 1} and main waits for results: the program hangs`
            : `the submitter and main give up after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "worker", creator: "(*Service).Start", reason: "forever" },
          ...(hang
            ? [
                { marker: "submitter", creator: "main", reason: "chan send" as const },
                { marker: null, creator: "main", reason: "chan receive" as const },
              ]
            : []),
        ],
      }
    : null;
  return {
    form: "main",
    files: mainFile(source),
    pattern: "service-startup",
    description:
      `Service start-up order: Init creates the job and result channels (buffer ${buffer}), Start launches ` +
      `${workers} worker(s) (${work} work iterations per job) on them, a submitter sends ${jobs} jobs` +
      `${hang ? "" : ` with a ${patience}ms deadline`} and main collects the results.`,
    tags: ["generated", "order-violation", "channels", "waitgroup", ...(hang ? [] : ["context", "timeout"])],
    bug,
  };
}

function notifyBeforeSubscribe(rng: Prng, injectBug: boolean): TemplateProgram {
  const patience = patienceMs(injectBug);
  const early = rng.int(2, 6);
  const late = rng.int(1, 3);
  const work = rng.pick([200, 1000, 4000]);
  const hang = injectBug && rng.chance(0.5);
  const lateWait = hang
    ? `\tfor i := 0; i < ${late}; i++ {
		sum += <-answers
	}
`
    : `\ttimeout := time.After(${patience} * time.Millisecond)
	for i := 0; i < ${late}; i++ {
		select {
		case v := <-answers:
			sum += v
		case <-timeout:
			fmt.Println(i, "of ${late} late subscribers were notified")
			return
		}
	}
`;
  const source = `// One-shot notification: ${early} subscriber(s) register before the config loads, ${late} after it has.
package main

${importBlock(["fmt", "sync", ...(hang ? [] : ["time"])])}
// Loader computes a value once and hands it to every subscriber.
type Loader struct {
	mu     sync.Mutex
	subs   []chan int
	loaded bool
	value  int
}

// Subscribe returns a channel that receives the loaded value.
func (l *Loader) Subscribe() <-chan int {
	ch := make(chan int, 1)
	l.mu.Lock()
	defer l.mu.Unlock()
${injectBug ? "" : "\tif l.loaded {\n\t\tch <- l.value\n\t\treturn ch\n\t}\n"}	l.subs = append(l.subs, ch)
	return ch
}

// Load computes the value and notifies the subscribers registered so far.
func (l *Loader) Load() {
	v := 7
	for i := 0; i < ${work}; i++ {
		v = (v*13 + i) % 65521
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loaded, l.value = true, v
	for _, ch := range l.subs {
		ch <- v
	}
	l.subs = nil
}

func main() {
	l := &Loader{}
	answers := make(chan int)
	for i := 0; i < ${early}; i++ {
		ch := l.Subscribe()
		go func() {
			answers <- <-ch
		}()
	}
	loaded := make(chan struct{})
	go func() {
		l.Load()
		close(loaded)
	}()
	sum := 0
	for i := 0; i < ${early}; i++ {
		sum += <-answers
	}
	<-loaded
	for i := 0; i < ${late}; i++ {
@@late@@\t\tgo func() {
			answers <- <-l.Subscribe()
		}()
	}
${lateWait}	fmt.Println("every subscriber got the config, sum", sum)
}
`;
  const bug: InjectedBug | null = injectBug
    ? {
        outcome: hang ? "deadlock" : "leak",
        bugClass: "order-violation",
        description:
          `Subscribe does not check whether the value was already loaded, so the ${late} subscriber(s) ` +
          `registering after Load wait in chan receive forever` +
          (hang ? "; main waits for their answers and the program hangs" : `; main gives up after ${patience}ms`) +
          `.`,
        blocked: [
          { marker: "late", creator: "main", reason: "chan receive" },
          ...(hang ? [{ marker: null, creator: "main", reason: "chan receive" as const }] : []),
        ],
      }
    : null;
  return {
    form: "main",
    files: mainFile(source),
    pattern: "one-shot-notification",
    description:
      `One-shot notification: ${early} early subscriber(s), a loader (${work} work iterations) that ` +
      `notifies those registered, then ${late} late subscriber(s)` +
      `${injectBug ? "" : " that get the remembered value"}.`,
    tags: ["generated", "order-violation", "mutex", "channels", "buffered", ...(hang ? [] : ["timeout"])],
    bug,
  };
}

export const orderViolation: ProgramTemplate = {
  name: "orderviolation",
  form: "main",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    return rng.chance(0.5) ? startBeforeInit(rng, injectBug) : notifyBeforeSubscribe(rng, injectBug);
  },
};
