// Subcommand staticfeatures: a go/ast pass over one program directory that prints
// JSON counts of its concurrency constructs, used as static features by the student.

package scan

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// staticFeatures are counts over every .go file (tests included) directly in the
// directory. Without type information, sync method calls are attributed by the
// declared type of the receiver's name (var/field/param declared as sync.X, *sync.X,
// &sync.X{} or new(sync.X)); calls on names of unknown type go to the *Unknown counts.
type staticFeatures struct {
	Files               int `json:"files"`
	Lines               int `json:"lines"`
	Funcs               int `json:"funcs"`
	GoStmts             int `json:"goStmts"`
	GoStmtsInLoops      int `json:"goStmtsInLoops"`
	LoopsWithGo         int `json:"loopsWithGo"`
	ChanMakes           int `json:"chanMakes"`
	ChanMakesUnbuffered int `json:"chanMakesUnbuffered"`
	ChanMakesBuffered   int `json:"chanMakesBuffered"`
	ChanBufferSizeSum   int `json:"chanBufferSizeSum"`
	ChanBufferSizeMax   int `json:"chanBufferSizeMax"`
	ChanBufferNonConst  int `json:"chanBufferNonConst"`
	Sends               int `json:"sends"`
	Receives            int `json:"receives"`
	RangeLoops          int `json:"rangeLoops"`
	Closes              int `json:"closes"`
	Selects             int `json:"selects"`
	SelectsWithDefault  int `json:"selectsWithDefault"`
	SelectCases         int `json:"selectCases"`
	SelectCasesMax      int `json:"selectCasesMax"`
	EmptySelects        int `json:"emptySelects"`
	MutexLocks          int `json:"mutexLocks"`
	MutexUnlocks        int `json:"mutexUnlocks"`
	RWMutexLocks        int `json:"rwMutexLocks"`
	RWMutexRLocks       int `json:"rwMutexRLocks"`
	RWMutexUnlocks      int `json:"rwMutexUnlocks"`
	LockUnknown         int `json:"lockUnknown"`
	WaitGroupAdds       int `json:"waitGroupAdds"`
	WaitGroupDones      int `json:"waitGroupDones"`
	WaitGroupWaits      int `json:"waitGroupWaits"`
	WaitGroupGo         int `json:"waitGroupGo"`
	CondWaits           int `json:"condWaits"`
	CondSignals         int `json:"condSignals"`
	CondBroadcasts      int `json:"condBroadcasts"`
	WaitUnknown         int `json:"waitUnknown"`
	Onces               int `json:"onces"`
	AtomicOps           int `json:"atomicOps"`
	Defers              int `json:"defers"`
	DeferredUnlocks     int `json:"deferredUnlocks"`
	TimeSleeps          int `json:"timeSleeps"`
	TimeAfters          int `json:"timeAfters"`
	TimeTickers         int `json:"timeTickers"`
	TimeTimers          int `json:"timeTimers"`
	Gosched             int `json:"gosched"`
	GomaxprocsCalls     int `json:"gomaxprocsCalls"`
	ContextWithCancel   int `json:"contextWithCancel"`
	ContextWithTimeout  int `json:"contextWithTimeout"`
	ContextDone         int `json:"contextDone"`
	ContextUses         int `json:"contextUses"`
	Panics              int `json:"panics"`
	Loops               int `json:"loops"`
	InfiniteLoops       int `json:"infiniteLoops"`
	TestFuncs           int `json:"testFuncs"`
	HasMain             int `json:"hasMain"`
}

type staticFeaturesError struct {
	Error string `json:"error"`
}

