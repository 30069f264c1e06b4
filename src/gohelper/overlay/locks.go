// Subcommand collect-locks: lock recording for `schedlab collect --budget`. It rewrites
// overlay copies of a package's files so that each Lock/RLock/Unlock/RUnlock statement,
// and each deferred Unlock/RUnlock, logs the operation as a runtime/trace user log
// (category "schedlab.lock", message "<phase> <mode> <id>", the contract docs/events.md states),
// and adds the function that finds the mutex and logs. It uses the overlay machinery
// (pass.go) and the source editor (srcedit), and perturbation's invariants:
// same-line insertions only, so line numbers never move; the user's tree is never written to.
//
// The rewrite of each form (X: an identifier, a selector chain, or a parenthesised or
// starred one of those; mode w for Lock/Unlock, r for RLock/RUnlock):
//
//	X.Lock()         → if schedlabLockWant("want w", &X, K) { X.Lock(); schedlabLockOp("got w", &X) } else { X.Lock() }
//	X.RLock()        → if schedlabLockWant("want r", &X, K) { X.RLock(); schedlabLockOp("got r", &X) } else { X.RLock() }
//	X.Unlock()       → schedlabLockOp("drop w", &X); X.Unlock()
//	X.RUnlock()      → schedlabLockOp("drop r", &X); X.RUnlock()
//	defer X.Unlock() → defer X.Unlock(); defer schedlabLockLog("drop w", schedlabLockFind("drop w", &X))
//	(defer X.RUnlock() likewise, with "drop r")
//
// The user's defer is left as it is, so Go evaluates its receiver as always; the defer added
// after it finds the mutex at once, from the same X, and, deferred calls running last in
// first out, logs the drop just before the Unlock runs.
//
// The budget: K numbers the package's Lock/RLock statements, and with -budget N a statement
// logs its want and got in its first N executions of a run only (a lock taken in a loop
// would otherwise log three trace events per iteration: megabytes of trace, as many rows,
// and decoding dominating a hunt). With a budget a drop is logged only while the mutex has
// a logged hold not yet dropped (a count per mutex address, taken by each drop logged): a
// loop that spent its budget then logs nothing at all, where each logged operation costs a
// stack capture while tracing. A drop of a hold that was not logged, logged while another
// logged hold of the same (read) lock is outstanding, ends that hold early, as the fold
// does with any drop its goroutine holds nothing for; so the fold's holds are the logged
// ones not yet dropped, only ever under-reported, never invented. In a -race build an
// atomic count would be synchronisation the race detector sees, hiding races between the
// goroutines counting: there the statements' counters are plain memory in go:norace
// functions (a count lost to a race only logs more) and every drop is logged (the decoder
// then keeps no more than the budget would, decode/lockops.go). Two files the race build
// constraint chooses between say which build it is, so one rewrite serves both. The else
// branch repeats the call on the statement's last line (lockOperand prints X on one line).
//
// Any other operand is skipped: `&X` must compile whatever X's type, which rules out calls,
// index expressions (a map element has no address), type assertions and literals, and an
// identifier the package declares as a constant (a constant of another package, `pkg.C`,
// cannot be told from a variable: collect builds such a program without lock recording).
// Only statements of statement lists are matched, not an if/for/switch header's. The match
// is syntactic; the runtime logs only when it finds a sync.Mutex or sync.RWMutex whose
// method the statement calls.

package overlay

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"

	"schedlab.dev/gohelper/srcedit"
)

// LockLogCategory is the runtime/trace log category of a lock operation; the decoder
// reads the operations back from the logs of this category.
const LockLogCategory = "schedlab.lock"

// LockLogBudget is how many executions of one Lock/RLock statement log their want and got
// in a run (collect-locks' default -budget; docs/leaks.md, "The budget"): enough for every
// lock order a loop takes, which shows in its first iterations. The decoder keeps no more
// of any trace (a -race build logs every drop; decode/lockops.go).
const LockLogBudget = 64

type LockResult struct {
	// Replace is the overlay given, extended with the rewritten copies and runtime files.
	Replace map[string]string `json:"replace"`
	// Statements counts the statements rewritten.
	Statements int `json:"statements"`
}

