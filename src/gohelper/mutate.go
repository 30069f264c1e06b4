// Subcommand mutate: semantics-preserving rewrites of one Go program directory
// (consistent renaming, reordering of independent top-level declarations, dead code,
// and an unchanged copy as the control),
// written to a new directory, with a JSON report of renamed names and moved go statements.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func init() {
	register("mutate", runMutate)
}

// mutation is what `gohelper mutate` prints: the rewritten files, the identifier
// renames (old -> new, for package-level functions and types, which appear in
// creator names), and where each go statement moved ("file.go:OLD" -> "file.go:NEW").
type mutation struct {
	Kind    string            `json:"kind"`
	Seed    uint64            `json:"seed"`
	Files   []string          `json:"files"`
	Renamed map[string]string `json:"renamed"`
	Locals  int               `json:"renamedLocals"`
	Sites   map[string]string `json:"sites"`
	Moved   int               `json:"movedDecls"`
	Dead    int               `json:"deadBlocks"`
}

type sourceFile struct {
	name string
	src  []byte
	ast  *ast.File
}

func runMutate(args []string) int {
	flags := flag.NewFlagSet("mutate", flag.ContinueOnError)
	kind := flags.String("kind", "", "rename | reorder | deadcode | copy")
	seed := flags.Uint64("seed", 1, "seed of the pseudo-random choices")
	out := flags.String("out", "", "directory to write the variant into (created; must not exist or be empty)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 1 || *out == "" || (*kind != "rename" && *kind != "reorder" && *kind != "deadcode" && *kind != "copy") {
		fmt.Fprintln(os.Stderr, "usage: gohelper mutate --kind rename|reorder|deadcode|copy --seed S --out DIR SRCDIR")
		return 2
	}
	result, err := mutateDir(flags.Arg(0), *out, *kind, *seed)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutate: %v\n", err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "mutate: %v\n", err)
		return 1
	}
	return 0
}

func mutateDir(srcDir, outDir, kind string, seed uint64) (*mutation, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(srcDir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no .go files in %s", srcDir)
	}
	files := make([]*sourceFile, 0, len(names))
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, filepath.Base(name), src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse: %v", err)
		}
		files = append(files, &sourceFile{name: filepath.Base(name), src: src, ast: f})
	}
	random := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	result := &mutation{Kind: kind, Seed: seed, Renamed: map[string]string{}, Sites: map[string]string{}}
	before := goSites(fset, files)
	var rewritten map[string][]byte
	switch kind {
	case "rename":
		rewritten, err = renameIdentifiers(fset, files, random, result)
	case "reorder":
		rewritten, err = reorderDecls(fset, files, random, result)
	case "deadcode":
		rewritten, err = insertDeadCode(fset, files, random, result)
	case "copy":
		// the control: byte-identical sources, collected as a separate program, so its
		// flips measure schedule noise and nothing else
		rewritten = map[string][]byte{}
		for _, f := range files {
			rewritten[f.name] = f.src
		}
	}
	if err != nil {
		return nil, err
	}
	after := token.NewFileSet()
	reparsed := make([]*sourceFile, 0, len(files))
	for _, f := range files {
		src := rewritten[f.name]
		parsed, err := parser.ParseFile(after, f.name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("rewritten %s does not parse: %v", f.name, err)
		}
		reparsed = append(reparsed, &sourceFile{name: f.name, src: src, ast: parsed})
	}
	moved := goSites(after, reparsed)
	for key, old := range before {
		newKey := key
		if kind == "rename" {
			newKey = renameKey(key, result.Renamed)
		}
		if site, ok := moved[newKey]; ok {
			result.Sites[old] = site
		} else {
			return nil, fmt.Errorf("go statement at %s has no counterpart in the variant", old)
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range reparsed {
		if err := os.WriteFile(filepath.Join(outDir, f.name), f.src, 0o644); err != nil {
			return nil, err
		}
		result.Files = append(result.Files, f.name)
	}
	return result, nil
}

// goSites maps each go statement, keyed by file, enclosing top-level declaration and
// ordinal within it, to "file.go:LINE". The key survives reordering and dead code
// (neither adds go statements), so matching keys before and after gives the new line.
func goSites(fset *token.FileSet, files []*sourceFile) map[string]string {
	sites := map[string]string{}
	for _, f := range files {
		for _, decl := range f.ast.Decls {
			n := 0
			key := declKey(decl)
			ast.Inspect(decl, func(node ast.Node) bool {
				if g, ok := node.(*ast.GoStmt); ok {
					sites[fmt.Sprintf("%s|%s|%d", f.name, key, n)] = fmt.Sprintf("%s:%d", f.name, fset.Position(g.Pos()).Line)
					n++
				}
				return true
			})
		}
	}
	return sites
}

// declKey names a top-level declaration: "func:Recv.Name" or "gen:firstName"; the
// parts are identifiers so a rename maps keys with renameKey.
func declKey(decl ast.Decl) string {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		recv := ""
		if d.Recv != nil && len(d.Recv.List) > 0 {
			recv = receiverTypeName(d.Recv.List[0].Type) + "."
		}
		return "func:" + recv + d.Name.Name
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				return "gen:" + s.Name.Name
			case *ast.ValueSpec:
				if len(s.Names) > 0 {
					return "gen:" + s.Names[0].Name
				}
			}
		}
	}
	return "other"
}