func RunStaticFeatures(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: gohelper staticfeatures DIR")
		return 2
	}
	features, err := collectStaticFeatures(args[0])
	out := json.NewEncoder(os.Stdout)
	if err != nil {
		_ = json.NewEncoder(os.Stderr).Encode(staticFeaturesError{Error: err.Error()})
		return 1
	}
	if err := out.Encode(features); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func collectStaticFeatures(dir string) (*staticFeatures, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, entry := range entries {
		if !entry.IsDir() && strings.HasSuffix(entry.Name(), ".go") {
			names = append(names, entry.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no .go files in %s", dir)
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	var files []*ast.File
	parsed := 0
	var firstErr error
	for _, name := range names {
		file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if file == nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		// A file with syntax errors still yields a partial AST; count what parsed.
		files = append(files, file)
		parsed++
	}
	if parsed == 0 {
		return nil, firstErr
	}
	f := &staticFeatures{Files: parsed}
	types := declaredSyncTypes(files)
	for _, file := range files {
		f.Lines += fset.Position(file.End()).Line
		walkFile(f, file, types)
	}
	return f, nil
}

// declaredSyncTypes maps a declared name (variable, field or parameter) to the sync
// type it was declared with ("Mutex", "RWMutex", "WaitGroup", "Cond", "Once").
func declaredSyncTypes(files []*ast.File) map[string]string {
	types := map[string]string{}
	note := func(names []*ast.Ident, expr ast.Expr) {
		if t := syncTypeOf(expr); t != "" {
			for _, n := range names {
				types[n.Name] = t
			}
		}
	}
	for _, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Field:
				note(x.Names, x.Type)
				// An embedded sync.Mutex makes s.Lock() a mutex call on any name.
				if len(x.Names) == 0 {
					if t := syncTypeOf(x.Type); t != "" {
						types["<embedded "+t+">"] = t
					}
				}
			case *ast.ValueSpec:
				if x.Type != nil {
					note(x.Names, x.Type)
				}
				for i, v := range x.Values {
					if i < len(x.Names) {
						note(x.Names[i:i+1], v)
					}
				}
			case *ast.AssignStmt:
				for i, rhs := range x.Rhs {
					if i < len(x.Lhs) {
						if id, ok := x.Lhs[i].(*ast.Ident); ok {
							note([]*ast.Ident{id}, rhs)
						}
					}
				}
			}
			return true
		})
	}
	return types
}

// syncTypeOf recognises sync.X, *sync.X, sync.X{}, &sync.X{}, new(sync.X) and sync.NewCond(...).
func syncTypeOf(expr ast.Expr) string {
	switch x := expr.(type) {
	case *ast.StarExpr:
		return syncTypeOf(x.X)
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return syncTypeOf(x.X)
		}
	case *ast.CompositeLit:
		if x.Type != nil {
			return syncTypeOf(x.Type)
		}
	case *ast.CallExpr:
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "new" && len(x.Args) == 1 {
			return syncTypeOf(x.Args[0])
		}
		if pkg, name := qualified(x.Fun); pkg == "sync" && name == "NewCond" {
			return "Cond"
		}
	case *ast.SelectorExpr:
		if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "sync" {
			switch x.Sel.Name {
			case "Mutex", "RWMutex", "WaitGroup", "Cond", "Once":
				return x.Sel.Name
			}
		}
	}
	return ""
}

// qualified returns (X, Sel) for a selector X.Sel whose X is a plain identifier.
func qualified(expr ast.Expr) (string, string) {
	sel, ok := expr.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	if id, ok := sel.X.(*ast.Ident); ok {
		return id.Name, sel.Sel.Name
	}
	return "", sel.Sel.Name
}

// receiverName is the last name in a receiver expression: mu in mu.Lock(), s.mu.Lock(), s.cond.L.Lock().
func receiverName(expr ast.Expr) string {
	switch x := expr.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.ParenExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	}
	return ""
}

func walkFile(f *staticFeatures, file *ast.File, types map[string]string) {
	var stack []ast.Node
	loopDepth := 0
	loopsWithGo := map[ast.Node]bool{}
	var loops []ast.Node
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch top.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				loopDepth--
				loops = loops[:len(loops)-1]
			}
			return true
		}
		stack = append(stack, n)
		switch x := n.(type) {
		case *ast.FuncDecl:
			f.Funcs++
			if x.Recv == nil && x.Name.Name == "main" && file.Name.Name == "main" {
				f.HasMain = 1
			}
			if x.Recv == nil && strings.HasPrefix(x.Name.Name, "Test") {
				f.TestFuncs++
			}
		case *ast.FuncLit:
			f.Funcs++
		case *ast.ForStmt:
			f.Loops++
			if x.Cond == nil {
				f.InfiniteLoops++
			}
			loopDepth++
			loops = append(loops, x)
		case *ast.RangeStmt:
			f.Loops++
			f.RangeLoops++
			loopDepth++
			loops = append(loops, x)
		case *ast.GoStmt:
			f.GoStmts++
			if loopDepth > 0 {
				f.GoStmtsInLoops++
				innermost := loops[len(loops)-1]
				if !loopsWithGo[innermost] {
					loopsWithGo[innermost] = true
					f.LoopsWithGo++
				}
			}
		case *ast.SendStmt:
			f.Sends++
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				f.Receives++
			}
		case *ast.SelectStmt:
			f.Selects++
			cases := 0
			hasDefault := false
			for _, c := range x.Body.List {
				if cc, ok := c.(*ast.CommClause); ok {
					if cc.Comm == nil {
						hasDefault = true
					} else {
						cases++
					}
				}
			}
			if len(x.Body.List) == 0 {
				f.EmptySelects++
			}
			if hasDefault {
				f.SelectsWithDefault++
			}
			f.SelectCases += cases
			if cases > f.SelectCasesMax {
				f.SelectCasesMax = cases
			}
		case *ast.DeferStmt:
			f.Defers++
			if sel, ok := x.Call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Unlock" || sel.Sel.Name == "RUnlock") {
				f.DeferredUnlocks++
			}
		case *ast.CallExpr:
			countCall(f, x, types)
		}
		return true
	})
}

