// The machinery the overlay passes share (perturbation, lock recording): reading the
// sources an existing overlay already replaces, writing rewritten copies and the runtime
// files of each package, parsing a file for a rewrite and finding the statement lists in it.

// Package overlay writes the go build -overlay copies collect builds instead of the user's
// files: the harness's (harness.go), schedule perturbation's (perturb.go) and lock
// recording's (locks.go). None moves a line; the user's tree is never written to.
package overlay

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// parseCommand parses a collect-* subcommand's arguments into flags, which must define
// -out; false (usage printed, exit code 2) when they are wrong or name no file.
func parseCommand(flags *flag.FlagSet, args []string, usage string) bool {
	if err := flags.Parse(args); err != nil {
		return false
	}
	if flags.Lookup("out").Value.String() == "" || flags.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gohelper "+flags.Name()+" "+usage)
		return false
	}
	return true
}

// reply ends a collect-* subcommand: err on stderr as "NAME: err" (exit code 1), or result
// as JSON on stdout (0).
func reply(flags *flag.FlagSet, result any, err error) int {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", flags.Name(), err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		return 1
	}
	return 0
}

// overlaySources reads an existing go build -overlay file (none: "") and the source of each
// file: its replacement in that overlay when it has one, so rewrites compose. The map
// returned holds the overlay's entries, for the rewrite to extend.
func overlaySources(overlayFile string, files []string) (map[string]string, [][]byte, error) {
	replace := map[string]string{}
	if overlayFile != "" {
		data, err := os.ReadFile(overlayFile)
		if err != nil {
			return nil, nil, err
		}
		var existing struct{ Replace map[string]string }
		if err := json.Unmarshal(data, &existing); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", overlayFile, err)
		}
		for k, v := range existing.Replace {
			replace[k] = v
		}
	}
	sources, err := replacedSources(replace, files)
	if err != nil {
		return nil, nil, err
	}
	return replace, sources, nil
}

// replacedSources reads the source of each file: its replacement in replace, if any.
func replacedSources(replace map[string]string, files []string) ([][]byte, error) {
	sources := make([][]byte, len(files))
	for i, file := range files {
		source := file
		if replaced, ok := replace[file]; ok {
			source = replaced
		}
		src, err := os.ReadFile(source)
		if err != nil {
			return nil, err
		}
		sources[i] = src
	}
	return sources, nil
}

// overlayPass is one overlay rewrite of a package's files (perturbation, lock recording).
type overlayPass struct {
	// copyPrefix starts the name of each rewritten copy in the output directory ("p" → p003_main.go).
	copyPrefix string
	// runtimeFile starts the names of the files added to each package (zz_schedlab_perturb).
	runtimeFile string
	// rewrite returns a file's rewritten source, its package name and whether anything was
	// inserted; a nil source leaves the file out (cgo), so its package gets no runtime from it.
	rewrite func(file string, src []byte) ([]byte, string, bool, error)
	// runtime is the files added to package pkg, asked once every file is rewritten.
	runtime func(pkg string) []addedFile
}

// addedFile is a file an overlay pass adds to a package.
type addedFile struct {
	suffix string // after the pass's runtimeFile in the file name ("": none)
	source string
}

// writeOverlayCopies applies pass to each file (sources[i] is the source of files[i]),
// writes the copies that changed and each package's runtime files into out, and adds
// them to replace.
func writeOverlayCopies(out string, replace map[string]string, files []string, sources [][]byte, pass overlayPass) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// The package clause of each package the files belong to, and whether it has
	// non-test files: the runtime goes into a file of each package.
	type pkgInfo struct {
		dir     string
		hasMain bool // a non-_test.go file declares the package
	}
	packages := map[string]*pkgInfo{}
	var order []string
	for i, file := range files {
		rewritten, name, changed, err := pass.rewrite(file, sources[i])
		if err != nil {
			return err
		}
		if rewritten == nil {
			continue // cgo
		}
		p, ok := packages[name]
		if !ok {
			p = &pkgInfo{dir: filepath.Dir(file)}
			packages[name] = p
			order = append(order, name)
		}
		if !strings.HasSuffix(file, "_test.go") {
			p.hasMain = true
		}
		if !changed {
			continue
		}
		target := filepath.Join(out, fmt.Sprintf("%s%03d_%s", pass.copyPrefix, i, filepath.Base(file)))
		if err := os.WriteFile(target, rewritten, 0o644); err != nil {
			return err
		}
		replace[file] = target
	}
	for _, name := range order {
		p := packages[name]
		for _, file := range pass.runtime(name) {
			// A package of test files only gets the runtime in a _test.go file, so a plain
			// build of the package never sees it; an external test package (x_test) likewise.
			base := pass.runtimeFile + file.suffix + ".go"
			if !p.hasMain {
				base = pass.runtimeFile + file.suffix + "_" + name + "_test.go"
			}
			target := filepath.Join(out, "rt_"+name+"_"+base)
			if err := os.WriteFile(target, []byte(file.source), 0o644); err != nil {
				return err
			}
			replace[filepath.Join(p.dir, base)] = target
		}
	}
	return nil
}

// parseForRewrite parses one file of a package for an overlay pass; cgo reports a file
// importing "C", which the passes leave alone (cgo copies cannot move directories).
func parseForRewrite(name string, src []byte) (fset *token.FileSet, f *ast.File, cgo bool, err error) {
	fset = token.NewFileSet()
	f, err = parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, false, err
	}
	for _, spec := range f.Imports {
		if strings.Trim(spec.Path.Value, "\"`") == "C" {
			return fset, f, true, nil
		}
	}
	return fset, f, false, nil
}

// statementList is the statement list n holds directly: a block's, a switch case's or a
// select case's body; nil for any other node.
func statementList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}

// unlabeled is the statement stmt labels, through any number of labels, or stmt itself.
func unlabeled(stmt ast.Stmt) ast.Stmt {
	for {
		labeled, ok := stmt.(*ast.LabeledStmt)
		if !ok {
			return stmt
		}
		stmt = labeled.Stmt
	}
}