func receiverTypeName(expr ast.Expr) string {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return receiverTypeName(e.X)
	case *ast.IndexExpr:
		return receiverTypeName(e.X)
	case *ast.IndexListExpr:
		return receiverTypeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

func renameKey(key string, renamed map[string]string) string {
	parts := strings.SplitN(key, "|", 3)
	kindAndNames := strings.SplitN(parts[1], ":", 2)
	names := strings.Split(kindAndNames[1], ".")
	for i, n := range names {
		if r, ok := renamed[n]; ok {
			names[i] = r
		}
	}
	return parts[0] + "|" + kindAndNames[0] + ":" + strings.Join(names, ".") + "|" + parts[2]
}

// freshNames hands out identifiers that occur nowhere in the program, so a renamed
// or inserted name can neither capture nor be captured by an existing one.
type freshNames struct {
	taken  map[string]bool
	random *rand.Rand
}

func newFreshNames(files []*sourceFile, random *rand.Rand) *freshNames {
	taken := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f.ast, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				taken[id.Name] = true
			}
			return true
		})
	}
	return &freshNames{taken: taken, random: random}
}

func (f *freshNames) next(prefix string) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	for {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; i < 5; i++ {
			b.WriteByte(letters[f.random.IntN(len(letters))])
		}
		name := b.String()
		if !f.taken[name] && token.Lookup(name) == token.IDENT {
			f.taken[name] = true
			return name
		}
	}
}

