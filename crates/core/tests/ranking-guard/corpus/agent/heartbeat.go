package main

import (
	"errors"
	"log"
	"time"
)

// StartHeartbeat renews the lease every interval until the returned stop function is
// called or the lease is lost; a lost lease ends the heartbeat.
func StartHeartbeat(c *Client, l *Lease, interval time.Duration) (stop func()) {
	done := make(chan struct{})
	ticker := time.NewTicker(interval)
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				if err := renewLease(c, l); err != nil {
					if errors.Is(err, ErrLeaseLost) {
						log.Printf("heartbeat: lease of task %s lost", l.Task.ID)
						return
					}
					log.Printf("heartbeat: %v", err)
				}
			}
		}
	}()
	return func() { close(done) }
}
