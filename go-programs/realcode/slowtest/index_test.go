// About 0.6 s of work: 96 documents, 4 workers, 25 ms per document.
package slowtest

import (
	"fmt"
	"testing"
	"time"
)

func TestIndexLargeCorpus(t *testing.T) {
	docs := make([]string, 96)
	for i := range docs {
		docs[i] = fmt.Sprintf("alpha beta doc%d", i%8)
	}
	total := Index(docs, 4, 25*time.Millisecond)
	if total["alpha"] != 96 || total["doc3"] != 12 {
		t.Fatalf("alpha=%d doc3=%d", total["alpha"], total["doc3"])
	}
}
