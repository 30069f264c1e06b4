// The user-goroutine filter on its own: which entry functions the default lists drop (the
// same cases test/trace/filter.test.ts checks on the TypeScript mirror), that keep overrides
// drop, and how the -drop and -keep flags' comma lists are read.
package decode

import (
	"reflect"
	"testing"
)

func TestDefaultFilterDropsWhatIsNotTheUsers(t *testing.T) {
	filter := entryFilter{drop: defaultDrop, keep: defaultKeep}
	for _, entry := range []string{
		"runtime.bgsweep",
		"runtime.gcBgMarkWorker",
		"runtime/trace.(*traceMultiplexer).startLocked.func1",
		"testing.(*M).startAlarm.func1",
		"testing.tRunner",
		"os/signal.loop",
		"time.goFunc",
		"main.schedlabHarnessWatchdog",
		"main.schedlabHarnessWatchdog.func1",
		"main.schedlabAgentProbe",                     // the run agent in a main program
		"example.com/m/store_test.schedlabAgentProbe", // and in any test package
		"gopkg.in/yaml%2ev3.schedlabAgentBeforeDeadline",
	} {
		if !filter.dropped(entry) {
			t.Errorf("%s is kept, want dropped", entry)
		}
	}
	for _, entry := range []string{
		"runtime.main", // in drop's runtime.*, and kept by keep
		"main.main.func1",
		"main.worker",
		"example.com/m/pkg.Serve",
		"net/http.(*conn).serve",
		"main.schedlabish",                      // not the harness's prefix
		"time.goFuncOfMine",                     // time.goFunc is an exact name, not a prefix
		"example.com/schedlabAgent/pkg.Serve",   // the agent's prefix in a path, not a function name
		"example.com/m/pkg.(*T).schedlabAgentX", // a method, not a function of the package
	} {
		if filter.dropped(entry) {
			t.Errorf("%s is dropped, want kept", entry)
		}
	}
}

func TestAnyPackagePatternsMatchTheFunctionName(t *testing.T) {
	filter := entryFilter{drop: []string{"*.probe*", "*.exact"}}
	for entry, want := range map[string]bool{
		"main.probeOnce":         true,
		"example.com/m/p.probe":  true,
		"example.com/m/p.exact":  true,
		"example.com/m/p.exacts": false,
		"probe.main":             false,
		"example.com/probe.run":  false,
		"noPackage":              false,
	} {
		if got := filter.dropped(entry); got != want {
			t.Errorf("dropped(%q) = %v, want %v", entry, got, want)
		}
	}
}

func TestFilterPatternsAreExactNamesOrPrefixes(t *testing.T) {
	filter := entryFilter{drop: []string{"pkg.*", "other.Run"}, keep: []string{"pkg.Keep*"}}
	for entry, want := range map[string]bool{
		"pkg.Worker":     true,
		"pkg.":           true,
		"pkg.KeepAlive":  false,
		"other.Run":      true,
		"other.Runner":   false,
		"pkgs.Worker":    false,
		"main.pkg.Serve": false,
	} {
		if got := filter.dropped(entry); got != want {
			t.Errorf("dropped(%q) = %v, want %v", entry, got, want)
		}
	}
	if (entryFilter{}).dropped("runtime.gcBgMarkWorker") {
		t.Error("an empty filter drops a goroutine")
	}
}

func TestSplitPatternsReadsACommaList(t *testing.T) {
	for list, want := range map[string][]string{
		"runtime.*,testing.*": {"runtime.*", "testing.*"},
		" a , ,b*,":           {"a", "b*"},
		"":                    nil,
		" , ":                 nil,
	} {
		if got := splitPatterns(list); !reflect.DeepEqual(got, want) {
			t.Errorf("splitPatterns(%q) = %q, want %q", list, got, want)
		}
	}
}
