// The reorder mutation: a permutation of the movable top-level declarations of each file.

package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"math/rand/v2"
)

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
