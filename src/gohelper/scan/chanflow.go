// Channel identities for wait-sites: a flow-insensitive pass over one type-checked package
// that puts every channel-holding variable, parameter, result and struct field in one class
// with every other object that can hold the same channel value, and names each class; with
// one level of call-site context, a parameter that stays inside its function is not merged
// with its arguments but named as a parameter, and each same-package call site says which
// class every argument has, so a stack can tell the channels of one function's instances apart.

package scan

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
)

// chanFlow computes two partitions of the package's channel-holding objects. An object
// takes part when it is a *types.Var of this package (variable, parameter, result or field)
// whose type is a channel, or a slice or array of them (such a slice stands for all its
// elements: `for _, c := range cs` joins c and cs). Classes are joined by:
//   - assignments, short and var declarations, one value per name or a same-package
//     call's results one per name;
//   - arguments and parameters of same-package static callees: functions, methods (not
//     through an interface), function literals called (or started with go/defer) directly;
//     variadic extra arguments join the variadic slice;
//   - struct literal fields (keyed or positional) and field assignments (a field is one
//     object for every value of its struct type);
//   - return statements and the enclosing function's results (callers join the results);
//   - conversions, append, slice and array literals, indexing and slicing of a slice or
//     array of channels, range over one.
//
// merged applies every join: context-insensitive, a function called with two channels
// joins both through its parameter. precise leaves out the joins of a parameter with its
// arguments while the parameter is local: its class holds no other parameter and nothing
// but variables declared in its function's body (closures' captured variables included), so
// its channel cannot leave the call through the package's objects. A parameter that does
// leave (stored in a field or a package variable, returned, sharing a class with another
// parameter) is joined with its arguments as in merged, until no local parameter is left
// to join (joining one can make a caller's parameter leave in turn). Call sites record,
// per argument, its precise class, or the caller's parameter when it is a local one.
//
// Closures share captured variables, which are one object. Not followed, so such channels
// keep separate classes: channels sent over channels, stored in maps, interfaces or
// pointers, passed through function values or other packages, or reached by reflection.
type chanFlow struct {
	fset *token.FileSet
	info *types.Info
	pkg  *types.Package
	// funcIDs: every function declaration and literal's id (funcID); decls: a function
	// object's declaration; params: every parameter of them, with its function.
	funcIDs map[ast.Node]string
	decls   map[types.Object]*ast.FuncDecl
	params  map[types.Object]flowParam
	// What the walk found: joins applied to both partitions, argument–parameter joins of
	// static calls (left out of precise while the parameter is local), and the call sites.
	joins      [][]types.Object
	paramJoins []paramJoin
	calls      []flowCall
	goDefer    map[*ast.CallExpr]ast.Stmt
	merged     *unionFind
	precise    *unionFind
	// localParams: precise class root → the local parameter the class is.
	localParams map[types.Object]paramRef
}

// paramRef names a parameter: its function's id (funcID) and its index among the
// function's parameters (the receiver not counted; `a, b chan int` are two).
type paramRef struct {
	FuncID string `json:"funcId"`
	Index  int    `json:"index"`
}

// flowParam is a parameter with the span of its function's body, where its locals are declared.
type flowParam struct {
	ref       paramRef
	bodyStart token.Pos
	bodyEnd   token.Pos
}

type paramJoin struct {
	param types.Object
	args  []types.Object
}

// flowCall is one call of a same-package static callee that has channel-holding parameters.
type flowCall struct {
	at     token.Pos // the go/defer keyword, else the call's left parenthesis (the line the tracer gives its caller's frame)
	kind   string    // "call" | "go" | "defer"
	callee string    // funcID of the callee
	caller string    // funcID of the innermost function holding the call; "" at package level
	args   []flowArg
}

// flowArg is the argument for one channel-holding, non-variadic parameter.
type flowArg struct {
	index int
	expr  ast.Expr
}

// chanClass is what the partitions say of one operand or argument.
type chanClass struct {
	// Channel: the precise class; Merged: the merged one; nil when the expression names no object.
	Channel *string
	Merged  *string
	// Param: the local parameter the precise class is, if it is one.
	Param *paramRef
}

