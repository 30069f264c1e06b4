// Subcommand wait-sites: lists the blocking channel operations of Go files (select,
// receive, send, range over a channel) at the line the execution tracer reports for a
// goroutine blocked there, and whether a timer or a context can end each one; and every
// channel operation (close too) with its channel's class (chanflow.go) and enclosing
// function, every function, and every same-package call that passes channels, so a
// blocked wait can be matched, through the stacks, with the code that could complete it.

package scan

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
)

// waitCase is one communication case of a select. Line is the line of its `case` keyword.
type waitCase struct {
	Line    int    `json:"line"`
	Op      string `json:"op"` // "recv" | "send"
	Operand string `json:"operand"`
	Timed   bool   `json:"timed"`
	Context bool   `json:"context"`
	Signal  bool   `json:"signal"`
	// Channel: the class of the operand (chanflow.go, precise), null when it is not an
	// object; Merged: its class with every parameter merged with its arguments; Param: the
	// local parameter the operand is, to be resolved through a stack (chanOp says how).
	Channel *string   `json:"channel"`
	Merged  *string   `json:"merged"`
	Param   *paramRef `json:"param"`
}

// waitSite is one blocking operation. Line is where the Go 1.26 tracer puts the top user
// frame of a goroutine blocked there (checked on real traces):
//   - select with 0 or ≥ 2 communication cases: the `select` keyword;
//   - select with exactly one case and no default (compiled to a plain channel operation):
//     that operation's line by the rules below;
//   - receive: its `<-`, except a comma-ok receive (`v, ok := <-ch`, `v, ok = <-ch`), which
//     the compiler places at the assignment's `:=`/`=`, and `var v, ok = <-ch` at the first name;
//   - send: its arrow; range over a channel: the `range` keyword.
//
// Timed: a time.After/time.Tick call, an X.C timer channel, or a variable or field assigned
// from one of those (or from time.NewTimer/NewTicker, for X.C). Context: an X.Done() call,
// or a variable or field assigned from one. Signal: a channel given to signal.Notify (the
// os/signal import) anywhere in the package, or a copy of one. A select is
// timed/context/signal when a case is.
type waitSite struct {
	File     string     `json:"file"` // base name
	Path     string     `json:"path"` // as given on the command line
	Package  string     `json:"package"`
	Function string     `json:"function"` // enclosing declaration as the tracer names it, without package: F, T.M, (*T).M; "" at package level
	Line     int        `json:"line"`
	Column   int        `json:"column"`
	Kind     string     `json:"kind"` // "select" | "recv" | "send" | "range"
	Blocking bool       `json:"blocking"`
	Timed    bool       `json:"timed"`
	Context  bool       `json:"context"`
	Signal   bool       `json:"signal"`
	Cases    []waitCase `json:"cases"`
	// Channels: the distinct classes of the operand, or of a select's cases in case order
	// (each case's own is in its Channel); operands that are not objects have none. Merged:
	// the same with the merged classes. Param: the local parameter a plain operation's
	// operand is (a select's cases carry their own); null otherwise.
	Channels []string  `json:"channels"`
	Merged   []string  `json:"merged"`
	Param    *paramRef `json:"param"`
}

// chanOp is one channel operation anywhere in the files: a send, a receive (a select's
// cases and ranges over a channel included), or close(ch). Line is where the tracer
// reports a goroutine parked at it, by waitSite's rules: the cases of a select are at the
// select's line. FuncStart..FuncEnd are the lines of the innermost enclosing function
// declaration or literal (of the declaration, at package level).
//
// Channel is the operand's precise class (chanflow.go), Merged its merged class (every
// parameter joined with its arguments); both null when the operand is not an object. When
// the precise class is a local parameter, Param names it: which channel it is depends on
// the call, found from the call site (callSite) at the caller's frame of the goroutine
// running it; Merged is the answer when no stack says.
type chanOp struct {
	Channel   *string   `json:"channel"`
	Merged    *string   `json:"merged"`
	Param     *paramRef `json:"param"`
	Op        string    `json:"op"`   // "send" | "recv" | "close"
	File      string    `json:"file"` // base name
	Path      string    `json:"path"`
	Function  string    `json:"function"` // as waitSite.Function
	Line      int       `json:"line"`
	Column    int       `json:"column"`
	FuncStart int       `json:"funcStart"`
	FuncEnd   int       `json:"funcEnd"`
}

