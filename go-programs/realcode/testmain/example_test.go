// The example subscribes a logger to the cache's change feed and returns; the logger
// waits on the feed for ever, since nothing publishes on it.
package testmain

import (
	"fmt"
	"time"
)

func ExampleCache() {
	c := NewCache(time.Minute)
	subscribed := make(chan struct{})
	go func() {
		close(subscribed)
		for key := range c.Updates() { // Bug: blocks for ever, the feed never gets a value
			fmt.Println("updated", key)
		}
	}()
	<-subscribed
	c.Set("region", "eu-west")
	v, _ := c.Get("region")
	fmt.Println(v)
	// Output: eu-west
}
