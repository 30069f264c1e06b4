// Subcommand collect-scan: finds the Go packages below a directory for `schedlab collect`
// (honouring build constraints, as `go list` does), with each package's main function and
// the tests and examples `go test` would run.

// Package scan holds the static scans of Go sources: the packages below a directory
// (collect-scan, this file), concurrency counts (staticfeatures.go), and the wait sites,
// channel operations and channel classes (waitsites.go, chanflow.go).
package scan

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// scannedPackage is one directory with buildable Go files. Paths are absolute.
type scannedPackage struct {
	Root         string   `json:"root"`
	Dir          string   `json:"dir"`
	Name         string   `json:"name"`
	GoFiles      []string `json:"goFiles"`
	TestGoFiles  []string `json:"testGoFiles"`
	XTestGoFiles []string `json:"xTestGoFiles"`
	HasMain      bool     `json:"hasMain"`
	Tests        []string `json:"tests"`
	Error        string   `json:"error,omitempty"`
	// Skipped: why the package is not a program here though it has Go files (its files
	// need cgo, which is off); collect lists it with the reason instead of dropping it.
	Skipped string `json:"skipped,omitempty"`
}

type scanResult struct {
	Packages []scannedPackage `json:"packages"`
}

// scanOptions are collect-scan's flags, mirroring `go test`: -tags selects files by
// build constraints; -run and -skip select the tests and examples listed, with the
// testing package's matching of top-level names (see topLevelMatcher).
type scanOptions struct {
	tags    []string
	matcher *topLevelMatcher
	// cgo: whether cgo is on for the builds (go env CGO_ENABLED): files that import "C" are
	// then part of their package, as go build and go test take them.
	cgo bool
}