// funcRange is one function declaration or literal: the lines from its func keyword to its
// closing brace. A stack frame's innermost function is the narrowest range holding its line.
type funcRange struct {
	ID       string `json:"id"` // "F@file.go:line:column", a literal "F.func@…" (chanFlow.funcID): what paramRef and callSite name
	File     string `json:"file"`
	Path     string `json:"path"`
	Function string `json:"function"` // the enclosing declaration, as waitSite.Function
	Start    int    `json:"start"`
	End      int    `json:"end"`
}

type waitSitesResult struct {
	Sites []waitSite `json:"sites"`
	// Files that could not be read or parsed (skipped), as "path: message".
	Errors []string `json:"errors"`
	// Every channel operation, in source order.
	Ops []chanOp `json:"ops"`
	// Every function declaration and literal, in source order (outer before inner).
	Funcs []funcRange `json:"funcs"`
	// Every call of a same-package function that takes channels, in source order.
	Calls []callSite `json:"calls"`
}

func RunWaitSites(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: gohelper wait-sites file.go...")
		return 2
	}
	if err := json.NewEncoder(os.Stdout).Encode(waitSitesOf(args)); err != nil {
		fmt.Fprintf(os.Stderr, "wait-sites: %v\n", err)
		return 1
	}
	return 0
}

type waitSourceFile struct {
	path string
	src  []byte
	ast  *ast.File
}

// waitSitesOf parses the files, type-checks each (directory, package) group without its
// imports, and lists the sites, channel operations and functions of every file that parsed.
func waitSitesOf(paths []string) waitSitesResult {
	result := waitSitesResult{Sites: []waitSite{}, Errors: []string{}, Ops: []chanOp{}, Funcs: []funcRange{}, Calls: []callSite{}}
	fset := token.NewFileSet()
	groups := map[string][]waitSourceFile{}
	var keys []string
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			result.Errors = append(result.Errors, err.Error())
			continue
		}
		file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			result.Errors = append(result.Errors, err.Error())
			continue
		}
		key := filepath.Dir(path) + "\x00" + file.Name.Name
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], waitSourceFile{path: path, src: src, ast: file})
	}
	for _, key := range keys {
		walks, calls := waitSitesOfPackage(fset, groups[key])
		result.Calls = append(result.Calls, calls...)
		for _, w := range walks {
			result.Sites = append(result.Sites, w.out...)
			result.Ops = append(result.Ops, w.ops...)
			result.Funcs = append(result.Funcs, w.funcs...)
		}
	}
	sort.SliceStable(result.Sites, func(i, j int) bool {
		a, b := result.Sites[i], result.Sites[j]
		return sourceOrder(a.Path, a.Line, a.Column, b.Path, b.Line, b.Column)
	})
	sort.SliceStable(result.Ops, func(i, j int) bool {
		a, b := result.Ops[i], result.Ops[j]
		return sourceOrder(a.Path, a.Line, a.Column, b.Path, b.Line, b.Column)
	})
	sort.SliceStable(result.Funcs, func(i, j int) bool {
		a, b := result.Funcs[i], result.Funcs[j]
		return sourceOrder(a.Path, a.Start, -a.End, b.Path, b.Start, -b.End)
	})
	sort.SliceStable(result.Calls, func(i, j int) bool {
		a, b := result.Calls[i], result.Calls[j]
		return sourceOrder(a.Path, a.Line, a.Column, b.Path, b.Line, b.Column)
	})
	return result
}

