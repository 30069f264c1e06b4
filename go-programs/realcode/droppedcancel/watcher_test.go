// TestWatcherDelivers uses a watcher and drops it without Close: its loop waits on a
// context nobody can cancel any more and on an events channel nobody else holds.
package droppedcancel

import "testing"

func TestWatcherDelivers(t *testing.T) {
	seen := make(chan string, 2)
	w := NewWatcher(func(ev string) { seen <- ev }) // Bug: no defer w.Close()
	for _, ev := range []string{"create config.yaml", "write config.yaml"} {
		if !w.Notify(ev) {
			t.Fatalf("watcher closed before %q", ev)
		}
	}
	if first, second := <-seen, <-seen; first != "create config.yaml" || second != "write config.yaml" {
		t.Fatalf("events = %q, %q", first, second)
	}
}
