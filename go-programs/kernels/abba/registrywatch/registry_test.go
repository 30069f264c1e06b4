// Bug class: AB-BA deadlock between two objects. Registry.Register holds the
// registry lock while notifying each watcher (watcher lock); Watcher.Close holds the
// watcher lock while unregistering (registry lock). Both paths do slow work between
// the two locks, so the two goroutines deadlock on every schedule and the test,
// waiting for them, hangs.
package registrywatch

import (
	"sync"
	"testing"
	"time"
)

// Registry tracks services and tells watchers about new ones.
type Registry struct {
	mu       sync.Mutex
	services map[string]string
	watchers []*Watcher
}

// Watcher keeps the service names it has been told about.
type Watcher struct {
	mu   sync.Mutex
	seen []string
	reg  *Registry
}

func (r *Registry) Watch() *Watcher {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := &Watcher{reg: r}
	r.watchers = append(r.watchers, w)
	return w
}

// Register records a service and notifies every watcher while holding the registry lock.
func (r *Registry) Register(name, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.services[name] = addr
	time.Sleep(2 * time.Millisecond) // persist the registry snapshot
	for _, w := range r.watchers {
		w.notify(name)
	}
}

func (w *Watcher) notify(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, name)
}

// Close flushes the watcher and removes it from the registry, watcher lock first.
func (w *Watcher) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	time.Sleep(2 * time.Millisecond) // flush seen names to the log
	w.reg.remove(w)
}

func (r *Registry) remove(w *Watcher) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.watchers {
		if x == w {
			r.watchers = append(r.watchers[:i], r.watchers[i+1:]...)
			return
		}
	}
}

func TestRegisterWhileClosing(t *testing.T) {
	reg := &Registry{services: make(map[string]string)}
	w := reg.Watch()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		reg.Register("billing", "10.0.0.7:9000")
	}()
	go func() {
		defer wg.Done()
		w.Close()
	}()
	wg.Wait()
}