func sourceOrder(pathA string, lineA, colA int, pathB string, lineB, colB int) bool {
	if pathA != pathB {
		return pathA < pathB
	}
	if lineA != lineB {
		return lineA < lineB
	}
	return colA < colB
}

// waitNoImports fails every import: the package is checked alone, quickly and without the
// network. Imported names get invalid types, which the rules below read as "not local".
type waitNoImports struct{}

func (waitNoImports) Import(path string) (*types.Package, error) {
	return nil, errors.New("wait-sites: imports are not loaded")
}

// trackedKind is what a variable or field holds when assigned from a recognised source.
type trackedKind int

const (
	trackedNone      trackedKind = iota
	trackedTimerChan             // time.After / time.Tick / a timer's C
	trackedTimer                 // *time.Timer or *time.Ticker (its C is a timer channel)
	trackedDone                  // an X.Done() channel
	trackedSignal                // a channel given to signal.Notify
)

type waitPackage struct {
	fset    *token.FileSet
	info    *types.Info
	flow    *chanFlow
	tracked map[types.Object]trackedKind
	// timeNames: per file, the local names of the "time" import.
	timeNames map[*ast.File]map[string]bool
	// signalNames: per file, the local names of the "os/signal" import.
	signalNames map[*ast.File]map[string]bool
	// importNames: per file, every import's local name.
	importNames map[*ast.File]map[string]bool
}

func waitSitesOfPackage(fset *token.FileSet, files []waitSourceFile) ([]*waitFileWalk, []callSite) {
	p := &waitPackage{
		fset:        fset,
		info:        &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}},
		tracked:     map[types.Object]trackedKind{},
		timeNames:   map[*ast.File]map[string]bool{},
		signalNames: map[*ast.File]map[string]bool{},
		importNames: map[*ast.File]map[string]bool{},
	}
	asts := make([]*ast.File, len(files))
	for i, f := range files {
		asts[i] = f.ast
		p.timeNames[f.ast], p.signalNames[f.ast], p.importNames[f.ast] = waitImportNames(f.ast)
	}
	conf := types.Config{Importer: waitNoImports{}, Error: func(error) {}, FakeImportC: true}
	// Errors (unresolved imports first of all) are expected; the info is filled regardless.
	pkg, _ := conf.Check(asts[0].Name.Name, fset, asts, p.info)
	p.track(asts)
	p.flow = newChanFlow(fset, p.info, pkg, asts)
	walks := make([]*waitFileWalk, len(files))
	for i, f := range files {
		walks[i] = p.walkFile(f)
	}
	return walks, p.flow.callSites()
}

func waitImportNames(file *ast.File) (timeNames, signalNames, all map[string]bool) {
	timeNames, signalNames, all = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, spec := range file.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name := filepath.Base(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		all[name] = true
		if path == "time" {
			timeNames[name] = true
		}
		if path == "os/signal" {
			signalNames[name] = true
		}
	}
	return timeNames, signalNames, all
}

// track marks the variables and fields assigned from a timer, a timer channel or a Done()
// channel anywhere in the package. It is flow-insensitive: one such assignment marks the
// object for all its uses (a channel left nil on some path is still counted as timed).
// Repeated until nothing changes, so copies (`c := timeout`) are followed.
func (p *waitPackage) track(files []*ast.File) {
	// The channels given to signal.Notify(ch, …): a wait on one ends when the process gets a signal.
	for _, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Notify" {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && p.signalNames[file][id.Name] {
				if obj := p.objectOf(call.Args[0]); obj != nil && p.tracked[obj] == trackedNone {
					p.tracked[obj] = trackedSignal
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		note := func(file *ast.File, lhs ast.Expr, rhs ast.Expr) {
			obj := p.objectOf(lhs)
			if obj == nil || p.tracked[obj] != trackedNone {
				return
			}
			if kind := p.sourceKind(file, rhs); kind != trackedNone {
				p.tracked[obj] = kind
				changed = true
			}
		}
		for _, file := range files {
			ast.Inspect(file, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					if len(x.Lhs) == len(x.Rhs) {
						for i := range x.Lhs {
							note(file, x.Lhs[i], x.Rhs[i])
						}
					}
				case *ast.ValueSpec:
					if len(x.Names) == len(x.Values) {
						for i := range x.Names {
							note(file, x.Names[i], x.Values[i])
						}
					}
				case *ast.KeyValueExpr:
					note(file, x.Key, x.Value)
				}
				return true
			})
		}
	}
}

