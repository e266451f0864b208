// Command agent leases tasks from a tidepool server for a runner that is not written in
// Python, runs them, and reports the outcome.
package main

import (
	"flag"
	"log"
	"time"
)

func main() {
	server := flag.String("server", "http://localhost:8080", "tidepool server URL")
	queue := flag.String("queue", "default", "queue to take tasks from")
	flag.Parse()

	client := NewClient(*server)
	for {
		lease, err := client.Take(*queue)
		if err != nil {
			log.Printf("take: %v", err)
			time.Sleep(time.Second)
			continue
		}
		stop := StartHeartbeat(client, lease, 10*time.Second)
		err = Run(lease.Task)
		stop()
		client.Finish(lease, err)
	}
}