func newChanFlow(fset *token.FileSet, info *types.Info, pkg *types.Package, files []*ast.File) *chanFlow {
	f := &chanFlow{
		fset: fset, info: info, pkg: pkg,
		funcIDs: map[ast.Node]string{}, decls: map[types.Object]*ast.FuncDecl{}, params: map[types.Object]flowParam{},
		goDefer: map[*ast.CallExpr]ast.Stmt{}, localParams: map[types.Object]paramRef{},
	}
	for _, file := range files {
		f.indexFunctions(file)
	}
	for _, file := range files {
		f.walk(file)
	}
	f.merged = newUnionFind()
	for _, objs := range f.joins {
		f.merged.join(objs...)
	}
	for _, pj := range f.paramJoins {
		f.merged.join(append([]types.Object{pj.param}, pj.args...)...)
	}
	f.precise = newUnionFind()
	for _, objs := range f.joins {
		f.precise.join(objs...)
	}
	f.joinLeavingParams()
	f.merged.nameClasses(f)
	f.precise.nameClasses(f)
	return f
}

// funcID names a function declaration or literal for the JSON: "F@file.go:line:column" of
// its func keyword, F as waitFuncName; a literal is "F.func@…" after its enclosing
// declaration, "func@…" at package level.
func (f *chanFlow) funcID(name string, n ast.Node) string {
	at := f.fset.Position(n.Pos())
	if _, ok := n.(*ast.FuncLit); ok {
		if name == "" {
			name = "func"
		} else {
			name += ".func"
		}
	}
	return fmt.Sprintf("%s@%s:%d:%d", name, filepath.Base(at.Filename), at.Line, at.Column)
}

// indexFunctions records the file's functions, their ids and their parameters.
func (f *chanFlow) indexFunctions(file *ast.File) {
	for _, decl := range file.Decls {
		name := ""
		if fd, ok := decl.(*ast.FuncDecl); ok {
			name = waitFuncName(fd)
			if obj := f.info.Defs[fd.Name]; obj != nil {
				f.decls[obj] = fd
			}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			var sig *types.Signature
			var body *ast.BlockStmt
			switch x := n.(type) {
			case *ast.FuncDecl:
				if fn, ok := f.info.Defs[x.Name].(*types.Func); ok {
					sig, _ = fn.Type().(*types.Signature)
				}
				body = x.Body
			case *ast.FuncLit:
				sig, _ = f.info.TypeOf(x).(*types.Signature)
				body = x.Body
			default:
				return true
			}
			id := f.funcID(name, n)
			f.funcIDs[n] = id
			if sig != nil {
				for i := 0; i < sig.Params().Len(); i++ {
					p := flowParam{ref: paramRef{FuncID: id, Index: i}}
					if body != nil {
						p.bodyStart, p.bodyEnd = body.Pos(), body.End()
					}
					f.params[sig.Params().At(i)] = p
				}
			}
			return true
		})
	}
}

// holdsChannels: a channel type, or a slice or array of such (depth-bounded, so a
// recursive slice type ends).
func holdsChannels(t types.Type, depth int) bool {
	if t == nil || depth > 4 {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Chan:
		return true
	case *types.Slice:
		return holdsChannels(u.Elem(), depth+1)
	case *types.Array:
		return holdsChannels(u.Elem(), depth+1)
	}
	return false
}

func (f *chanFlow) takesPart(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && f.pkg != nil && v.Pkg() == f.pkg && v.Pos().IsValid() && holdsChannels(v.Type(), 0)
}

// unionFind is one partition of objects into classes, each named once every join is done.
type unionFind struct {
	parent map[types.Object]types.Object
	// keys: class root → the class's name, set by nameClasses.
	keys map[types.Object]string
}

func newUnionFind() *unionFind {
	return &unionFind{parent: map[types.Object]types.Object{}, keys: map[types.Object]string{}}
}

func (u *unionFind) find(obj types.Object) types.Object {
	root := obj
	for {
		up, ok := u.parent[root]
		if !ok || up == root {
			break
		}
		root = up
	}
	for obj != root { // path compression
		up := u.parent[obj]
		u.parent[obj] = root
		obj = up
	}
	return root
}

// join puts all of objs in one class.
func (u *unionFind) join(objs ...types.Object) {
	var root types.Object
	for _, obj := range objs {
		if _, ok := u.parent[obj]; !ok {
			u.parent[obj] = obj
		}
		r := u.find(obj)
		if root == nil {
			root = r
		} else if r != root {
			u.parent[r] = root
		}
	}
}