// RunLocks rewrites the files given for lock recording.
//
// Usage: collect-locks -out DIR [-overlay FILE] [-budget N] file.go...   (-budget: LockLogBudget)
//
// With -overlay (e.g. the harness's, or the harness's and perturbation's), a file that the
// overlay already replaces is read from its replacement and the result keeps every entry.
// Perturbation goes first (collect-perturb -locks runs both in one call): its points are
// then counted on the sources it always sees, and a lock's "got" is logged before the
// perturbation point after the Lock, not after its sleep.
func RunLocks(args []string) int {
	flags := flag.NewFlagSet("collect-locks", flag.ContinueOnError)
	out := flags.String("out", "", "directory for the rewritten copies")
	overlayFile := flags.String("overlay", "", "existing overlay JSON whose replacements are the sources to rewrite")
	budget := flags.Int("budget", LockLogBudget, "wants and gots logged per Lock/RLock statement and run; 0: all")
	if !parseCommand(flags, args, "-out DIR [-overlay FILE] [-budget N] file.go...") {
		return 2
	}
	result, err := LockFiles(*out, *overlayFile, flags.Args(), *budget)
	return reply(flags, result, err)
}

// LockFiles rewrites files for lock recording over the overlay in overlayFile ("": none).
func LockFiles(out, overlayFile string, files []string, budget int) (*LockResult, error) {
	replace, sources, err := overlaySources(overlayFile, files)
	if err != nil {
		return nil, err
	}
	return lockSources(out, replace, files, sources, budget)
}

// lockSources rewrites files, whose sources are given, into out and extends replace.
func lockSources(out string, replace map[string]string, files []string, sources [][]byte, budget int) (*LockResult, error) {
	consts, err := constantNames(files, sources)
	if err != nil {
		return nil, err
	}
	result := &LockResult{Replace: replace}
	// The Lock/RLock statements of each package, numbered in the order rewritten: the
	// index of a statement's budget counter.
	sites := map[string]int{}
	pass := overlayPass{
		copyPrefix:  "l",
		runtimeFile: "zz_schedlab_locks",
		rewrite: func(file string, src []byte) ([]byte, string, bool, error) {
			rewritten, name, n, err := lockSource(file, src, consts, sites)
			result.Statements += n
			return rewritten, name, n > 0, err
		},
		runtime: func(pkg string) []addedFile { return lockRuntimeFiles(pkg, sites[pkg], budget) },
	}
	if err := writeOverlayCopies(out, replace, files, sources, pass); err != nil {
		return nil, err
	}
	return result, nil
}

// constantNames is every name the files declare as a constant, at any scope: an operand
// rooted at one is skipped (a constant has no address). Shadowing is ignored, which only
// skips more.
func constantNames(files []string, sources [][]byte) (map[string]bool, error) {
	names := map[string]bool{"true": true, "false": true, "iota": true, "nil": true}
	for i, file := range files {
		_, f, _, err := parseForRewrite(file, sources[i])
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if decl, ok := n.(*ast.GenDecl); ok && decl.Tok == token.CONST {
				for _, spec := range decl.Specs {
					for _, name := range spec.(*ast.ValueSpec).Names {
						names[name.Name] = true
					}
				}
			}
			return true
		})
	}
	return names, nil
}

// lockSource returns the rewritten source, the package name and the number of statements
// rewritten. A file importing "C" is returned as nil, like perturbSource.
func lockSource(name string, src []byte, consts map[string]bool, sites map[string]int) ([]byte, string, int, error) {
	fset, f, cgo, err := parseForRewrite(name, src)
	if err != nil {
		return nil, "", 0, err
	}
	if cgo {
		return nil, f.Name.Name, 0, nil
	}
	offset := func(pos token.Pos) int { return fset.Position(pos).Offset }
	var inserts []srcedit.Edit
	statements := 0
	ast.Inspect(f, func(n ast.Node) bool {
		for _, stmt := range statementList(n) {
			// After any label, so a goto to the label logs the want too.
			switch s := unlabeled(stmt).(type) {
			case *ast.ExprStmt:
				call, ok := s.X.(*ast.CallExpr)
				if !ok {
					continue
				}
				operand, method, ok := lockCall(call, consts)
				if !ok {
					continue
				}
				statements++
				switch method {
				case "Lock", "RLock":
					mode := lockMode(method)
					site := sites[f.Name.Name]
					sites[f.Name.Name]++
					inserts = append(inserts,
						srcedit.Insert(offset(s.Pos()), fmt.Sprintf("if schedlabLockWant(%q, &%s, %d) { ", "want "+mode, operand, site)),
						srcedit.Insert(offset(s.End()), fmt.Sprintf("; schedlabLockOp(%q, &%s) } else { %s.%s() }", "got "+mode, operand, operand, method)))
				default:
					inserts = append(inserts, srcedit.Insert(offset(s.Pos()), fmt.Sprintf("schedlabLockOp(%q, &%s); ", "drop "+lockMode(method), operand)))
				}
			case *ast.DeferStmt:
				operand, method, ok := lockCall(s.Call, consts)
				if !ok || (method != "Unlock" && method != "RUnlock") {
					continue
				}
				statements++
				op := fmt.Sprintf("%q", "drop "+lockMode(method))
				inserts = append(inserts, srcedit.Insert(offset(s.End()), fmt.Sprintf("; defer schedlabLockLog(%s, schedlabLockFind(%s, &%s))", op, op, operand)))
			}
		}
		return true
	})
	if len(inserts) == 0 {
		return src, f.Name.Name, 0, nil
	}
	return srcedit.Apply(src, inserts), f.Name.Name, statements, nil
}