// objectOf is the variable or field an identifier or selector names, or nil.
func (p *waitPackage) objectOf(expr ast.Expr) types.Object {
	switch x := ast.Unparen(expr).(type) {
	case *ast.Ident:
		if x.Name == "_" {
			return nil
		}
		if obj := p.info.Defs[x]; obj != nil {
			return obj
		}
		return p.info.Uses[x]
	case *ast.SelectorExpr:
		if sel := p.info.Selections[x]; sel != nil {
			return sel.Obj()
		}
		return p.info.Uses[x.Sel]
	}
	return nil
}

// sourceKind classifies an assigned value.
func (p *waitPackage) sourceKind(file *ast.File, expr ast.Expr) trackedKind {
	switch {
	case p.timed(file, expr):
		return trackedTimerChan
	case p.isContext(expr):
		return trackedDone
	}
	if call, ok := ast.Unparen(expr).(*ast.CallExpr); ok {
		if name := p.timeFunc(file, call); name == "NewTimer" || name == "NewTicker" {
			return trackedTimer
		}
	}
	if obj := p.objectOf(expr); obj != nil {
		return p.tracked[obj]
	}
	return trackedNone
}

// timeFunc is F for a call time.F(...) (under whatever name the file imports "time"), else "".
func (p *waitPackage) timeFunc(file *ast.File, call *ast.CallExpr) string {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if id, ok := sel.X.(*ast.Ident); ok && p.timeNames[file][id.Name] {
		return sel.Sel.Name
	}
	return ""
}

// timed: a channel a timer will send on. X.C counts unless go/types resolved it inside the
// package to a channel of a package-local element type (then it is some other struct's
// field), or X is an imported package's name; imports are not loaded, so time.Timer's C
// is always unresolved.
func (p *waitPackage) timed(file *ast.File, expr ast.Expr) bool {
	switch x := ast.Unparen(expr).(type) {
	case *ast.CallExpr:
		name := p.timeFunc(file, x)
		return name == "After" || name == "Tick"
	case *ast.SelectorExpr:
		if obj := p.objectOf(x); obj != nil && p.tracked[obj] == trackedTimerChan {
			return true
		}
		if x.Sel.Name != "C" {
			return false
		}
		if obj := p.objectOf(x.X); obj != nil && p.tracked[obj] == trackedTimer {
			return true
		}
		if id, ok := x.X.(*ast.Ident); ok && p.importNames[file][id.Name] && p.objectOf(id) == nil {
			return false
		}
		if id, ok := x.X.(*ast.Ident); ok {
			if _, isPkg := p.info.Uses[id].(*types.PkgName); isPkg {
				return false
			}
		}
		t := p.info.Types[x].Type
		if t == nil || !waitValid(t) {
			return true
		}
		if ch, ok := t.Underlying().(*types.Chan); ok {
			return !waitValid(ch.Elem())
		}
		return false
	case *ast.Ident:
		if obj := p.objectOf(x); obj != nil {
			return p.tracked[obj] == trackedTimerChan
		}
	}
	return false
}

func waitValid(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return !ok || b.Kind() != types.Invalid
}