// classes: every root's members (objects joined with nothing are not listed).
func (u *unionFind) classes() map[types.Object][]types.Object {
	out := map[types.Object][]types.Object{}
	for obj := range u.parent {
		root := u.find(obj)
		out[root] = append(out[root], obj)
	}
	return out
}

// nameClasses names every class after its representative: the member with a name that was
// declared first (by file, then offset), as "name@file.go:line". Unnamed members (results
// without names) are chosen only when nothing else is in the class.
func (u *unionFind) nameClasses(f *chanFlow) {
	best := map[types.Object]types.Object{}
	for obj := range u.parent {
		root := u.find(obj)
		if cur, ok := best[root]; !ok || f.declaredBefore(obj, cur) {
			best[root] = obj
		}
	}
	for root, rep := range best {
		u.keys[root] = f.nameOf(rep)
	}
}

// name is the class of obj; one joined with nothing is a class of its own.
func (u *unionFind) name(f *chanFlow, obj types.Object) string {
	if key, ok := u.keys[u.find(obj)]; ok {
		return key
	}
	return f.nameOf(obj)
}

// joinLeavingParams joins, in precise, each parameter that is not local with its arguments,
// until every parameter left unjoined is local; then records the local ones.
func (f *chanFlow) joinLeavingParams() {
	byParam := map[types.Object][]paramJoin{}
	var order []types.Object
	for _, pj := range f.paramJoins {
		if _, ok := byParam[pj.param]; !ok {
			order = append(order, pj.param)
		}
		byParam[pj.param] = append(byParam[pj.param], pj)
	}
	joined := map[types.Object]bool{}
	for changed := true; changed; {
		changed = false
		classes := f.precise.classes()
		for _, p := range order {
			if joined[p] || f.isLocal(p, classes) {
				continue
			}
			for _, pj := range byParam[p] {
				f.precise.join(append([]types.Object{pj.param}, pj.args...)...)
			}
			joined[p] = true
			changed = true
		}
	}
	classes := f.precise.classes()
	for p := range f.params {
		if f.takesPart(p) && !joined[p] && f.isLocal(p, classes) {
			f.localParams[f.precise.find(p)] = f.params[p].ref
		}
	}
}

// isLocal: the class of parameter p holds no other parameter and only variables declared in
// its function's body.
func (f *chanFlow) isLocal(p types.Object, classes map[types.Object][]types.Object) bool {
	param := f.params[p]
	for _, m := range classes[f.precise.find(p)] {
		if m == p {
			continue
		}
		v, ok := m.(*types.Var)
		if _, isParam := f.params[m]; !ok || isParam || v.IsField() || v.Pos() < param.bodyStart || v.Pos() >= param.bodyEnd {
			return false
		}
	}
	return true
}

// objectOf is the variable or field an identifier or selector names, or nil.
func (f *chanFlow) objectOf(expr ast.Expr) types.Object {
	switch x := expr.(type) {
	case *ast.Ident:
		if x.Name == "_" {
			return nil
		}
		if obj := f.info.Defs[x]; obj != nil {
			return obj
		}
		return f.info.Uses[x]
	case *ast.SelectorExpr:
		if sel := f.info.Selections[x]; sel != nil {
			if sel.Kind() != types.FieldVal {
				return nil
			}
			return sel.Obj()
		}
		return f.info.Uses[x.Sel]
	}
	return nil
}

// sliceLike: a slice, an array or a pointer to an array (indexing and ranging reach its elements).
func sliceLike(t types.Type) bool {
	if t == nil {
		return false
	}
	u := t.Underlying()
	if p, ok := u.(*types.Pointer); ok {
		u = p.Elem().Underlying()
		_, isArray := u.(*types.Array)
		return isArray
	}
	switch u.(type) {
	case *types.Slice, *types.Array:
		return true
	}
	return false
}

// operand is the object a channel operation's operand names: a variable or field, an
// element of a slice or array of channels (the slice's object), or a conversion of one;
// nil for anything else (a call result such as time.After(d) or ctx.Done()).
func (f *chanFlow) operand(expr ast.Expr) types.Object {
	switch x := ast.Unparen(expr).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		if obj := f.objectOf(x); obj != nil && f.takesPart(obj) {
			return obj
		}
	case *ast.IndexExpr:
		if sliceLike(f.info.TypeOf(x.X)) {
			return f.operand(x.X)
		}
	case *ast.CallExpr:
		if f.isConversion(x) {
			return f.operand(x.Args[0])
		}
	}
	return nil
}

