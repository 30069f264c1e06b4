// Subcommand collect-overlay: writes the overlay copies that let the collect harness wrap
// a main package (its main renamed, the calls that end the process routed through the
// harness so the trace is stopped first).

package overlay

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"schedlab.dev/gohelper/scan"
	"schedlab.dev/gohelper/srcedit"
)

type overlayResult struct {
	// Replace maps an original file to its rewritten copy (go build -overlay format).
	Replace  map[string]string `json:"replace"`
	MainFile string            `json:"mainFile"`
}

// exitRewrites maps (import path, selector) to the harness function replacing it:
// calls that end the process must stop the trace first or it is lost.
var exitRewrites = map[string]map[string]string{
	"os":  {"Exit": "schedlabHarnessExit"},
	"log": {"Fatal": "schedlabHarnessLogFatal", "Fatalf": "schedlabHarnessLogFatalf", "Fatalln": "schedlabHarnessLogFatalln"},
}

// RunHarness rewrites the files of one main package for the harness:
//   - in the file declaring `func main()`, the name becomes schedlabUserMain on the
//     same line (line numbers never move, so stack frames keep their positions);
//   - in every file, os.Exit and log.Fatal* become harness functions, on the same line;
//   - lines are only ever appended at the end of a file (`var _ = os.Exit` keeps an
//     import used after its last call was rewritten).
//
// Usage: collect-overlay -out DIR file.go...; prints an overlayResult.
func RunHarness(args []string) int {
	flags := flag.NewFlagSet("collect-overlay", flag.ContinueOnError)
	out := flags.String("out", "", "directory for the rewritten copies")
	if !parseCommand(flags, args, "-out DIR file.go...") {
		return 2
	}
	result, err := harnessFiles(*out, flags.Args())
	return reply(flags, result, err)
}

// harnessFiles rewrites files for the harness into out.
func harnessFiles(out string, files []string) (*overlayResult, error) {
	result := &overlayResult{Replace: map[string]string{}}
	for i, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		rewritten, isMain, err := rewriteFile(file, src)
		if err != nil {
			return nil, err
		}
		if isMain {
			result.MainFile = file
		}
		if rewritten == nil {
			continue
		}
		target := filepath.Join(out, fmt.Sprintf("%03d_%s", i, filepath.Base(file)))
		if err := os.WriteFile(target, rewritten, 0o644); err != nil {
			return nil, err
		}
		result.Replace[file] = target
	}
	if result.MainFile == "" {
		return nil, fmt.Errorf("no file declares func main()")
	}
	return result, nil
}

// rewriteFile returns the rewritten source (nil when nothing changes) and whether
// the file declares func main.
func rewriteFile(name string, src []byte) ([]byte, bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, false, err
	}
	var edits []srcedit.Edit
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	mainDecl := scan.FindMain(f)
	if mainDecl != nil {
		edits = append(edits, srcedit.Replace(offset(mainDecl.Name.Pos()), offset(mainDecl.Name.End()), "schedlabUserMain"))
	}
	// Local names of the imports whose exit functions are rewritten.
	locals := map[string]string{}
	for _, spec := range f.Imports {
		path := strings.Trim(spec.Path.Value, "\"`")
		if _, ok := exitRewrites[path]; !ok {
			continue
		}
		local := path
		if spec.Name != nil {
			local = spec.Name.Name
		}
		if local != "_" && local != "." {
			locals[local] = path
		}
	}
	used := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		// x.Obj != nil means a local declaration shadows the import.
		if !ok || x.Obj != nil {
			return true
		}
		path, ok := locals[x.Name]
		if !ok {
			return true
		}
		if replacement, ok := exitRewrites[path][sel.Sel.Name]; ok {
			edits = append(edits, srcedit.Replace(offset(sel.Pos()), offset(sel.End()), replacement))
			used[x.Name] = sel.Sel.Name
		}
		return true
	})
	if len(edits) == 0 {
		return nil, mainDecl != nil, nil
	}
	out := srcedit.Apply(src, edits)
	var trailer bytes.Buffer
	locs := make([]string, 0, len(used))
	for local := range used {
		locs = append(locs, local)
	}
	sort.Strings(locs)
	for _, local := range locs {
		fmt.Fprintf(&trailer, "\nvar _ = %s.%s\n", local, used[local])
	}
	if trailer.Len() > 0 {
		out = append(out, trailer.Bytes()...)
	}
	return out, mainDecl != nil, nil
}
