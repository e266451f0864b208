package main

import (
	"errors"
	"sync"
	"time"
)

// ErrLeaseLost is returned when the server no longer holds the lease for this agent.
var ErrLeaseLost = errors.New("lease lost")

// Lease is the agent's claim on a task until Expires.
type Lease struct {
	mu       sync.Mutex
	Task     Task
	Token    string
	Expires  time.Time
	released bool
}

// renewLease extends the lease on the server; it panics when called on a lease that was
// already released, which is a bug in the caller.
func renewLease(c *Client, l *Lease) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		panic("lease: renew called on released lease")
	}
	expires, err := c.Renew(l.Task.ID, l.Token)
	if err != nil {
		return err
	}
	l.Expires = expires
	return nil
}

// Release gives the task back without finishing it.
func (l *Lease) Release() {
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
}
