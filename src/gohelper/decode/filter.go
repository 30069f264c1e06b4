// The rule that tells user goroutines from the runtime's, the tracer's, the testing
// package's, signal and timer goroutines and the collect harness's (docs/identity.md).

package decode

import "strings"

// defaultDrop lists entry functions of goroutines that are not the user's. A pattern is
// an exact function name, a prefix ending in "*", or, starting with "*.", either of those for
// the function's name in any package (after the package path, which ends at the first dot
// after the last slash: the linker writes a dot in the last path element as %2e).
// src/trace/filter.ts mirrors it.
var defaultDrop = []string{
	"runtime.*",             // GC workers, forcegc, sweeper, scavenger, finalizers, trace CPU reader …
	"runtime/trace.*",       // the trace writer
	"testing.*",             // the testing driver's goroutines (TestXxx goroutines are handled apart)
	"os/signal.*",           // signal.Notify's loop
	"time.goFunc",           // time.AfterFunc: started by the timer, its creator is whoever ran it
	"main.schedlabHarness*", // the collect harness
	"*.schedlabAgent*",      // the run agent, in whatever package the tests are in
}

// defaultKeep overrides defaultDrop.
var defaultKeep = []string{"runtime.main"}

// wrapperEntries are standard-library entry functions that run a user function; the
// goroutine's identity uses the user function once a stack shows it.
var wrapperEntries = map[string]bool{
	"testing.tRunner":            true,
	"sync.(*WaitGroup).Go.func1": true,
}

type entryFilter struct {
	drop []string
	keep []string
}

// dropped reports whether a goroutine with this entry function is not a user goroutine.
func (f entryFilter) dropped(entry string) bool {
	return matchAny(f.drop, entry) && !matchAny(f.keep, entry)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if anyPackage, ok := strings.CutPrefix(p, "*."); ok {
			if match(anyPackage, functionName(name)) {
				return true
			}
		} else if match(p, name) {
			return true
		}
	}
	return false
}

func match(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}

// functionName is a function's name without its package path:
// "example.com/m/pkg.(*T).Run.func1" → "(*T).Run.func1".
func functionName(name string) string {
	last := name[strings.LastIndex(name, "/")+1:]
	if dot := strings.Index(last, "."); dot >= 0 {
		return last[dot+1:]
	}
	return ""
}

func splitPatterns(list string) []string {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
