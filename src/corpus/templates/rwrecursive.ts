// Template "rwrecursive" (test form): RWMutex recursive read lock with a pending writer.
// Readers resolve names in a table guarded by an RWMutex while a writer updates it.
// Injected bug: a read path takes the read lock again while holding it (Resolve calls
// Lookup, or an Each callback calls Lookup); once a writer is queued, the nested RLock
// waits for the writer, which waits for the outer read lock: reader, writer and every
// later reader block in sync.
//
// The test makes the interleaving certain: a hook in the read path (run once, with the
// read lock held) releases the writer and waits until it is queued — TryRLock fails only
// while a writer holds or waits for the lock — before the nested lookup happens.

import type { Prng } from "../prng.js";
import type { InjectedBug, ProgramTemplate, TemplateProgram } from "./types.js";
import { importBlock, patienceMs, pollLoop } from "./types.js";

export const rwRecursive: ProgramTemplate = {
  name: "rwrecursive",
  form: "test",
  generate(rng: Prng, injectBug: boolean): TemplateProgram {
    const patience = patienceMs(injectBug);
    const nested = rng.pick(["method", "callback"] as const);
    const names = rng.int(3, 10);
    const aliases = rng.int(1, 4);
    const readers = rng.int(1, 4);
    const rounds = rng.int(10, 60);
    const updates = rng.int(3, 30);
    const poll = rng.pick(["sleep", "gosched"] as const);
    const hang = injectBug && rng.chance(0.5);
    const readPath =
      nested === "method"
        ? `// Resolve follows an alias to the address of its target.
func (t *Table) Resolve(name string) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	target, ok := t.aliases[name]
	if !ok {
		return t.addrs[name]
	}
	if t.beforeNested != nil {
		t.beforeNested()
	}
${injectBug ? "\treturn t.Lookup(target)\n" : "\treturn t.addrs[target]\n"}}
`
        : `// Each calls fn with every name and address while holding the read lock.
func (t *Table) Each(fn func(name string, addr int)) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for name, addr := range t.addrs {
		if t.beforeNested != nil {
			t.beforeNested()
		}
		fn(name, addr)
	}
}
`;
    const lib = `// Package rwrecursive keeps a name table that many readers and one writer share.
package rwrecursive

${importBlock(["sync"])}
// Table maps names to addresses, and aliases to names, under mu.
type Table struct {
	mu      sync.RWMutex
	addrs   map[string]int
	aliases map[string]string
	// beforeNested, when set, runs on the read path while the read lock is held.
	beforeNested func()
}

// NewTable returns a table of n names, the first k of them also reachable by an alias.
func NewTable(n, k int) *Table {
	t := &Table{addrs: make(map[string]int), aliases: make(map[string]string)}
	for i := 0; i < n; i++ {
		t.addrs[name(i)] = 1000 + i
	}
	for i := 0; i < k; i++ {
		t.aliases["alias-"+name(i)] = name(i)
	}
	return t
}

func name(i int) string {
	return string(rune('a'+i%26)) + string(rune('0'+i/26))
}

// Lookup returns the address of name.
func (t *Table) Lookup(name string) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.addrs[name]
}

${readPath}
// Set changes the address of name.
func (t *Table) Set(name string, addr int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.addrs[name] = addr
}
`;
    const readOnce =
      nested === "method"
        ? `\t\t\t\tsum += tb.Resolve(queries[(id+i)%len(queries)])\n`
        : `\t\t\t\ttb.Each(func(n string, addr int) {
${injectBug ? "\t\t\t\t\tsum += addr + tb.Lookup(n)\n" : "\t\t\t\t\tsum += addr * 2\n"}				})
`;
    const queries =
      nested === "method"
        ? `\tqueries := make([]string, 0, ${names + aliases})
	for i := 0; i < ${aliases}; i++ {
		queries = append(queries, "alias-"+name(i))
	}
	for i := 0; i < ${names}; i++ {
		queries = append(queries, name(i))
	}
`
        : "";
    const wait = hang
      ? `\twg.Wait()
`
      : `\tdone := make(chan struct{})
@@closer@@\tgo func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(${patience} * time.Millisecond):
		t.Log("readers and writer still blocked after ${patience}ms")
		return
	}
`;
    const test = `package rwrecursive

${importBlock(["sync", "testing", "time", ...(poll === "gosched" ? ["runtime"] : [])])}
// writerQueued returns once a writer holds or waits for mu: only then does TryRLock fail
// while readers hold it.
func writerQueued(mu *sync.RWMutex) {
${pollLoop("mu.TryRLock()", poll, 10, "\t", "\t\tmu.RUnlock()\n")}}

func TestReadWhileUpdating(t *testing.T) {
	tb := NewTable(${names}, ${aliases})
	update := make(chan struct{})
	var once sync.Once
	tb.beforeNested = func() {
		once.Do(func() {
			close(update)
			writerQueued(&tb.mu)
		})
	}
${queries}	var wg sync.WaitGroup
	wg.Add(1)
@@writer@@\tgo func() {
		defer wg.Done()
		<-update
		for i := 0; i < ${updates}; i++ {
			tb.Set(name(i%${names}), 2000+i)
		}
	}()
	for r := 0; r < ${readers}; r++ {
		wg.Add(1)
@@reader@@\t\tgo func(id int) {
			defer wg.Done()
			sum := 0
			for i := 0; i < ${rounds}; i++ {
${readOnce}			}
			if sum == 0 {
				t.Error("reader", id, "saw no addresses")
			}
		}(r)
	}
${wait}}
`;
    const bug: InjectedBug | null = injectBug
      ? {
          outcome: hang ? "deadlock" : "leak",
          bugClass: "rwmutex-recursive-read",
          description:
            (nested === "method"
              ? "Resolve read-locks the table and calls Lookup"
              : "Each read-locks the table and its callback calls Lookup") +
            `, which read-locks again after the writer has queued for the write lock; the reader and the writer ` +
            `block in sync${readers > 1 ? ", so do readers that arrive later" : ""}, and ` +
            (hang
              ? "the test blocks in WaitGroup.Wait and hangs"
              : `the goroutine waiting for them blocks in Wait; the test gives up after ${patience}ms`) +
            `.`,
          blocked: [
            { marker: "reader", creator: "TestReadWhileUpdating", reason: "sync" },
            { marker: "writer", creator: "TestReadWhileUpdating", reason: "sync" },
            hang
              ? { marker: null, creator: "TestReadWhileUpdating", reason: "sync" }
              : { marker: "closer", creator: "TestReadWhileUpdating", reason: "sync" },
          ],
        }
      : null;
    return {
      form: "test",
      files: [
        { name: "table.go", source: lib },
        { name: "table_test.go", source: test },
      ],
      pattern: "rwmutex-table",
      description:
        `RWMutex-guarded name table (${names} names, ${aliases} alias(es)): ${readers} reader(s) × ${rounds} ` +
        `rounds ${nested === "method" ? "resolve names and aliases" : "walk the table with Each"} while a ` +
        `writer makes ${updates} updates; a read-path hook releases the writer once and waits (${poll}) ` +
        `until it is queued.`,
      tags: [
        "generated",
        "rwmutex",
        "waitgroup",
        "once",
        poll === "sleep" ? "sleep" : "gosched",
        ...(hang ? [] : ["timeout"]),
      ],
      bug,
    };
  },
};
