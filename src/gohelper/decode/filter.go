// The rule that tells user goroutines from the runtime's, the tracer's, the testing
// package's, signal and timer goroutines and the collect harness's (docs/identity.md).

package decode

import "strings"

// defaultDrop lists entry functions of goroutines that are not the user's. A pattern is
// an exact function name or a prefix ending in "*". src/trace/filter.ts mirrors it.
var defaultDrop = []string{
	"runtime.*",             // GC workers, forcegc, sweeper, scavenger, finalizers, trace CPU reader …
	"runtime/trace.*",       // the trace writer
	"testing.*",             // the testing driver's goroutines (TestXxx goroutines are handled apart)
	"os/signal.*",           // signal.Notify's loop
	"time.goFunc",           // time.AfterFunc: started by the timer, its creator is whoever ran it
	"main.schedlabHarness*", // the collect harness
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
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if p == name {
			return true
		}
	}
	return false
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