func (f *chanFlow) isConversion(call *ast.CallExpr) bool {
	return len(call.Args) == 1 && f.info.Types[call.Fun].IsType()
}

// sources are the objects whose channels an expression's value can hold.
func (f *chanFlow) sources(expr ast.Expr) []types.Object {
	switch x := ast.Unparen(expr).(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		if obj := f.operand(x); obj != nil {
			return []types.Object{obj}
		}
	case *ast.SliceExpr:
		return f.sources(x.X)
	case *ast.CompositeLit:
		if !holdsChannels(f.info.TypeOf(x), 0) {
			return nil
		}
		var out []types.Object
		for _, elt := range x.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				elt = kv.Value
			}
			out = append(out, f.sources(elt)...)
		}
		return out
	case *ast.CallExpr:
		if f.isConversion(x) {
			return f.sources(x.Args[0])
		}
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := f.info.Uses[id].(*types.Builtin); ok && b.Name() == "append" {
				var out []types.Object
				for _, arg := range x.Args {
					out = append(out, f.sources(arg)...)
				}
				return out
			}
		}
		if results := f.callResults(x); results != nil && results.Len() == 1 && f.takesPart(results.At(0)) {
			return []types.Object{results.At(0)}
		}
	}
	return nil
}

// callee is the signature of a call's static callee in this package (its declared
// signature, whose parameters and results are the objects its body uses) and its funcID,
// or nil.
func (f *chanFlow) callee(call *ast.CallExpr) (*types.Signature, string) {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) { // explicit instantiation f[T](…)
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var fn *types.Func
	switch x := fun.(type) {
	case *ast.FuncLit:
		sig, _ := f.info.TypeOf(x).(*types.Signature)
		return sig, f.funcIDs[x]
	case *ast.Ident:
		fn, _ = f.info.Uses[x].(*types.Func)
	case *ast.SelectorExpr:
		if sel := f.info.Selections[x]; sel != nil && sel.Kind() == types.MethodVal {
			fn, _ = sel.Obj().(*types.Func)
		}
	}
	if fn == nil || fn.Pkg() != f.pkg || f.pkg == nil {
		return nil, ""
	}
	fn = fn.Origin()
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || (sig.Recv() != nil && types.IsInterface(sig.Recv().Type())) {
		return nil, ""
	}
	id := ""
	if decl := f.decls[fn]; decl != nil {
		id = f.funcIDs[decl]
	}
	return sig, id
}

func (f *chanFlow) callResults(expr ast.Expr) *types.Tuple {
	call, ok := ast.Unparen(expr).(*ast.CallExpr)
	if !ok {
		return nil
	}
	if sig, _ := f.callee(call); sig != nil {
		return sig.Results()
	}
	return nil
}

// tupleObject: the i-th variable of a tuple, if it takes part.
func (f *chanFlow) tupleObject(t *types.Tuple, i int) []types.Object {
	if v := t.At(i); f.takesPart(v) {
		return []types.Object{v}
	}
	return nil
}

// joinAll records that a and b are one class (in both partitions).
func (f *chanFlow) joinAll(a, b []types.Object) {
	if len(a)+len(b) > 1 {
		f.joins = append(f.joins, append(append([]types.Object{}, a...), b...))
	}
}

// assign joins each left side with its value.
func (f *chanFlow) assign(lhs, rhs []ast.Expr) {
	targets := make([][]types.Object, len(lhs))
	for i, l := range lhs {
		targets[i] = f.sources(l)
	}
	f.assignTo(targets, rhs)
}

// assignTo joins each target with its value: one value per target, or one call's results.
func (f *chanFlow) assignTo(targets [][]types.Object, rhs []ast.Expr) {
	if len(targets) == len(rhs) {
		for i := range targets {
			f.joinAll(targets[i], f.sources(rhs[i]))
		}
		return
	}
	if len(rhs) == 1 {
		if results := f.callResults(rhs[0]); results != nil && results.Len() == len(targets) {
			for i := range targets {
				f.joinAll(targets[i], f.tupleObject(results, i))
			}
		}
	}
}