// RunPackages walks each root (skipping vendor, testdata, node_modules, hidden and
// _-prefixed directories) and prints one JSON scanResult. Directories without Go
// files are left out; directories whose files cannot be read are listed with Error.
//
// Usage: collect-scan [-tags a,b] [-run RE] [-skip RE] [-single] root...; with -single
// each root is one package directory (resolved by `go list`), not walked.
func RunPackages(args []string) int {
	flags := flag.NewFlagSet("collect-scan", flag.ContinueOnError)
	tags := flags.String("tags", "", "comma-separated build tags")
	run := flags.String("run", "", "list only the tests and examples matching this regexp (go test -run)")
	skip := flags.String("skip", "", "leave out the tests and examples matching this regexp (go test -skip)")
	single := flags.Bool("single", false, "each argument is one package directory, not a tree")
	cgo := flags.Bool("cgo", build.Default.CgoEnabled, "cgo is on (go env CGO_ENABLED=1): files importing \"C\" belong to their package")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	matcher, err := newTopLevelMatcher(*run, *skip)
	if err != nil {
		fmt.Fprintf(os.Stderr, "collect-scan: %v\n", err)
		return 2
	}
	opts := scanOptions{matcher: matcher, cgo: *cgo}
	for _, tag := range strings.Split(*tags, ",") {
		if tag = strings.TrimSpace(tag); tag != "" {
			opts.tags = append(opts.tags, tag)
		}
	}
	var result scanResult
	for _, root := range flags.Args() {
		if *single {
			if pkg, ok := scanDir(root, opts); ok {
				pkg.Root = root
				result.Packages = append(result.Packages, pkg)
			}
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			name := d.Name()
			if path != root && (name == "vendor" || name == "testdata" || name == "node_modules" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if pkg, ok := scanDir(path, opts); ok {
				pkg.Root = root
				result.Packages = append(result.Packages, pkg)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "collect-scan: %v\n", err)
			return 1
		}
	}
	if result.Packages == nil {
		result.Packages = []scannedPackage{}
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		fmt.Fprintf(os.Stderr, "collect-scan: %v\n", err)
		return 1
	}
	return 0
}

// scanDir reads one directory. A file that does not parse does not hide its program: the
// package still counts as a main package or a test package when its text shows a
// `func main()` or `func TestXxx(` (textualMain, textualTests), with Error set, so
// collect records the compiler's message as a build error instead of skipping it.
func scanDir(dir string, opts scanOptions) (scannedPackage, bool) {
	abs, _ := filepath.Abs(dir)
	pkg := scannedPackage{Dir: abs, GoFiles: []string{}, TestGoFiles: []string{}, XTestGoFiles: []string{}, Tests: []string{}}
	ctxt := build.Default
	ctxt.BuildTags = append(append([]string{}, ctxt.BuildTags...), opts.tags...)
	ctxt.CgoEnabled = opts.cgo
	bp, err := ctxt.ImportDir(abs, 0)
	if err != nil {
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			// Files left out only because they need cgo: a program go build could build with cgo on, listed with why.
			if !opts.cgo && bp != nil && importsC(abs, bp.IgnoredGoFiles) {
				pkg.Skipped = `its Go files use cgo (import "C") and cgo is off: set CGO_ENABLED=1 and install a C compiler (gcc or clang), as go build and go test need`
				return pkg, true
			}
			return pkg, false
		}
		pkg.Error = err.Error()
		if bp == nil || (len(bp.GoFiles) == 0 && len(bp.TestGoFiles) == 0 && len(bp.XTestGoFiles) == 0) {
			// Not even the package clauses could be read: go by file names.
			bp = filesByName(abs)
		}
	}
	pkg.Name = bp.Name
	// cgo files are the package's own when cgo is on (go/build lists them apart).
	pkg.GoFiles = joinAll(abs, append(append([]string{}, bp.GoFiles...), bp.CgoFiles...))
	pkg.TestGoFiles = joinAll(abs, bp.TestGoFiles)
	pkg.XTestGoFiles = joinAll(abs, bp.XTestGoFiles)
	fset := token.NewFileSet()
	noteError := func(err error) {
		if pkg.Error == "" {
			pkg.Error = err.Error()
		}
	}
	if bp.Name == "main" || bp.Name == "" {
		for _, file := range pkg.GoFiles {
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			switch {
			case err == nil:
				if bp.Name == "main" && FindMain(f) != nil {
					pkg.HasMain = true
				}
			case textualMain(file):
				noteError(err)
				pkg.HasMain = true
			default:
				noteError(err)
			}
		}
	}
	seen := map[string]bool{}
	for _, file := range append(append([]string{}, pkg.TestGoFiles...), pkg.XTestGoFiles...) {
		names := []string{}
		// Comments: an example runs only with an output comment.
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			noteError(err)
			names = textualTests(file)
		} else {
			names = append(testFunctions(f), exampleFunctions(f)...)
		}
		for _, name := range names {
			if !opts.matcher.matches(name) {
				continue
			}
			if !seen[name] {
				seen[name] = true
				pkg.Tests = append(pkg.Tests, name)
			}
		}
	}
	sort.Strings(pkg.Tests)
	if !pkg.HasMain && len(pkg.Tests) == 0 && !opts.cgo && importsC(abs, bp.IgnoredGoFiles) {
		pkg.Skipped = `its main or tests are in files that use cgo (import "C") and cgo is off: set CGO_ENABLED=1 and install a C compiler (gcc or clang), as go build and go test need`
	}
	return pkg, true
}

// importsC reports whether any of the files (names in dir) imports "C": cgo code.
func importsC(dir string, names []string) bool {
	fset := token.NewFileSet()
	for _, name := range names {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if spec.Path.Value == `"C"` {
				return true
			}
		}
	}
	return false
}

// filesByName lists a directory's .go files when go/build could not read them: _test.go
// files as tests, the others as the package's files (no build constraints applied).
func filesByName(dir string) *build.Package {
	bp := &build.Package{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		if strings.HasSuffix(name, "_test.go") {
			bp.TestGoFiles = append(bp.TestGoFiles, name)
		} else {
			bp.GoFiles = append(bp.GoFiles, name)
		}
	}
	return bp
}

var (
	textualMainPattern = regexp.MustCompile(`(?m)^func\s+main\s*\(\s*\)`)
	textualTestPattern = regexp.MustCompile(`(?m)^func\s+(Test[^a-z(\s][\w]*|Test)\s*\(`)
)

// textualMain reports whether the text of a file that does not parse declares func main.
func textualMain(file string) bool {
	src, err := os.ReadFile(file)
	return err == nil && textualMainPattern.Match(src)
}

// textualTests returns the TestXxx names the text of a file that does not parse declares.
func textualTests(file string) []string {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var names []string
	for _, m := range textualTestPattern.FindAllSubmatch(src, -1) {
		if name := string(m[1]); name != "TestMain" {
			names = append(names, name)
		}
	}
	return names
}