// isContext: X.Done() with no arguments (a context, or anything shaped like one), or a
// variable or field assigned from such a call.
// isSignal: a channel given to signal.Notify, or a variable or field assigned from one.
func (p *waitPackage) isSignal(expr ast.Expr) bool {
	if obj := p.objectOf(expr); obj != nil {
		return p.tracked[obj] == trackedSignal
	}
	return false
}

func (p *waitPackage) isContext(expr ast.Expr) bool {
	switch x := ast.Unparen(expr).(type) {
	case *ast.CallExpr:
		sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Done" && len(x.Args) == 0
	case *ast.Ident, *ast.SelectorExpr:
		if obj := p.objectOf(x); obj != nil {
			return p.tracked[obj] == trackedDone
		}
	}
	return false
}

// isChannel: a range operand that is a channel, by its type when the package-only check
// resolved it, else by the timer/context rules.
func (p *waitPackage) isChannel(file *ast.File, expr ast.Expr) bool {
	if t := p.info.Types[expr].Type; t != nil && waitValid(t) {
		_, ok := t.Underlying().(*types.Chan)
		return ok
	}
	return p.timed(file, expr) || p.isContext(expr)
}

type waitFileWalk struct {
	p    *waitPackage
	f    waitSourceFile
	fn   string
	out  []waitSite
	skip map[ast.Node]bool // a select's own receives and sends, listed as its cases
	// commaOK: comma-ok receives, reported at their assignment's line.
	commaOK map[*ast.UnaryExpr]token.Pos
	// spent: X.C operands received inside `if !X.Stop() { … }`: Stop returned false, so the
	// timer has already fired; if the drain blocks, its value was taken already (or, with Go
	// 1.23 timers, is never delivered after Stop), and no timer will send again.
	spent map[ast.Expr]bool
	ops   []chanOp
	// funcs: the file's functions; spans: the same as positions, for innermost lookups;
	// decl: the declaration being walked, the function of package-level operations.
	funcs []funcRange
	spans []funcSpan
	decl  funcSpan
}

// funcSpan is a function declaration or literal as positions.
type funcSpan struct{ start, end token.Pos }

func (p *waitPackage) walkFile(f waitSourceFile) *waitFileWalk {
	w := &waitFileWalk{p: p, f: f, skip: map[ast.Node]bool{}, commaOK: map[*ast.UnaryExpr]token.Pos{}, spent: map[ast.Expr]bool{}}
	for _, decl := range f.ast.Decls {
		w.fn = ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			w.fn = waitFuncName(fd)
		}
		w.decl = funcSpan{decl.Pos(), decl.End()}
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				w.spans = append(w.spans, funcSpan{n.Pos(), n.End()})
				w.funcs = append(w.funcs, funcRange{
					ID: p.flow.funcIDs[n], File: filepath.Base(f.path), Path: f.path, Function: w.fn,
					Start: p.fset.Position(n.Pos()).Line, End: p.fset.Position(n.End()).Line,
				})
			}
			return true
		})
		ast.Inspect(decl, w.visit)
	}
	return w
}

// innermost is the narrowest function holding pos: the one that starts last (functions nest).
func (w *waitFileWalk) innermost(pos token.Pos) funcSpan {
	best := w.decl
	for _, s := range w.spans {
		if s.start <= pos && pos < s.end && s.start >= best.start {
			best = s
		}
	}
	return best
}

// addOp lists a channel operation at pos (its traced line) on operand.
func (w *waitFileWalk) addOp(pos token.Pos, op string, operand ast.Expr) {
	at := w.p.fset.Position(pos)
	fn := w.innermost(pos)
	class := w.p.flow.classOf(operand)
	w.ops = append(w.ops, chanOp{
		Channel: class.Channel, Merged: class.Merged, Param: class.Param, Op: op, File: filepath.Base(w.f.path), Path: w.f.path, Function: w.fn,
		Line: at.Line, Column: at.Column, FuncStart: w.p.fset.Position(fn.start).Line, FuncEnd: w.p.fset.Position(fn.end).Line,
	})
}

