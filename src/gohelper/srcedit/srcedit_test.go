// Tests of the source editor: insertions at one offset keep their order, replacements and
// insertions mix, the source is not changed, and overlapping edits are refused.
package srcedit

import (
	"strings"
	"testing"
)

func TestApplyKeepsTheGivenOrderAtOneOffset(t *testing.T) {
	got := string(Apply([]byte("ab\ncd"), []Edit{Insert(4, "[2]"), Insert(1, "[0]"), Insert(4, "[3]"), Insert(0, "[x]"), Insert(5, "[end]")}))
	if got != "[x]a[0]b\nc[2][3]d[end]" {
		t.Fatalf("%q", got)
	}
}

func TestApplyReplacesAndInsertsWithoutTouchingTheSource(t *testing.T) {
	src := []byte("func main() { os.Exit(1) }")
	edits := []Edit{
		Replace(14, 21, "schedlabHarnessExit"), // os.Exit
		Replace(5, 9, "schedlabUserMain"),      // main
		Insert(len(src), "\nvar _ = os.Exit\n"),
		Insert(21, ""), // an empty insertion at a replacement's end is no overlap
	}
	got := string(Apply(src, edits))
	if want := "func schedlabUserMain() { schedlabHarnessExit(1) }\nvar _ = os.Exit\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if string(src) != "func main() { os.Exit(1) }" {
		t.Fatalf("the source was changed: %q", src)
	}
	if got := string(Apply(src, nil)); got != string(src) {
		t.Fatalf("no edits: %q", got)
	}
}

func TestApplyRefusesOverlappingEdits(t *testing.T) {
	for _, edits := range [][]Edit{
		{Replace(0, 4, "x"), Replace(2, 6, "y")},
		{Replace(0, 4, "x"), Insert(2, "y")},
		{Insert(9, "x")},
		{Replace(3, 2, "x")},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "srcedit:") {
					t.Errorf("edits %v: recovered %v, want a srcedit panic", edits, r)
				}
			}()
			Apply([]byte("abcdefgh"), edits)
		}()
	}
}