func countCall(f *staticFeatures, call *ast.CallExpr, types map[string]string) {
	if id, ok := call.Fun.(*ast.Ident); ok {
		switch id.Name {
		case "make":
			if len(call.Args) >= 1 {
				if _, isChan := call.Args[0].(*ast.ChanType); isChan {
					countChanMake(f, call)
				}
			}
		case "close":
			f.Closes++
		case "panic":
			f.Panics++
		}
		return
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	pkg, name := qualified(call.Fun)
	switch pkg {
	case "time":
		switch name {
		case "Sleep":
			f.TimeSleeps++
		case "After", "AfterFunc":
			f.TimeAfters++
		case "Tick", "NewTicker":
			f.TimeTickers++
		case "NewTimer":
			f.TimeTimers++
		}
		return
	case "runtime":
		switch name {
		case "Gosched":
			f.Gosched++
		case "GOMAXPROCS":
			f.GomaxprocsCalls++
		}
		return
	case "atomic":
		f.AtomicOps++
		return
	case "context":
		f.ContextUses++
		switch name {
		case "WithCancel", "WithCancelCause":
			f.ContextWithCancel++
		case "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause":
			f.ContextWithTimeout++
		}
		return
	}
	kind := types[receiverName(sel.X)]
	switch name {
	case "Done":
		if kind == "WaitGroup" {
			f.WaitGroupDones++
		} else if len(call.Args) == 0 && kind == "" {
			// ctx.Done() and wg.Done() look alike; a name declared as a WaitGroup wins above.
			f.ContextDone++
		}
	case "Lock", "Unlock", "RLock", "RUnlock":
		countLock(f, name, kind, types)
	case "Add":
		if kind == "WaitGroup" {
			f.WaitGroupAdds++
		}
	case "Go":
		if kind == "WaitGroup" {
			f.WaitGroupGo++
		}
	case "Wait":
		switch kind {
		case "WaitGroup":
			f.WaitGroupWaits++
		case "Cond":
			f.CondWaits++
		default:
			f.WaitUnknown++
		}
	case "Signal":
		if kind == "Cond" || kind == "" {
			f.CondSignals++
		}
	case "Broadcast":
		if kind == "Cond" || kind == "" {
			f.CondBroadcasts++
		}
	case "Do":
		if kind == "Once" {
			f.Onces++
		}
	}
}

func countLock(f *staticFeatures, name, kind string, types map[string]string) {
	if kind == "" {
		// s.Lock() on a struct that embeds a mutex.
		if _, ok := types["<embedded RWMutex>"]; ok {
			kind = "RWMutex"
		} else if _, ok := types["<embedded Mutex>"]; ok {
			kind = "Mutex"
		}
	}
	switch kind {
	case "Mutex":
		if name == "Lock" {
			f.MutexLocks++
		} else if name == "Unlock" {
			f.MutexUnlocks++
		}
	case "RWMutex":
		switch name {
		case "Lock":
			f.RWMutexLocks++
		case "RLock":
			f.RWMutexRLocks++
		default:
			f.RWMutexUnlocks++
		}
	default:
		if name == "Lock" || name == "RLock" {
			f.LockUnknown++
		}
	}
}

func countChanMake(f *staticFeatures, call *ast.CallExpr) {
	f.ChanMakes++
	if len(call.Args) < 2 {
		f.ChanMakesUnbuffered++
		return
	}
	lit, ok := call.Args[1].(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		f.ChanMakesBuffered++
		f.ChanBufferNonConst++
		return
	}
	size, err := strconv.Atoi(lit.Value)
	if err != nil {
		f.ChanMakesBuffered++
		f.ChanBufferNonConst++
		return
	}
	if size == 0 {
		f.ChanMakesUnbuffered++
		return
	}
	f.ChanMakesBuffered++
	f.ChanBufferSizeSum += size
	if size > f.ChanBufferSizeMax {
		f.ChanBufferSizeMax = size
	}
}
