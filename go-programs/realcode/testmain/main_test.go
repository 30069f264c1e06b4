// TestMain starts a janitor that sweeps the shared cache on a ticker for the whole test
// binary and is never stopped, as many packages do for process-wide state.
package testmain

import (
	"os"
	"testing"
	"time"
)

var shared = NewCache(5 * time.Millisecond)

func TestMain(m *testing.M) {
	go janitor(shared, 3*time.Millisecond)
	os.Exit(m.Run())
}

func janitor(c *Cache, every time.Duration) {
	ticker := time.NewTicker(every)
	for now := range ticker.C {
		c.Sweep(now)
	}
}

func TestSharedCacheExpires(t *testing.T) {
	shared.Set("session", "s-1")
	if v, ok := shared.Get("session"); !ok || v != "s-1" {
		t.Fatalf("Get = %q, %v", v, ok)
	}
	time.Sleep(15 * time.Millisecond)
	if _, ok := shared.Get("session"); ok {
		t.Fatal("session did not expire")
	}
}