// call records the joins of arguments with the static callee's parameters, and the call
// site when the callee has channel-holding parameters. f(g()), with g's results as the
// arguments, and variadic extra arguments are joined as assignments (in both partitions).
func (f *chanFlow) call(call *ast.CallExpr, caller string) {
	sig, id := f.callee(call)
	if sig == nil {
		return
	}
	params := sig.Params()
	if len(call.Args) == 1 && params.Len() > 1 {
		if results := f.callResults(call.Args[0]); results != nil && results.Len() == params.Len() {
			for i := 0; i < params.Len(); i++ {
				f.joinAll(f.tupleObject(params, i), f.tupleObject(results, i))
			}
		}
		return
	}
	site := flowCall{at: call.Lparen, kind: "call", callee: id, caller: caller}
	switch stmt := f.goDefer[call].(type) {
	case *ast.GoStmt:
		site.at, site.kind = stmt.Go, "go"
	case *ast.DeferStmt:
		site.at, site.kind = stmt.Defer, "defer"
	}
	for i, arg := range call.Args {
		if sig.Variadic() && i >= params.Len()-1 {
			f.joinAll(f.tupleObject(params, params.Len()-1), f.sources(arg))
			continue
		}
		if i >= params.Len() || !f.takesPart(params.At(i)) {
			continue
		}
		site.args = append(site.args, flowArg{index: i, expr: arg})
		if args := f.sources(arg); len(args) > 0 {
			f.paramJoins = append(f.paramJoins, paramJoin{param: params.At(i), args: args})
		}
	}
	if len(site.args) > 0 && id != "" {
		f.calls = append(f.calls, site)
	}
}

// composite joins a struct literal's field values with the fields.
func (f *chanFlow) composite(lit *ast.CompositeLit) {
	t := f.info.TypeOf(lit)
	if t == nil {
		return
	}
	u := t.Underlying()
	if p, ok := u.(*types.Pointer); ok {
		u = p.Elem().Underlying()
	}
	st, ok := u.(*types.Struct)
	if !ok {
		return
	}
	for i, elt := range lit.Elts {
		var field types.Object
		value := elt
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				field = f.info.Uses[id]
			}
			value = kv.Value
		} else if i < st.NumFields() {
			field = st.Field(i)
		}
		if field != nil && f.takesPart(field) {
			f.joinAll([]types.Object{field}, f.sources(value))
		}
	}
}

// returns joins returned values with the enclosing function's results.
func (f *chanFlow) returns(sig *types.Signature, results []ast.Expr) {
	out := sig.Results()
	targets := make([][]types.Object, out.Len())
	for i := range targets {
		targets[i] = f.tupleObject(out, i)
	}
	f.assignTo(targets, results)
}

func (f *chanFlow) rangeOver(r *ast.RangeStmt) {
	if r.Value == nil || !sliceLike(f.info.TypeOf(r.X)) {
		return
	}
	f.joinAll(f.sources(r.Value), f.sources(r.X))
}

// walk visits a file once, keeping the enclosing functions' signatures for returns and
// their ids for call sites.
func (f *chanFlow) walk(file *ast.File) {
	var sigs []*types.Signature
	var ids []string
	var stack []ast.Node
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil {
			switch stack[len(stack)-1].(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				sigs = sigs[:len(sigs)-1]
				ids = ids[:len(ids)-1]
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch x := n.(type) {
		case *ast.FuncDecl:
			var sig *types.Signature
			if fn, ok := f.info.Defs[x.Name].(*types.Func); ok {
				sig, _ = fn.Type().(*types.Signature)
			}
			sigs, ids = append(sigs, sig), append(ids, f.funcIDs[x])
		case *ast.FuncLit:
			sig, _ := f.info.TypeOf(x).(*types.Signature)
			sigs, ids = append(sigs, sig), append(ids, f.funcIDs[x])
		case *ast.GoStmt:
			f.goDefer[x.Call] = x
		case *ast.DeferStmt:
			f.goDefer[x.Call] = x
		case *ast.AssignStmt:
			f.assign(x.Lhs, x.Rhs)
		case *ast.ValueSpec:
			names := make([]ast.Expr, len(x.Names))
			for i, name := range x.Names {
				names[i] = name
			}
			f.assign(names, x.Values)
		case *ast.CallExpr:
			caller := ""
			if len(ids) > 0 {
				caller = ids[len(ids)-1]
			}
			f.call(x, caller)
		case *ast.CompositeLit:
			f.composite(x)
		case *ast.ReturnStmt:
			if len(sigs) > 0 && sigs[len(sigs)-1] != nil && len(x.Results) > 0 {
				f.returns(sigs[len(sigs)-1], x.Results)
			}
		case *ast.RangeStmt:
			f.rangeOver(x)
		}
		return true
	})
}

