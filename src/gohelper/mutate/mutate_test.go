// Tests of mutation: each kind rewrites a small program into one that builds and prints
// what the original prints, reports its renames and where each go statement moved, and is
// the same for the same seed; copy is byte-identical.
package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const mutateSample = `package main

import "fmt"

var order []string

func init() { order = append(order, "init") }

const limit = 3

type counter struct{ n int }

func (c *counter) add(k int) { c.n += k }

// worker sends its squares.
func worker(id int, out chan<- int) {
	for i := 0; i < limit; i++ {
		out <- id * i * i
	}
	close(out)
}

func sum(ch <-chan int) int {
	total := 0
	for v := range ch {
		total += v
	}
	return total
}

func main() {
	a, b := make(chan int), make(chan int)
	go worker(2, a)
	go func() { worker(3, b) }()
	var c counter
	c.add(sum(a))
	c.add(sum(b))
	fmt.Println(order, c.n)
}
`

// mutateSampleOutput is what mutateSample prints: 2*(0+1+4) + 3*(0+1+4).
const mutateSampleOutput = "[init] 25\n"

func writeSample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(mutateSample), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mutateSampleWith(t *testing.T, kind string, seed uint64) (*mutation, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "variant")
	result, err := mutateDir(writeSample(t), out, kind, seed)
	if err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	variant, err := os.ReadFile(filepath.Join(out, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	return result, string(variant)
}

// checkSites checks that the sample's two go statements (lines 33 and 34) map to lines of
// the variant that hold a go statement.
func checkSites(t *testing.T, result *mutation, variant string) {
	t.Helper()
	lines := strings.Split(variant, "\n")
	if len(result.Sites) != 2 || result.Sites["main.go:33"] == "" || result.Sites["main.go:34"] == "" {
		t.Fatalf("%s: sites %v, want main.go:33 and main.go:34", result.Kind, result.Sites)
	}
	for old, site := range result.Sites {
		n, err := strconv.Atoi(strings.TrimPrefix(site, "main.go:"))
		if err != nil || n < 1 || n > len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[n-1]), "go ") {
			t.Errorf("%s: %s moved to %s, which holds no go statement", result.Kind, old, site)
		}
	}
}

// runVariant builds and runs the variant in a module of its own and returns its output.
func runVariant(t *testing.T, variant string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/variant\n\ngo 1.22\n", "main.go": variant} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, out, variant)
	}
	return string(out)
}

func TestRenameRenamesWhatThePackageDeclaresConsistently(t *testing.T) {
	result, variant := mutateSampleWith(t, "rename", 7)
	renamedWorker := result.Renamed["worker"]
	if renamedWorker == "" || result.Renamed["sum"] == "" || result.Renamed["counter"] == "" || result.Renamed["limit"] == "" {
		t.Fatalf("package-level renames %v, want worker, sum, counter and limit", result.Renamed)
	}
	for _, kept := range []string{"main", "init", "add"} {
		if _, ok := result.Renamed[kept]; ok {
			t.Errorf("%s was renamed: %v", kept, result.Renamed)
		}
	}
	if result.Locals == 0 {
		t.Error("no local was renamed")
	}
	if strings.Contains(variant, "worker(") || !strings.Contains(variant, "go "+renamedWorker+"(2, ") ||
		!strings.Contains(variant, " *"+result.Renamed["counter"]+") add(") {
		t.Errorf("the variant does not use the new names everywhere:\n%s", variant)
	}
	checkSites(t, result, variant)
	if !testing.Short() {
		if out := runVariant(t, variant); out != mutateSampleOutput {
			t.Errorf("the renamed program prints %q, want %q", out, mutateSampleOutput)
		}
	}
}

func TestReorderMovesDeclarationsButNotInitOrVars(t *testing.T) {
	result, variant := mutateSampleWith(t, "reorder", 3)
	if result.Moved == 0 {
		t.Fatalf("seed 3 moved nothing:\n%s", variant)
	}
	if variant == mutateSample {
		t.Fatal("the variant is the original")
	}
	// var order and init keep their slots: the first two declarations after the import.
	decls := declarationLines(variant)
	if len(decls) < 2 || decls[0] != "var order []string" || !strings.HasPrefix(decls[1], "func init()") {
		t.Errorf("the first declarations are %q, want var order then init", decls)
	}
	if !strings.Contains(variant, "// worker sends its squares.\nfunc worker(") {
		t.Error("the doc comment did not move with its function")
	}
	checkSites(t, result, variant)
	if !testing.Short() {
		if out := runVariant(t, variant); out != mutateSampleOutput {
			t.Errorf("the reordered program prints %q, want %q", out, mutateSampleOutput)
		}
	}
}

func declarationLines(src string) []string {
	var decls []string
	for _, line := range strings.Split(src, "\n") {
		for _, start := range []string{"func ", "var ", "const ", "type "} {
			if strings.HasPrefix(line, start) {
				decls = append(decls, line)
			}
		}
	}
	return decls
}

func TestDeadCodeAddsBlocksThatNeverRun(t *testing.T) {
	result, variant := mutateSampleWith(t, "deadcode", 5)
	if result.Dead < 2 || strings.Count(variant, "if false {") != result.Dead-1 {
		t.Fatalf("dead %d, if-false blocks %d:\n%s", result.Dead, strings.Count(variant, "if false {"), variant)
	}
	if !strings.Contains(variant, "is never called: dead code inserted by schedlab mutate.") {
		t.Error("no never-called function")
	}
	checkSites(t, result, variant)
	if !testing.Short() {
		if out := runVariant(t, variant); out != mutateSampleOutput {
			t.Errorf("the program with dead code prints %q, want %q", out, mutateSampleOutput)
		}
	}
}

func TestCopyIsByteIdentical(t *testing.T) {
	result, variant := mutateSampleWith(t, "copy", 1)
	if variant != mutateSample || result.Sites["main.go:33"] != "main.go:33" || len(result.Renamed) != 0 {
		t.Errorf("copy: %+v\n%s", result, variant)
	}
}

func TestTheSameSeedGivesTheSameVariant(t *testing.T) {
	for _, kind := range []string{"rename", "reorder", "deadcode"} {
		_, first := mutateSampleWith(t, kind, 11)
		_, second := mutateSampleWith(t, kind, 11)
		if first != second {
			t.Errorf("%s with seed 11 gave two variants", kind)
		}
	}
}

func TestMutateRefusesADirectoryWithoutGoFiles(t *testing.T) {
	if _, err := mutateDir(t.TempDir(), filepath.Join(t.TempDir(), "out"), "copy", 1); err == nil || !strings.Contains(err.Error(), "no .go files") {
		t.Errorf("err = %v, want no .go files", err)
	}
}