// waitFuncName names a declaration as the tracer does, without the package: F, T.M, (*T).M, (*T[...]).M.
func waitFuncName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv := fd.Recv.List[0].Type
	star := false
	if s, ok := recv.(*ast.StarExpr); ok {
		star, recv = true, s.X
	}
	generic := false
	switch r := recv.(type) {
	case *ast.IndexExpr:
		recv, generic = r.X, true
	case *ast.IndexListExpr:
		recv, generic = r.X, true
	}
	name := "?"
	if id, ok := recv.(*ast.Ident); ok {
		name = id.Name
	}
	if generic {
		name += "[...]"
	}
	if star {
		return "(*" + name + ")." + fd.Name.Name
	}
	return name + "." + fd.Name.Name
}

func (w *waitFileWalk) visit(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.IfStmt:
		w.markSpentDrains(x)
	case *ast.SelectStmt:
		w.selectSite(x)
	case *ast.AssignStmt:
		if len(x.Lhs) == 2 && len(x.Rhs) == 1 {
			if u, ok := ast.Unparen(x.Rhs[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				w.commaOK[u] = x.TokPos
			}
		}
	case *ast.ValueSpec:
		if len(x.Names) == 2 && len(x.Values) == 1 {
			if u, ok := ast.Unparen(x.Values[0]).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				w.commaOK[u] = x.Names[0].Pos()
			}
		}
	case *ast.UnaryExpr:
		if x.Op != token.ARROW || w.skip[x] {
			return true
		}
		pos := x.OpPos
		if at, ok := w.commaOK[x]; ok {
			pos = at
		}
		w.add(pos, "recv", x.X)
		w.addOp(pos, "recv", x.X)
	case *ast.SendStmt:
		if !w.skip[x] {
			w.add(x.Arrow, "send", x.Chan)
			w.addOp(x.Arrow, "send", x.Chan)
		}
	case *ast.RangeStmt:
		if w.p.isChannel(w.f.ast, x.X) {
			w.add(x.Range, "range", x.X)
			w.addOp(x.Range, "recv", x.X)
		}
	case *ast.CallExpr:
		if w.isClose(x) {
			w.addOp(x.Pos(), "close", x.Args[0])
		}
	}
	return true
}

// isClose: a call of the builtin close (unresolved counts: the package may not check).
func (w *waitFileWalk) isClose(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || id.Name != "close" || len(call.Args) != 1 {
		return false
	}
	switch obj := w.p.info.Uses[id].(type) {
	case nil:
		return true
	case *types.Builtin:
		return obj.Name() == "close"
	}
	return false
}

func (w *waitFileWalk) add(pos token.Pos, kind string, operand ast.Expr) {
	at := w.p.fset.Position(pos)
	class := w.p.flow.classOf(operand)
	w.out = append(w.out, waitSite{
		File: filepath.Base(w.f.path), Path: w.f.path, Package: w.f.ast.Name.Name, Function: w.fn,
		Line: at.Line, Column: at.Column, Kind: kind, Blocking: true,
		Timed: w.p.timed(w.f.ast, operand) && !w.spent[operand], Context: w.p.isContext(operand), Signal: w.p.isSignal(operand), Cases: []waitCase{},
		Channels: channelsOf(class.Channel), Merged: channelsOf(class.Merged), Param: class.Param,
	})
}

func channelsOf(keys ...*string) []string {
	out := []string{}
	for _, k := range keys {
		if k != nil && !slices.Contains(out, *k) {
			out = append(out, *k)
		}
	}
	return out
}

