// The deadcode mutation: never-taken blocks and never-called functions, inserted with the source editor.

package mutate

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"math/rand/v2"

	"schedlab.dev/gohelper/srcedit"
)

// insertDeadCode puts an `if false { … }` block at the top of about half the function
// bodies (at least one per file that has functions) and appends one never-called
// helper function per file. Names are fresh, so nothing is shadowed.
func insertDeadCode(fset *token.FileSet, files []*sourceFile, random *rand.Rand, result *mutation) (map[string][]byte, error) {
	fresh := newFreshNames(files, random)
	out := map[string][]byte{}
	for _, f := range files {
		tok := fset.File(f.ast.Pos())
		var inserts []srcedit.Edit
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
			inserts = append(inserts, srcedit.Insert(tok.Offset(body.Lbrace)+1, text))
			result.Dead++
		}
		helper := fresh.next("dead")
		acc := fresh.next("dead")
		deadFunc := "\n// %s is never called: dead code inserted by schedlab mutate.\n" +
			"func %s(n int) int {\n%s := 0\nfor i := 0; i < n; i++ {\n%s += i * %d\n}\nreturn %s\n}\n"
		inserts = append(inserts, srcedit.Insert(len(f.src), fmt.Sprintf(deadFunc, helper, helper, acc, acc, 1+random.IntN(9), acc)))
		result.Dead++
		formatted, err := format.Source(srcedit.Apply(f.src, inserts))
		if err != nil {
			return nil, fmt.Errorf("dead code in %s does not format: %v", f.name, err)
		}
		out[f.name] = formatted
	}
	return out, nil
}
