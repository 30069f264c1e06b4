// Package srcedit is the one byte-offset editor of Go sources: the overlay rewrites (the
// harness's renames, perturbation, lock recording) and mutation's dead code all describe
// their change as edits at offsets of the original source and apply them here.
package srcedit

import (
	"fmt"
	"sort"
)

// Edit replaces src[Start:End] with Text; Start == End inserts Text at Start.
type Edit struct {
	Start, End int
	Text       string
}

// Insert is the edit that puts text at offset, removing nothing.
func Insert(offset int, text string) Edit {
	return Edit{Start: offset, End: offset, Text: text}
}

// Replace is the edit that puts text in place of src[start:end].
func Replace(start, end int, text string) Edit {
	return Edit{Start: start, End: end, Text: text}
}

// Apply returns a new source with every edit made; src is not changed. Edits are
// ordered by Start; edits at one offset keep the order given, so insertions there appear
// in that order. Edits must not overlap (a replacement's range holds no other edit's
// Start, except an insertion at its End): Apply panics if they do, as that is a bug of
// the rewrite that made them. Insertions alone never move a line when their text has no
// newline.
func Apply(src []byte, edits []Edit) []byte {
	sorted := append([]Edit{}, edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	size := len(src)
	for _, e := range sorted {
		size += len(e.Text) - (e.End - e.Start)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(src) {
			panic(fmt.Sprintf("srcedit: edit [%d,%d) overlaps an earlier one or leaves the source (at %d of %d)", e.Start, e.End, at, len(src)))
		}
		out = append(out, src[at:e.Start]...)
		out = append(out, e.Text...)
		at = e.End
	}
	return append(out, src[at:]...)
}