// markSpentDrains records the X.C receives in the body of `if !X.Stop() { … }` (the drain
// idiom): the timer has fired, so no timer can end them (see waitFileWalk.spent).
func (w *waitFileWalk) markSpentDrains(s *ast.IfStmt) {
	not, ok := ast.Unparen(s.Cond).(*ast.UnaryExpr)
	if !ok || not.Op != token.NOT {
		return
	}
	call, ok := ast.Unparen(not.X).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return
	}
	stop, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || stop.Sel.Name != "Stop" {
		return
	}
	timer := w.source(stop.X)
	ast.Inspect(s.Body, func(n ast.Node) bool {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			if c, ok := ast.Unparen(u.X).(*ast.SelectorExpr); ok && c.Sel.Name == "C" && w.source(c.X) == timer {
				w.spent[u.X] = true
			}
		}
		return true
	})
}

func (w *waitFileWalk) selectSite(s *ast.SelectStmt) {
	site := waitSite{
		File: filepath.Base(w.f.path), Path: w.f.path, Package: w.f.ast.Name.Name, Function: w.fn,
		Kind: "select", Blocking: true, Cases: []waitCase{}, Channels: []string{}, Merged: []string{},
	}
	pos := s.Select
	var opPos []token.Pos
	var operands []ast.Expr
	for _, stmt := range s.Body.List {
		clause, ok := stmt.(*ast.CommClause)
		if !ok {
			continue
		}
		if clause.Comm == nil {
			site.Blocking = false
			continue
		}
		c := waitCase{Line: w.p.fset.Position(clause.Case).Line}
		var operand ast.Expr
		switch comm := clause.Comm.(type) {
		case *ast.SendStmt:
			c.Op, operand = "send", comm.Chan
			w.skip[comm] = true
			opPos = append(opPos, comm.Arrow)
		default:
			if u := waitCommRecv(comm); u != nil {
				c.Op, operand = "recv", u.X
				w.skip[u] = true
				at := u.OpPos
				if a, ok := comm.(*ast.AssignStmt); ok && len(a.Lhs) == 2 {
					at = a.TokPos // comma-ok, as outside a select
				}
				opPos = append(opPos, at)
			}
		}
		if operand == nil {
			continue
		}
		operands = append(operands, operand)
		c.Operand = w.source(operand)
		class := w.p.flow.classOf(operand)
		c.Channel, c.Merged, c.Param = class.Channel, class.Merged, class.Param
		c.Timed = w.p.timed(w.f.ast, operand)
		c.Context = w.p.isContext(operand)
		c.Signal = w.p.isSignal(operand)
		site.Timed = site.Timed || c.Timed
		site.Context = site.Context || c.Context
		site.Signal = site.Signal || c.Signal
		site.Cases = append(site.Cases, c)
	}
	// A blocking select of one case is compiled as that channel operation.
	if site.Blocking && len(opPos) == 1 {
		pos = opPos[0]
	}
	at := w.p.fset.Position(pos)
	site.Line, site.Column = at.Line, at.Column
	keys, merged := make([]*string, len(site.Cases)), make([]*string, len(site.Cases))
	for i, c := range site.Cases {
		keys[i], merged[i] = c.Channel, c.Merged
		w.addOp(pos, c.Op, operands[i])
	}
	site.Channels, site.Merged = channelsOf(keys...), channelsOf(merged...)
	w.out = append(w.out, site)
}

// waitCommRecv is the receive of a select case: `<-ch`, `v := <-ch`, `v, ok = <-ch`.
func waitCommRecv(comm ast.Stmt) *ast.UnaryExpr {
	var expr ast.Expr
	switch c := comm.(type) {
	case *ast.ExprStmt:
		expr = c.X
	case *ast.AssignStmt:
		if len(c.Rhs) == 1 {
			expr = c.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(expr).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u
	}
	return nil
}

func (w *waitFileWalk) source(expr ast.Expr) string {
	start, end := w.p.fset.Position(expr.Pos()).Offset, w.p.fset.Position(expr.End()).Offset
	if start < 0 || end > len(w.f.src) || start > end {
		return types.ExprString(expr)
	}
	return string(w.f.src[start:end])
}