func (f *chanFlow) declaredBefore(a, b types.Object) bool {
	if named(a) != named(b) {
		return named(a)
	}
	pa, pb := f.fset.Position(a.Pos()), f.fset.Position(b.Pos())
	if pa.Filename != pb.Filename {
		return pa.Filename < pb.Filename
	}
	return pa.Offset < pb.Offset
}

func named(obj types.Object) bool {
	return obj.Name() != "" && obj.Name() != "_"
}

func (f *chanFlow) nameOf(obj types.Object) string {
	at := f.fset.Position(obj.Pos())
	name := obj.Name()
	if !named(obj) {
		name = "(result)"
	}
	return fmt.Sprintf("%s@%s:%d", name, filepath.Base(at.Filename), at.Line)
}

// classOf is the classes of a channel operation's operand; all nil when the operand is not
// an object (see operand).
func (f *chanFlow) classOf(expr ast.Expr) chanClass {
	obj := f.operand(expr)
	if obj == nil {
		return chanClass{}
	}
	channel, merged := f.precise.name(f, obj), f.merged.name(f, obj)
	out := chanClass{Channel: &channel, Merged: &merged}
	if ref, ok := f.localParams[f.precise.find(obj)]; ok {
		out.Param = &ref
	}
	return out
}

// callArg is one argument of a call site as the JSON gives it: the local parameter of the
// caller it is, or the precise classes of the objects it holds ([] for a fresh channel such
// as make(chan T), or one no object of the package names). An argument that holds a local
// parameter with other objects (`[]chan T{p, c}`) is left out: it cannot be resolved.
type callArg struct {
	Index    int       `json:"index"`
	Channels []string  `json:"channels"`
	Param    *paramRef `json:"param"`
}

// callSite is one call of a same-package static callee with channel-holding parameters:
// a call expression, a go or a defer statement. Line and column are those of the go or
// defer keyword, else of the call's left parenthesis: the line the tracer reports for a
// goroutine's creation site, or for the caller's frame during the call. (A deferred call
// runs at the caller's exit, so its caller's frame is at that exit's line instead.)
type callSite struct {
	File   string    `json:"file"` // base name
	Path   string    `json:"path"`
	Line   int       `json:"line"`
	Column int       `json:"column"`
	Kind   string    `json:"kind"`   // "call" | "go" | "defer"
	Callee string    `json:"callee"` // the funcID of the callee
	Caller string    `json:"caller"` // the funcID of the innermost function holding the call; "" at package level
	Args   []callArg `json:"args"`   // one per channel-holding, non-variadic parameter, in order
}

// callSites lists the recorded call sites, with their arguments' classes.
func (f *chanFlow) callSites() []callSite {
	out := []callSite{}
	for _, c := range f.calls {
		at := f.fset.Position(c.at)
		site := callSite{File: filepath.Base(at.Filename), Path: at.Filename, Line: at.Line, Column: at.Column, Kind: c.kind, Callee: c.callee, Caller: c.caller, Args: []callArg{}}
		for _, a := range c.args {
			if arg, ok := f.argOf(a); ok {
				site.Args = append(site.Args, arg)
			}
		}
		out = append(out, site)
	}
	return out
}

func (f *chanFlow) argOf(a flowArg) (callArg, bool) {
	arg := callArg{Index: a.index, Channels: []string{}}
	objs := f.sources(a.expr)
	for _, obj := range objs {
		ref, isParam := f.localParams[f.precise.find(obj)]
		if isParam {
			if len(objs) > 1 {
				return arg, false
			}
			arg.Param = &ref
			return arg, true
		}
		if name := f.precise.name(f, obj); !slices.Contains(arg.Channels, name) {
			arg.Channels = append(arg.Channels, name)
		}
	}
	return arg, true
}
