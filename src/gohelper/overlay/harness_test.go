// Tests of the harness rewrite (harness.go): main renamed and the calls that end the process
// routed through the harness, on their own lines, with a trailer that keeps the imports used.
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
