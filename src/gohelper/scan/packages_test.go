package scan

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

const packagesTest = `package lib

import "testing"

func TestAlpha(t *testing.T)      {}
func TestBeta(t *testing.T)       {}
func TestBetaSub(t *testing.T)    {}
func Testlower(t *testing.T)      {}
func TestMain(m *testing.M)       {}
func TestWrongArgs(t *testing.B)  {}
func BenchmarkX(b *testing.B)     {}
func helper(t *testing.T)         {}

func ExampleRun() {
	// Output: ran
}

func ExampleCompiledOnly() {}

func ExampleEmpty() {
	// Output:
}
`

func names(pkg scannedPackage) []string {
	out := append([]string{}, pkg.Tests...)
	sort.Strings(out)
	return out
}

func TestScanDirListsWhatGoTestRuns(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"lib.go":      "package lib\n\nfunc F() {}\n",
		"lib_test.go": packagesTest,
		"ext_test.go": "package lib_test\n\nimport \"testing\"\n\nfunc TestExternal(t *testing.T) {}\n",
		"linux.go":    "//go:build never\n\npackage lib\n",
	})
	matcher, _ := newTopLevelMatcher("", "")
	pkg, ok := scanDir(dir, scanOptions{matcher: matcher})
	if !ok {
		t.Fatal("scanDir: a directory with Go files was left out")
	}
	want := []string{"ExampleEmpty", "ExampleRun", "TestAlpha", "TestBeta", "TestBetaSub", "TestExternal"}
	if got := names(pkg); !reflect.DeepEqual(got, want) {
		t.Errorf("tests: got %v, want %v", got, want)
	}
	if pkg.Name != "lib" || pkg.HasMain || pkg.Error != "" {
		t.Errorf("want package lib without main or error, got %+v", pkg)
	}
	// The file excluded by its build constraint is not among the package's files.
	if len(pkg.GoFiles) != 1 || filepath.Base(pkg.GoFiles[0]) != "lib.go" {
		t.Errorf("go files: got %v, want [lib.go]", pkg.GoFiles)
	}
	if len(pkg.XTestGoFiles) != 1 || len(pkg.TestGoFiles) != 1 {
		t.Errorf("want one test file and one external test file, got %v and %v", pkg.TestGoFiles, pkg.XTestGoFiles)
	}
}

func TestScanDirTags(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"main.go":       "package main\n\nfunc main() {}\n",
		"slow_test.go":  "//go:build integration\n\npackage main\n\nimport \"testing\"\n\nfunc TestSlow(t *testing.T) {}\n",
		"quick_test.go": "package main\n\nimport \"testing\"\n\nfunc TestQuick(t *testing.T) {}\n",
	})
	matcher, _ := newTopLevelMatcher("", "")
	plain, _ := scanDir(dir, scanOptions{matcher: matcher})
	tagged, _ := scanDir(dir, scanOptions{matcher: matcher, tags: []string{"integration"}})
	if got := names(plain); !reflect.DeepEqual(got, []string{"TestQuick"}) {
		t.Errorf("without tags: got %v", got)
	}
	if got := names(tagged); !reflect.DeepEqual(got, []string{"TestQuick", "TestSlow"}) {
		t.Errorf("with -tags integration: got %v", got)
	}
	if !plain.HasMain {
		t.Error("a main package with func main: HasMain should be true")
	}
}

func TestScanDirUnparsableFilesStillCount(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"main.go":      "package main\n\nfunc main() {\n\tbroken(\n}\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestStill(t *testing.T) {\n",
	})
	matcher, _ := newTopLevelMatcher("", "")
	pkg, ok := scanDir(dir, scanOptions{matcher: matcher})
	if !ok || !pkg.HasMain || pkg.Error == "" {
		t.Fatalf("want a main package with its parse error, got ok=%v %+v", ok, pkg)
	}
	if got := names(pkg); !reflect.DeepEqual(got, []string{"TestStill"}) {
		t.Errorf("tests read from the text: got %v", got)
	}
}

func TestScanDirWithoutGoFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("no Go here"), 0o644); err != nil {
		t.Fatal(err)
	}
	matcher, _ := newTopLevelMatcher("", "")
	if _, ok := scanDir(dir, scanOptions{matcher: matcher}); ok {
		t.Error("a directory without Go files should be left out")
	}
}

func TestTopLevelMatcher(t *testing.T) {
	tests := []struct {
		run, skip string
		name      string
		want      bool
	}{
		{"", "", "TestA", true},
		{"A", "", "TestA", true},
		{"^TestA$", "", "TestAB", false},
		{"TestA|TestB", "", "TestB", true},
		// Only the first element of -run selects top-level tests; the rest selects subtests.
		{"TestA/sub", "", "TestA", true},
		{"TestA/sub", "", "TestB", false},
		// A bracketed '|' or '/' does not split.
		{"Test[|/]X", "", "Test|X", true},
		{"(A|B)/x", "", "TestB", true},
		{"", "TestA", "TestA", false},
		{"", "TestA", "TestB", true},
		// A -skip with a subtest element skips subtests only.
		{"", "TestA/sub", "TestA", true},
		{"Test", "Beta", "TestBeta", false},
	}
	for _, tc := range tests {
		m, err := newTopLevelMatcher(tc.run, tc.skip)
		if err != nil {
			t.Fatalf("-run %q -skip %q: %v", tc.run, tc.skip, err)
		}
		if got := m.matches(tc.name); got != tc.want {
			t.Errorf("-run %q -skip %q, %s: got %v, want %v", tc.run, tc.skip, tc.name, got, tc.want)
		}
	}
	if _, err := newTopLevelMatcher("Test(", ""); err == nil {
		t.Error("an invalid -run regexp should be an error")
	}
}

func TestSplitTestPattern(t *testing.T) {
	tests := map[string][][]string{
		"A":         {{"A"}},
		"A|B":       {{"A"}, {"B"}},
		"A/b|C":     {{"A", "b"}, {"C"}},
		`A\/b`:      {{`A\/b`}},
		"[/|]x":     {{"[/|]x"}},
		"(a|b)/c|d": {{"(a|b)", "c"}, {"d"}},
	}
	for pattern, want := range tests {
		if got := splitTestPattern(pattern); !reflect.DeepEqual(got, want) {
			t.Errorf("splitTestPattern(%q) = %v, want %v", pattern, got, want)
		}
	}
}
