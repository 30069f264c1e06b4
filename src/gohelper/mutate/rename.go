// The rename mutation: consistent renaming of what each package declares, resolved by go/types.

package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/importer"
	"go/token"
	"go/types"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strings"
)

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