func joinAll(dir string, names []string) []string {
	out := make([]string, 0, len(names))
	for _, name := range names {
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// FindMain returns the package-level `func main()` declaration of f, or nil.
func FindMain(f *ast.File) *ast.FuncDecl {
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "main" && fn.Type.Params.NumFields() == 0 {
			return fn
		}
	}
	return nil
}

// testFunctions returns the names of f's `func TestXxx(t *testing.T)` functions, the
// ones `go test` runs (Xxx must not start with a lower-case letter).
func testFunctions(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
			continue
		}
		if rest := fn.Name.Name[4:]; rest != "" {
			if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
				continue
			}
		}
		params := fn.Type.Params.List
		if len(params) != 1 || len(params[0].Names) > 1 {
			continue
		}
		star, ok := params[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "T" {
			names = append(names, fn.Name.Name)
		}
	}
	return names
}

// exampleFunctions returns the names of f's Example functions that `go test` runs: those
// with an output comment (`// Output:` or `// Unordered output:`, even empty), found by
// go/doc as cmd/go finds them. Examples without one are compiled, never run.
func exampleFunctions(f *ast.File) []string {
	var names []string
	for _, ex := range doc.Examples(f) {
		if ex.Output != "" || ex.EmptyOutput {
			names = append(names, "Example"+ex.Name)
		}
	}
	return names
}

// topLevelMatcher decides which top-level tests and examples `go test -run RUN -skip SKIP`
// runs, as the testing package does (testing/match.go): each pattern is split into
// alternatives at unbracketed '|' and each alternative into elements at unbracketed '/';
// a top-level name is selected when an alternative's first element of -run matches it
// (unanchored), and skipped when the first -skip alternative whose first element matches
// it has no further element (a longer one skips subtests only).
type topLevelMatcher struct {
	run, skip [][]*regexp.Regexp
}

func newTopLevelMatcher(run, skip string) (*topLevelMatcher, error) {
	m := &topLevelMatcher{}
	var err error
	if run != "" {
		if m.run, err = compileTestPattern("-run", run); err != nil {
			return nil, err
		}
	}
	if skip != "" {
		if m.skip, err = compileTestPattern("-skip", skip); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *topLevelMatcher) matches(name string) bool {
	if m.run != nil {
		if ok, _ := firstAlternative(m.run, name); !ok {
			return false
		}
	}
	if m.skip != nil {
		// A partial match (more elements than the name has) does not skip: only subtests may.
		if ok, partial := firstAlternative(m.skip, name); ok && !partial {
			return false
		}
	}
	return true
}

// firstAlternative is testing's alternationMatch.matches for a top-level name: the first
// alternative whose first element matches decides, partial when it has more elements.
func firstAlternative(alternatives [][]*regexp.Regexp, name string) (ok, partial bool) {
	for _, elems := range alternatives {
		if elems[0].MatchString(name) {
			return true, len(elems) > 1
		}
	}
	return false, false
}

// compileTestPattern splits a -run/-skip pattern as testing.splitRegexp does and compiles
// each element; an invalid element is an error naming the flag, as go test reports it.
func compileTestPattern(flagName, pattern string) ([][]*regexp.Regexp, error) {
	var alternatives [][]*regexp.Regexp
	for _, alt := range splitTestPattern(pattern) {
		var elems []*regexp.Regexp
		for _, elem := range alt {
			re, err := regexp.Compile(elem)
			if err != nil {
				return nil, fmt.Errorf("invalid regexp for %s element %q: %v", flagName, elem, err)
			}
			elems = append(elems, re)
		}
		alternatives = append(alternatives, elems)
	}
	return alternatives, nil
}

// splitTestPattern is testing.splitRegexp: alternatives at '|' and elements at '/',
// neither inside brackets or parentheses nor escaped.
func splitTestPattern(s string) [][]string {
	var alternatives [][]string
	var elems []string
	cs := 0
	cp := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 {
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/':
			if cs == 0 && cp == 0 {
				elems = append(elems, s[:i])
				s = s[i+1:]
				i = 0
				continue
			}
		case '|':
			if cs == 0 && cp == 0 {
				elems = append(elems, s[:i])
				alternatives = append(alternatives, elems)
				elems = nil
				s = s[i+1:]
				i = 0
				continue
			}
		}
		i++
	}
	elems = append(elems, s)
	return append(alternatives, elems)
}