// lockCall matches a call `X.M()` with M one of Lock, RLock, Unlock, RUnlock and no
// arguments, and X an operand whose address can be taken (lockOperand); it returns X's
// text and M.
func lockCall(call *ast.CallExpr, consts map[string]bool) (string, string, bool) {
	if len(call.Args) != 0 {
		return "", "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", "", false
	}
	switch sel.Sel.Name {
	case "Lock", "RLock", "Unlock", "RUnlock":
	default:
		return "", "", false
	}
	operand, ok := lockOperand(sel.X, consts)
	if !ok {
		return "", "", false
	}
	return operand, sel.Sel.Name, true
}

// lockOperand prints an operand of the forms whose address always exists (an identifier
// not declared as a constant, a selector chain rooted at one, parenthesised or starred
// forms of those), on one line and without comments; false for any other expression.
// A variable is addressable, a field of an addressable struct or reached through a
// pointer is, and so is *p: so `&X` compiles whatever the types are.
func lockOperand(e ast.Expr, consts map[string]bool) (string, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Name == "_" || consts[e.Name] {
			return "", false
		}
		return e.Name, true
	case *ast.SelectorExpr:
		x, ok := lockOperand(e.X, consts)
		return x + "." + e.Sel.Name, ok
	case *ast.ParenExpr:
		x, ok := lockOperand(e.X, consts)
		return "(" + x + ")", ok
	case *ast.StarExpr:
		x, ok := lockOperand(e.X, consts)
		return "*" + x, ok
	}
	return "", false
}

// lockMode is the mode of a lock method: r for RLock and RUnlock, w for Lock and Unlock.
func lockMode(method string) string {
	if method == "RLock" || method == "RUnlock" {
		return "r"
	}
	return "w"
}

