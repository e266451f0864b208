package main

import (
	"context"
	"log"
	"time"
)

// Pool runs several leased tasks at once, each with its own heartbeat.
type Pool struct {
	client   *Client
	queue    string
	size     int
	interval time.Duration
}

func NewPool(c *Client, queue string, size int) *Pool {
	return &Pool{client: c, queue: queue, size: size, interval: 10 * time.Second}
}

// Run takes tasks until ctx is done; every task keeps its lease alive with StartHeartbeat
// and gives it back with renewLease's counterpart when the pool stops early.
func (p *Pool) Run(ctx context.Context) {
	slots := make(chan struct{}, p.size)
	for ctx.Err() == nil {
		slots <- struct{}{}
		lease, err := p.client.Take(p.queue)
		if err != nil {
			<-slots
			log.Printf("pool: take: %v", err)
			time.Sleep(time.Second)
			continue
		}
		go func(l *Lease) {
			defer func() { <-slots }()
			stop := StartHeartbeat(p.client, l, p.interval)
			defer stop()
			if ctx.Err() != nil {
				l.Release()
				return
			}
			p.client.Finish(l, Run(l.Task))
		}(lease)
	}
}
