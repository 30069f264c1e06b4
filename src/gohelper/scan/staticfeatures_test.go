package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeProgram writes name → source files into a fresh directory and returns it.
func writeProgram(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Every count below is made by hand from the two files.
const staticMain = `package main

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

type store struct {
	sync.RWMutex
	data map[int]int
}

type pool struct {
	mu   sync.Mutex
	wg   sync.WaitGroup
	cond *sync.Cond
	once sync.Once
}

func main() {
	p := &pool{}
	p.cond = sync.NewCond(&p.mu)
	jobs := make(chan int)
	results := make(chan int, 4)
	done := make(chan struct{}, 0)
	n := 3
	scratch := make(chan int, n)
	for i := 0; i < 3; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range jobs {
				results <- j
			}
		}()
		go worker(p)
	}
	go func() { jobs <- 1; close(jobs) }()
	select {
	case r := <-results:
		_ = r
	case <-time.After(time.Second):
	default:
	}
	p.wg.Wait()
	var hits int64
	atomic.AddInt64(&hits, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	<-ctx.Done()
	runtime.Gosched()
	p.once.Do(func() {})
	time.Sleep(time.Millisecond)
	_, _ = done, scratch
	for {
		break
	}
}

func worker(p *pool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cond.Wait()
	p.cond.Signal()
}

func (s *store) get(k int) int {
	s.RLock()
	defer s.RUnlock()
	return s.data[k]
}
`

const staticTest = `package main

import "testing"

func TestPool(t *testing.T) {
	var unknown interface{ Lock(); Wait() }
	unknown.Lock()
	unknown.Wait()
	select {}
}
`

func TestStaticFeaturesCounts(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": staticMain, "main_test.go": staticTest})
	f, err := collectStaticFeatures(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := staticFeatures{
		Files: 2,
		Lines: strings.Count(staticMain, "\n") + strings.Count(staticTest, "\n"),
		// main, worker, get, TestPool; the two go func literals and the one given to once.Do.
		Funcs:               7,
		GoStmts:             3,
		GoStmtsInLoops:      2,
		LoopsWithGo:         1,
		ChanMakes:           4,
		ChanMakesUnbuffered: 2,
		ChanMakesBuffered:   2,
		ChanBufferSizeSum:   4,
		ChanBufferSizeMax:   4,
		ChanBufferNonConst:  1,
		Sends:               2,
		// <-results, <-time.After(…), <-ctx.Done(): range receives are not unary arrows.
		Receives:           3,
		RangeLoops:         1,
		Closes:             1,
		Selects:            2,
		SelectsWithDefault: 1,
		SelectCases:        2,
		SelectCasesMax:     2,
		EmptySelects:       1,
		MutexLocks:         1,
		MutexUnlocks:       1,
		RWMutexRLocks:      1,
		RWMutexUnlocks:     1,
		LockUnknown:        0,
		WaitGroupAdds:      1,
		WaitGroupDones:     1,
		WaitGroupWaits:     1,
		CondWaits:          1,
		CondSignals:        1,
		WaitUnknown:        1,
		Onces:              1,
		AtomicOps:          1,
		Defers:             4,
		DeferredUnlocks:    2,
		TimeSleeps:         1,
		TimeAfters:         1,
		Gosched:            1,
		ContextWithTimeout: 1,
		ContextDone:        1,
		// context.WithTimeout and context.Background.
		ContextUses: 2,
		// for i, range jobs, for {}.
		Loops:         3,
		InfiniteLoops: 1,
		TestFuncs:     1,
		HasMain:       1,
	}
	// unknown.Lock() is a mutex call on a struct that embeds RWMutex by the embedding rule:
	// without types, any Lock on a name of unknown type in a package with an embedded RWMutex
	// counts as an RWMutex write lock.
	want.RWMutexLocks = 1
	if *f != want {
		t.Errorf("counts differ:\n got %+v\nwant %+v", *f, want)
	}
}

func TestStaticFeaturesLockOfUnknownType(t *testing.T) {
	dir := writeProgram(t, map[string]string{"main.go": `package main

type locker interface{ Lock(); RLock() }

func main() {
	var l locker
	l.Lock()
	l.RLock()
}
`})
	f, err := collectStaticFeatures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.LockUnknown != 2 || f.MutexLocks != 0 || f.RWMutexLocks != 0 || f.RWMutexRLocks != 0 {
		t.Errorf("want 2 locks of unknown type and no sync locks, got %+v", *f)
	}
}

func TestStaticFeaturesPartialParse(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"a.go": "package main\n\nfunc main() { go f() }\n\nfunc f() {}\n",
		"b.go": "package main\n\nfunc broken( {\n",
	})
	f, err := collectStaticFeatures(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A file with a syntax error still yields a partial AST: both files count.
	if f.Files != 2 || f.GoStmts != 1 || f.HasMain != 1 {
		t.Errorf("want 2 files, 1 go statement and a main, got %+v", *f)
	}
}

func TestStaticFeaturesErrors(t *testing.T) {
	if _, err := collectStaticFeatures(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no .go files") {
		t.Errorf("an empty directory: want a no .go files error, got %v", err)
	}
	if _, err := collectStaticFeatures(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing directory: want an error")
	}
}