// renameIdentifiers renames, consistently over every file of each package, the
// functions, types, variables, constants and parameters the package declares itself,
// using go/types so every use resolves to the right declaration. Never renamed:
// methods and interface methods (they may satisfy interfaces), struct fields, labels,
// imported names, blank identifiers, main, init, Test/Benchmark/Example/Fuzz functions
// and TestMain, exported package-level names outside package main (another package
// or an external test may use them), types embedded as fields (the field name is the
// type name), and type-switch symbols.
func renameIdentifiers(fset *token.FileSet, files []*sourceFile, random *rand.Rand, result *mutation) (map[string][]byte, error) {
	ensureGoroot()
	fresh := newFreshNames(files, random)
	byPackage := map[string][]*sourceFile{}
	for _, f := range files {
		byPackage[f.ast.Name.Name] = append(byPackage[f.ast.Name.Name], f)
	}
	packages := make([]string, 0, len(byPackage))
	for name := range byPackage {
		packages = append(packages, name)
	}
	sort.Strings(packages)
	for _, name := range packages {
		group := byPackage[name]
		asts := make([]*ast.File, len(group))
		for i, f := range group {
			asts[i] = f.ast
		}
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Implicits: map[ast.Node]types.Object{}}
		var typeErrors []string
		config := types.Config{Importer: importer.ForCompiler(fset, "gc", nil), Error: func(err error) { typeErrors = append(typeErrors, err.Error()) }}
		pkg, _ := config.Check(name, fset, asts, info)
		if len(typeErrors) > 0 {
			return nil, fmt.Errorf("package %s does not type-check, so renaming cannot be made safe: %s", name, typeErrors[0])
		}
		embedded := map[types.Object]bool{}
		for _, obj := range info.Defs {
			if v, ok := obj.(*types.Var); ok && v.IsField() && v.Embedded() {
				t := v.Type()
				if p, ok := t.(*types.Pointer); ok {
					t = p.Elem()
				}
				if named, ok := t.(*types.Named); ok {
					embedded[named.Obj()] = true
				}
			}
		}
		implicit := map[types.Object]bool{}
		for _, obj := range info.Implicits {
			implicit[obj] = true
		}
		idents := make([]*ast.Ident, 0, len(info.Defs))
		for id := range info.Defs {
			idents = append(idents, id)
		}
		sort.Slice(idents, func(i, j int) bool { return idents[i].Pos() < idents[j].Pos() })
		plan := map[types.Object]string{}
		for _, id := range idents {
			obj := info.Defs[id]
			if obj == nil || obj.Pkg() != pkg || implicit[obj] || embedded[obj] || !renamable(obj, pkg, name) {
				continue
			}
			if _, done := plan[obj]; done {
				continue
			}
			plan[obj] = fresh.next("x")
			if obj.Parent() == pkg.Scope() {
				result.Renamed[obj.Name()] = plan[obj]
			} else {
				result.Locals++
			}
		}
		for id, obj := range info.Defs {
			if n, ok := plan[obj]; ok {
				id.Name = n
			}
		}
		for id, obj := range info.Uses {
			if n, ok := plan[obj]; ok {
				id.Name = n
			}
		}
	}
	out := map[string][]byte{}
	for _, f := range files {
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, f.ast); err != nil {
			return nil, err
		}
		out[f.name] = buf.Bytes()
	}
	return out, nil
}

func renamable(obj types.Object, pkg *types.Package, pkgName string) bool {
	name := obj.Name()
	if name == "_" || name == "main" || name == "init" {
		return false
	}
	switch o := obj.(type) {
	case *types.Func:
		if o.Type().(*types.Signature).Recv() != nil {
			return false
		}
		for _, prefix := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
			if strings.HasPrefix(name, prefix) {
				return false
			}
		}
	case *types.Var:
		if o.IsField() {
			return false
		}
	case *types.TypeName:
		if o.IsAlias() {
			return true
		}
		if _, isParam := o.Type().(*types.TypeParam); isParam {
			return true
		}
	case *types.Const:
	default:
		return false // labels, package names, builtins
	}
	if obj.Parent() == pkg.Scope() && obj.Exported() && pkgName != "main" {
		return false
	}
	return true
}

// topLevel is one top-level declaration with the source it owns: from the end of the
// previous declaration (so its doc and any free comments before it come along) to its end.
type topLevel struct {
	text    []byte
	movable bool
}

