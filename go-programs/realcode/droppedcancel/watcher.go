// A change watcher that hands events to a handler from one goroutine until Close cancels
// its context; the cancel function lives only in the Watcher, so a dropped Watcher leaks it.
package droppedcancel

import "context"

// Watcher delivers the events passed to Notify to its handler, one at a time.
type Watcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	events chan string
	handle func(string)
}

// NewWatcher starts the delivery loop; callers must Close the watcher to stop it.
func NewWatcher(handle func(string)) *Watcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{ctx: ctx, cancel: cancel, events: make(chan string), handle: handle}
	go w.loop()
	return w
}

func (w *Watcher) loop() {
	for {
		select {
		case <-w.ctx.Done():
			return
		case ev := <-w.events:
			w.handle(ev)
		}
	}
}

// Notify hands ev to the delivery loop; it reports false once the watcher is closed.
func (w *Watcher) Notify(ev string) bool {
	select {
	case w.events <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// Close stops the delivery loop.
func (w *Watcher) Close() { w.cancel() }
