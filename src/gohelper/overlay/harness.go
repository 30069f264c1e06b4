// Subcommand collect-overlay: writes the overlay copies that let the collect harness wrap
// a main package (its main renamed, the calls that end the process routed through the
// harness so the trace is stopped first), and, with -testmain, those that let the run agent
// wrap a test package's own TestMain (renamed, its file's exits routed through the agent so
// the end profile is taken first; src/collect/agent.ts).

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
	Replace map[string]string `json:"replace"`
	// MainFile declares the entry renamed (func main; with -testmain, TestMain: "" when no file does).
	MainFile string `json:"mainFile"`
	// Package is the package clause of MainFile (-testmain only: the agent joins that package).
	Package string `json:"package,omitempty"`
}

// exitRewrites maps (import path, selector) to the harness function replacing it:
// calls that end the process must stop the trace first or it is lost.
var exitRewrites = map[string]map[string]string{
	"os":  {"Exit": "schedlabHarnessExit"},
	"log": {"Fatal": "schedlabHarnessLogFatal", "Fatalf": "schedlabHarnessLogFatalf", "Fatalln": "schedlabHarnessLogFatalln"},
}

// agentExitRewrites are the run agent's: an exit from the package's own TestMain takes the
// end profile first.
var agentExitRewrites = map[string]map[string]string{
	"os":  {"Exit": "schedlabAgentExit"},
	"log": {"Fatal": "schedlabAgentLogFatal", "Fatalf": "schedlabAgentLogFatalf", "Fatalln": "schedlabAgentLogFatalln"},
}

// entryRewrite is what one rewrite does: which function it renames (and to what) and which
// calls it routes elsewhere; onlyEntryFile confines the routing to the file of the entry.
type entryRewrite struct {
	find          func(*ast.File) *ast.FuncDecl
	rename        string
	exits         map[string]map[string]string
	onlyEntryFile bool
}

// harnessRewrite wraps a main package's main for the collect harness.
var harnessRewrite = entryRewrite{find: scan.FindMain, rename: "schedlabUserMain", exits: exitRewrites}

// testMainRewrite wraps a test package's own TestMain for the run agent.
var testMainRewrite = entryRewrite{find: findTestMain, rename: "schedlabUserTestMain", exits: agentExitRewrites, onlyEntryFile: true}

// findTestMain returns f's `func TestMain(m *testing.M)`, or nil.
func findTestMain(f *ast.File) *ast.FuncDecl {
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "TestMain" && fn.Type.Params.NumFields() == 1 {
			return fn
		}
	}
	return nil
}

// RunHarness rewrites the files of one main package for the harness:
//   - in the file declaring `func main()`, the name becomes schedlabUserMain on the
//     same line (line numbers never move, so stack frames keep their positions);
//   - in every file, os.Exit and log.Fatal* become harness functions, on the same line;
//   - lines are only ever appended at the end of a file (`var _ = os.Exit` keeps an
//     import used after its last call was rewritten).
//
// With -testmain the files are a test package's (its _test.go files): only the file
// declaring TestMain is rewritten (renamed schedlabUserTestMain, os.Exit and log.Fatal* there
// becoming schedlabAgentExit…), and a package without TestMain yields no copy and no mainFile.
//
// Usage: collect-overlay [-testmain] -out DIR file.go...; prints an overlayResult.
func RunHarness(args []string) int {
	flags := flag.NewFlagSet("collect-overlay", flag.ContinueOnError)
	out := flags.String("out", "", "directory for the rewritten copies")
	testMain := flags.Bool("testmain", false, "wrap the package's own TestMain for the run agent instead of main for the harness")
	if !parseCommand(flags, args, "[-testmain] -out DIR file.go...") {
		return 2
	}
	rewrite := harnessRewrite
	if *testMain {
		rewrite = testMainRewrite
	}
	result, err := entryFiles(*out, flags.Args(), rewrite)
	if err == nil && result.MainFile == "" && !*testMain {
		err = fmt.Errorf("no file declares func main()")
	}
	return reply(flags, result, err)
}

// entryFiles rewrites files for rewrite into out.
func entryFiles(out string, files []string, rewrite entryRewrite) (*overlayResult, error) {
	result := &overlayResult{Replace: map[string]string{}}
	for i, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		rewritten, entry, err := rewriteEntryFile(file, src, rewrite)
		if err != nil {
			return nil, err
		}
		if entry != "" {
			result.MainFile, result.Package = file, entry
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
	if !rewrite.onlyEntryFile {
		result.Package = ""
	}
	return result, nil
}

// rewriteFile is the harness's rewrite of one file: the rewritten source (nil when nothing
// changes) and whether the file declares func main.
func rewriteFile(name string, src []byte) ([]byte, bool, error) {
	out, entry, err := rewriteEntryFile(name, src, harnessRewrite)
	return out, entry != "", err
}

// rewriteEntryFile returns the rewritten source (nil when nothing changes) and, when the
// file declares the entry rewrite renames, its package name ("" otherwise).
func rewriteEntryFile(name string, src []byte, rewrite entryRewrite) ([]byte, string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, "", err
	}
	var edits []srcedit.Edit
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	entry := ""
	entryDecl := rewrite.find(f)
	if entryDecl != nil {
		entry = f.Name.Name
		edits = append(edits, srcedit.Replace(offset(entryDecl.Name.Pos()), offset(entryDecl.Name.End()), rewrite.rename))
	} else if rewrite.onlyEntryFile {
		return nil, "", nil
	}
	// Local names of the imports whose exit functions are rewritten.
	locals := map[string]string{}
	for _, spec := range f.Imports {
		path := strings.Trim(spec.Path.Value, "\"`")
		if _, ok := rewrite.exits[path]; !ok {
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
		if replacement, ok := rewrite.exits[path][sel.Sel.Name]; ok {
			edits = append(edits, srcedit.Replace(offset(sel.Pos()), offset(sel.End()), replacement))
			used[x.Name] = sel.Sel.Name
		}
		return true
	})
	if len(edits) == 0 {
		return nil, entry, nil
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
	return out, entry, nil
}
