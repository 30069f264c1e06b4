// Package mutate is the subcommand mutate: semantics-preserving rewrites of one Go program directory
// (consistent renaming, reordering of independent top-level declarations, dead code,
// and an unchanged copy as the control),
// written to a new directory, with a JSON report of renamed names and moved go statements.
package mutate

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

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

// Run is the mutate subcommand.
func Run(args []string) int {
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