// lockRuntime is the file added to each package: schedlabLockOp, schedlabLockFind and
// schedlabLockLog, and the search for the mutex. It builds at any language version from go 1.12 (no any,
// generics or 0o literals) and imports under aliases no user code uses.
//
// The search: the fast path takes a *sync.Mutex/RWMutex or a pointer to one; otherwise
// reflect goes through pointers and interfaces, and in a struct follows the embedded
// fields the method is promoted through, the way the compiler resolves X.Lock. A type that
// declares the method itself (its method is no <autogenerated> wrapper) is a user lock:
// nothing is logged, and the sync calls inside its method log their own operations. The
// path through a struct type is computed once per type and method.
func lockRuntime(pkg string, sites int) string {
	if sites < 1 {
		sites = 1 // an array of one: the index is never used
	}
	return fmt.Sprintf(`// Code generated by schedlab collect (lock recording). DO NOT EDIT.

package %s

import (
	schedlabLockContext "context"
	schedlabLockReflect "reflect"
	schedlabLockRuntime "runtime"
	schedlabLockTrace "runtime/trace"
	schedlabLockStrconv "strconv"
	schedlabLockSync "sync"
	schedlabLockAtomic "sync/atomic"
)

// schedlabLockBudget, in zz_schedlab_locks_budget*.go, is how many executions of one
// Lock/RLock statement log their want and got in a run (0: all); schedlabLockSpent counts
// them per statement. schedlabLockRace, there too, is true in a -race build.
var schedlabLockSpent [%d]int32

// With a budget, outside -race builds, schedlabLockHolds counts per mutex address (uintptr →
// *int32) the holds whose got was logged and whose drop was not yet, and
// schedlabLockOutstanding sums them: only a drop that takes one from its mutex's count is
// logged, and with none outstanding a drop returns before the mutex search.
var (
	schedlabLockHolds       schedlabLockSync.Map
	schedlabLockOutstanding int32
)

// schedlabLockWant logs op, a want, for the mutex p points to, as schedlabLockOp does,
// unless the statement numbered site has spent its budget; it reports whether it logged,
// and only then does the statement log its got. Counting stops at the budget, so the
// counter never wraps.
func schedlabLockWant(op string, p interface{}, site int) bool {
	// A spent statement returns before the mutex search: the loop that spent it pays one load.
	if schedlabLockBudget > 0 && schedlabLockSpentUp(site) {
		return false
	}
	addr := schedlabLockFind(op, p)
	if addr == 0 {
		return false
	}
	if schedlabLockBudget > 0 && !schedlabLockSpend(site) {
		return false
	}
	schedlabLockWrite(op, addr)
	return true
}

// schedlabLockSpentUp reports whether statement site has spent its budget.
func schedlabLockSpentUp(site int) bool {
	if schedlabLockRace {
		return schedlabLockSpentUpRace(site)
	}
	return schedlabLockAtomic.LoadInt32(&schedlabLockSpent[site]) >= schedlabLockBudget
}

// schedlabLockSpend counts one execution of statement site; false once its budget is spent.
func schedlabLockSpend(site int) bool {
	if schedlabLockRace {
		return schedlabLockSpendRace(site)
	}
	return schedlabLockAtomic.AddInt32(&schedlabLockSpent[site], 1) <= schedlabLockBudget
}

// In a -race build the counters are plain memory in go:norace functions, which the race
// detector does not see: an atomic counter would be synchronisation between the goroutines
// executing the statement, hiding their races. A count lost to a race only logs more
// (the decoder keeps no more than the budget), and counting stops near the budget.

//go:norace
func schedlabLockSpentUpRace(site int) bool {
	return schedlabLockSpent[site] >= schedlabLockBudget
}

//go:norace
func schedlabLockSpendRace(site int) bool {
	if schedlabLockSpent[site] >= schedlabLockBudget {
		return false
	}
	schedlabLockSpent[site]++
	return true
}

// schedlabLockOp logs op, a got or a drop ("got w", "drop r", …), for the mutex p points
// to, when a trace is being written and p leads to a sync.Mutex or sync.RWMutex.
func schedlabLockOp(op string, p interface{}) {
	if schedlabLockBudget > 0 && !schedlabLockRace && op[0] == 'd' && schedlabLockAtomic.LoadInt32(&schedlabLockOutstanding) == 0 {
		return
	}
	schedlabLockLog(op, schedlabLockFind(op, p))
}

// schedlabLockFind is the address of the mutex whose method op stands for, found from p
// when a trace is being written; 0 otherwise. After `+"`defer X.Unlock()`"+`, a deferred
// schedlabLockLog gets its result: the mutex the receiver is at the defer statement.
func schedlabLockFind(op string, p interface{}) uintptr {
	if !schedlabLockTrace.IsEnabled() {
		return 0
	}
	return schedlabLockAddr(op, p)
}

// schedlabLockLog logs op, a got or a drop, for the mutex at addr (0: none). With a budget,
// outside -race builds, a got logged counts a hold of the mutex (after its log, so a drop
// that takes the hold is logged after it), and a drop is logged only when it takes one
// (before its log); a -race build logs every drop (the count would be synchronisation).
func schedlabLockLog(op string, addr uintptr) {
	if addr == 0 {
		return
	}
	if schedlabLockBudget == 0 || schedlabLockRace {
		schedlabLockWrite(op, addr)
		return
	}
	if op[0] == 'd' {
		if schedlabLockTake(addr) {
			schedlabLockWrite(op, addr)
		}
		return
	}
	if !schedlabLockWrite(op, addr) {
		return
	}
	count, ok := schedlabLockHolds.Load(addr)
	if !ok {
		count, _ = schedlabLockHolds.LoadOrStore(addr, new(int32))
	}
	schedlabLockAtomic.AddInt32(count.(*int32), 1)
	schedlabLockAtomic.AddInt32(&schedlabLockOutstanding, 1)
}

// schedlabLockTake takes one logged hold from the mutex at addr; false when it has none.
func schedlabLockTake(addr uintptr) bool {
	if schedlabLockAtomic.LoadInt32(&schedlabLockOutstanding) == 0 {
		return false
	}
	found, ok := schedlabLockHolds.Load(addr)
	if !ok {
		return false
	}
	count := found.(*int32)
	for {
		n := schedlabLockAtomic.LoadInt32(count)
		if n <= 0 {
			return false
		}
		if schedlabLockAtomic.CompareAndSwapInt32(count, n, n-1) {
			schedlabLockAtomic.AddInt32(&schedlabLockOutstanding, -1)
			return true
		}
	}
}

// schedlabLockWrite writes the user log "<op> <hex address>" when the trace is still on,
// and reports whether it did. The message is built in a stack buffer: no fmt, one allocation.
func schedlabLockWrite(op string, addr uintptr) bool {
	if !schedlabLockTrace.IsEnabled() {
		return false
	}
	var buf [32]byte
	message := append(buf[:0], op...)
	message = append(message, ' ')
	message = schedlabLockStrconv.AppendUint(message, uint64(addr), 16)
	schedlabLockTrace.Log(schedlabLockContext.Background(), %q, string(message))
	return true
}

var (
	schedlabLockMutexType   = schedlabLockReflect.TypeOf(schedlabLockSync.Mutex{})
	schedlabLockRWMutexType = schedlabLockReflect.TypeOf(schedlabLockSync.RWMutex{})
	// schedlabLockPaths caches schedlabLockPathOf per schedlabLockKey.
	schedlabLockPaths schedlabLockSync.Map
)

// schedlabLockAddr is the address of the mutex whose method op calls, or 0 when p leads to
// none (a nil pointer or interface, a user type with its own method, a copy).
func schedlabLockAddr(op string, p interface{}) uintptr {
	read := op[len(op)-1] == 'r'
	switch m := p.(type) {
	case *schedlabLockSync.RWMutex:
		return schedlabLockReflect.ValueOf(m).Pointer()
	case **schedlabLockSync.RWMutex:
		return schedlabLockReflect.ValueOf(*m).Pointer()
	case *schedlabLockSync.Mutex:
		if !read {
			return schedlabLockReflect.ValueOf(m).Pointer()
		}
	case **schedlabLockSync.Mutex:
		if !read {
			return schedlabLockReflect.ValueOf(*m).Pointer()
		}
	}
	method := schedlabLockMethod(op)
	v := schedlabLockReflect.ValueOf(p)
	// Bounded: an interface field may lead back to the struct holding it.
	for step := 0; step < 64; step++ {
		switch v.Kind() {
		case schedlabLockReflect.Ptr, schedlabLockReflect.Interface:
			if v.IsNil() {
				return 0
			}
			v = v.Elem()
		case schedlabLockReflect.Struct:
			t := v.Type()
			if t == schedlabLockRWMutexType || (t == schedlabLockMutexType && !read) {
				if !v.CanAddr() {
					return 0
				}
				return v.UnsafeAddr()
			}
			path, ok := schedlabLockPath(t, method)
			if !ok {
				return 0
			}
			for _, index := range path {
				v = v.Field(index)
				if v.Kind() == schedlabLockReflect.Ptr {
					if v.IsNil() {
						return 0
					}
					v = v.Elem()
				}
			}
		default:
			return 0
		}
	}
	return 0
}

// schedlabLockMethod is the method op stands for.
func schedlabLockMethod(op string) string {
	switch op {
	case "want r", "got r":
		return "RLock"
	case "drop r":
		return "RUnlock"
	case "drop w":
		return "Unlock"
	}
	return "Lock"
}

type schedlabLockKey struct {
	t      schedlabLockReflect.Type
	method string
}

type schedlabLockFound struct {
	path []int
	ok   bool
}

// schedlabLockPath is the embedded-field path along which struct type t's method is
// promoted from a sync mutex or an embedded interface; false when it is not.
func schedlabLockPath(t schedlabLockReflect.Type, method string) ([]int, bool) {
	key := schedlabLockKey{t, method}
	if found, ok := schedlabLockPaths.Load(key); ok {
		f := found.(schedlabLockFound)
		return f.path, f.ok
	}
	path, ok := schedlabLockPathOf(t, method)
	schedlabLockPaths.Store(key, schedlabLockFound{path, ok})
	return path, ok
}

// schedlabLockPathOf walks t's embedded fields depth by depth, as the compiler resolves a
// promoted method: the one field or method named method at the shallowest depth decides.
func schedlabLockPathOf(t schedlabLockReflect.Type, method string) ([]int, bool) {
	if schedlabLockDeclares(t, method) {
		return nil, false
	}
	type candidate struct {
		t    schedlabLockReflect.Type
		path []int
	}
	level := []candidate{{t, nil}}
	seen := map[schedlabLockReflect.Type]bool{t: true}
	for len(level) > 0 {
		var next []candidate
		var found []int
		sources := 0
		for _, c := range level {
			for i := 0; i < c.t.NumField(); i++ {
				field := c.t.Field(i)
				path := append(append([]int{}, c.path...), i)
				if field.Name == method && !field.Anonymous {
					sources++ // a field named like the method: a user's
					continue
				}
				if !field.Anonymous {
					continue
				}
				ft := field.Type
				if ft.Kind() == schedlabLockReflect.Ptr {
					ft = ft.Elem()
				}
				switch {
				case ft == schedlabLockRWMutexType || ft == schedlabLockMutexType:
					// A Mutex has no RLock or RUnlock: then it is no source.
					if ft == schedlabLockRWMutexType || method == "Lock" || method == "Unlock" {
						sources++
						found = path
					}
				case ft.Kind() == schedlabLockReflect.Interface:
					if _, ok := schedlabLockMethodByName(ft, method); ok {
						sources++
						found = path
					}
				case schedlabLockDeclares(ft, method):
					sources++
					found = nil
				case ft.Kind() == schedlabLockReflect.Struct && !seen[ft]:
					seen[ft] = true
					next = append(next, candidate{ft, path})
				}
			}
		}
		if sources > 0 {
			return found, sources == 1 && found != nil
		}
		level = next
	}
	return nil, false
}

// schedlabLockDeclares reports whether t or *t has the method as its own, not as the
// compiler's <autogenerated> wrapper of a promoted one.
func schedlabLockDeclares(t schedlabLockReflect.Type, method string) bool {
	if t.Kind() == schedlabLockReflect.Interface {
		return false
	}
	for _, u := range []schedlabLockReflect.Type{t, schedlabLockReflect.PtrTo(t)} {
		m, ok := schedlabLockMethodByName(u, method)
		if !ok {
			continue
		}
		f := schedlabLockRuntime.FuncForPC(m.Func.Pointer())
		if f == nil {
			return true
		}
		if file, _ := f.FileLine(f.Entry()); file != "<autogenerated>" {
			return true
		}
	}
	return false
}

// schedlabLockMethodByName looks the method up by a constant name, so the linker keeps
// only methods of those four names for reflection: one MethodByName with a name it cannot
// see keeps every exported method of every type in the binary (half again its size).
func schedlabLockMethodByName(t schedlabLockReflect.Type, method string) (schedlabLockReflect.Method, bool) {
	switch method {
	case "Lock":
		return t.MethodByName("Lock")
	case "Unlock":
		return t.MethodByName("Unlock")
	case "RLock":
		return t.MethodByName("RLock")
	}
	return t.MethodByName("RUnlock")
}
`, pkg, sites, LockLogCategory)
}

// lockRuntimeFiles are the files added to package pkg with sites Lock/RLock statements:
// the runtime (lockRuntime) and its constants, for an ordinary and for a -race build (the
// race build constraint chooses), so one rewrite serves a package's plain and race builds.
func lockRuntimeFiles(pkg string, sites, budget int) []addedFile {
	return []addedFile{
		{source: lockRuntime(pkg, sites)},
		{suffix: "_budget", source: lockBudgetFile(pkg, false, budget)},
		{suffix: "_budget_race", source: lockBudgetFile(pkg, true, budget)},
	}
}

// lockBudgetFile declares schedlabLockBudget and schedlabLockRace in the builds with
// (race) or without the race detector.
func lockBudgetFile(pkg string, race bool, budget int) string {
	constraint := "!race"
	if race {
		constraint = "race"
	}
	return fmt.Sprintf(`// Code generated by schedlab collect (lock recording). DO NOT EDIT.

//go:build %s
// +build %s

package %s

const (
	schedlabLockBudget = %d
	schedlabLockRace   = %t
)
`, constraint, constraint, pkg, budget, race)
}
