// Tests of the harness rewrite (harness.go): main renamed and the calls that end the process
// routed through the harness, on their own lines, with a trailer that keeps the imports used;
// and of the run agent's -testmain rewrite of a package's own TestMain and its file's exits.
package overlay

import (
	"strings"
	"testing"
)

const harnessSample = `package main

import (
	"log"
	xos "os"
)

func main() {
	if len(xos.Args) > 3 {
		xos.Exit(3)
	}
	log.Fatalf("bad %d", 1)
}

func shadowed() {
	log := struct{ Fatal func(...any) }{}
	log.Fatal("not the package")
}
`

func TestRewriteFileRenamesMainAndRoutesExitsThroughTheHarness(t *testing.T) {
	out, isMain, err := rewriteFile("main.go", []byte(harnessSample))
	if err != nil || !isMain {
		t.Fatalf("rewriteFile: main %v, err %v", isMain, err)
	}
	want := strings.Replace(harnessSample, "func main()", "func schedlabUserMain()", 1)
	want = strings.Replace(want, "xos.Exit(3)", "schedlabHarnessExit(3)", 1)
	want = strings.Replace(want, `log.Fatalf("bad`, `schedlabHarnessLogFatalf("bad`, 1)
	want += "\nvar _ = log.Fatalf\n\nvar _ = xos.Exit\n"
	if string(out) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
}

func TestRewriteFileLeavesAFileWithNothingToRewrite(t *testing.T) {
	out, isMain, err := rewriteFile("util.go", []byte("package main\n\nfunc helper() int { return 1 }\n"))
	if err != nil || isMain || out != nil {
		t.Errorf("rewriteFile = %q, %v, %v; want nil, false, nil", out, isMain, err)
	}
}

const testMainSample = `package store_test

import (
	"log"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv("SKIP") != "" {
		log.Fatalln("skipped")
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

func cleanup() {}
`

func TestTestMainRewriteRenamesTestMainAndRoutesItsFileExitsThroughTheAgent(t *testing.T) {
	out, pkg, err := rewriteEntryFile("main_test.go", []byte(testMainSample), testMainRewrite)
	if err != nil || pkg != "store_test" {
		t.Fatalf("rewriteEntryFile: package %q, err %v", pkg, err)
	}
	want := strings.Replace(testMainSample, "func TestMain(", "func schedlabUserTestMain(", 1)
	want = strings.Replace(want, `log.Fatalln("skipped")`, `schedlabAgentLogFatalln("skipped")`, 1)
	want = strings.Replace(want, "os.Exit(code)", "schedlabAgentExit(code)", 1)
	want += "\nvar _ = log.Fatalln\n\nvar _ = os.Exit\n"
	if string(out) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
}

func TestTestMainRewriteLeavesOtherFilesAlone(t *testing.T) {
	src := "package store\n\nimport \"os\"\n\nfunc quit() { os.Exit(1) }\n"
	out, pkg, err := rewriteEntryFile("util_test.go", []byte(src), testMainRewrite)
	if err != nil || pkg != "" || out != nil {
		t.Errorf("rewriteEntryFile = %q, %q, %v; want nil, \"\", nil", out, pkg, err)
	}
}