// reorderDecls permutes the movable top-level declarations of each file: functions
// other than init, and type and const declarations. Imports, var declarations (whose
// initialisation order can depend on textual order) and init functions (which run in
// textual order) keep their slots.
func reorderDecls(fset *token.FileSet, files []*sourceFile, random *rand.Rand, result *mutation) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, f := range files {
		tok := fset.File(f.ast.Pos())
		// imports come first in a Go file; everything up to the last one stays put
		start := tok.Offset(f.ast.Name.End())
		var decls []topLevel
		for _, decl := range f.ast.Decls {
			end := tok.Offset(decl.End())
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				start = end
				continue
			}
			decls = append(decls, topLevel{text: f.src[start:end], movable: isMovable(decl)})
			start = end
		}
		header := f.src[:tok.Offset(f.ast.Name.End())]
		if len(f.ast.Imports) > 0 {
			for _, decl := range f.ast.Decls {
				if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
					header = f.src[:tok.Offset(g.End())]
				}
			}
		}
		trailer := f.src[start:]
		slots := []int{}
		for i, d := range decls {
			if d.movable {
				slots = append(slots, i)
			}
		}
		order := append([]int(nil), slots...)
		random.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		reordered := append([]topLevel(nil), decls...)
		for k, slot := range slots {
			reordered[slot] = decls[order[k]]
			if order[k] != slot {
				result.Moved++
			}
		}
		var buf bytes.Buffer
		buf.Write(header)
		for _, d := range reordered {
			buf.WriteString("\n\n")
			buf.Write(bytes.TrimLeft(d.text, "\n"))
		}
		buf.Write(trailer)
		formatted, err := format.Source(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("reordered %s does not format: %v", f.name, err)
		}
		out[f.name] = formatted
	}
	return out, nil
}

func isMovable(decl ast.Decl) bool {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		return !(d.Recv == nil && d.Name.Name == "init")
	case *ast.GenDecl:
		return d.Tok == token.TYPE || d.Tok == token.CONST
	}
	return false
}

// insertDeadCode puts an `if false { … }` block at the top of about half the function
// bodies (at least one per file that has functions) and appends one never-called
// helper function per file. Names are fresh, so nothing is shadowed.
func insertDeadCode(fset *token.FileSet, files []*sourceFile, random *rand.Rand, result *mutation) (map[string][]byte, error) {
	fresh := newFreshNames(files, random)
	out := map[string][]byte{}
	for _, f := range files {
		tok := fset.File(f.ast.Pos())
		type insertion struct {
			offset int
			text   string
		}
		var inserts []insertion
		var bodies []*ast.BlockStmt
		for _, decl := range f.ast.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				bodies = append(bodies, fn.Body)
			}
		}
		for i, body := range bodies {
			if random.IntN(2) == 0 && !(i == len(bodies)-1 && len(inserts) == 0) {
				continue
			}
			v := fresh.next("dead")
			text := fmt.Sprintf("\nif false {\n%s := 0\nfor %s < %d {\n%s++\n}\n_ = %s\n}\n", v, v, 2+random.IntN(5), v, v)
			inserts = append(inserts, insertion{offset: tok.Offset(body.Lbrace) + 1, text: text})
			result.Dead++
		}
		helper := fresh.next("dead")
		acc := fresh.next("dead")
		inserts = append(inserts, insertion{offset: len(f.src), text: fmt.Sprintf("\n// %s is never called: dead code inserted by schedlab mutate.\nfunc %s(n int) int {\n%s := 0\nfor i := 0; i < n; i++ {\n%s += i * %d\n}\nreturn %s\n}\n", helper, helper, acc, acc, 1+random.IntN(9), acc)})
		result.Dead++
		var buf bytes.Buffer
		last := 0
		for _, ins := range inserts {
			buf.Write(f.src[last:ins.offset])
			buf.WriteString(ins.text)
			last = ins.offset
		}
		buf.Write(f.src[last:])
		formatted, err := format.Source(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("dead code in %s does not format: %v", f.name, err)
		}
		out[f.name] = formatted
	}
	return out, nil
}

// ensureGoroot lets the importer find the standard library: the helper is built with
// -trimpath, so it knows no GOROOT of its own; ask the go command on PATH.
func ensureGoroot() {
	if build.Default.GOROOT != "" {
		return
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		build.Default.GOROOT = strings.TrimSpace(string(out))
	}
}
