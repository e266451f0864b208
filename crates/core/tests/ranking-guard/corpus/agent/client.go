package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Task is what a lease carries.
type Task struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Payload json.RawMessage `json:"payload"`
}

// Client talks to the tidepool server's HTTP API.
type Client struct {
	base string
	http *http.Client
}

func NewClient(base string) *Client {
	return &Client{base: base, http: &http.Client{Timeout: 30 * time.Second}}
}

func (c *Client) post(path string, in, out any) error {
	body, _ := json.Marshal(in)
	resp, err := c.http.Post(c.base+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusGone {
		return ErrLeaseLost
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func (c *Client) Take(queue string) (*Lease, error) {
	var l Lease
	err := c.post("/api/v2/queues/"+queue+"/take", nil, &l)
	return &l, err
}

func (c *Client) Renew(id, token string) (time.Time, error) {
	var out struct{ Expires time.Time }
	err := c.post("/api/v2/tasks/"+id+"/renew", map[string]string{"token": token}, &out)
	return out.Expires, err
}

func (c *Client) Finish(l *Lease, runErr error) {
	status := map[string]string{"token": l.Token}
	if runErr != nil {
		status["error"] = runErr.Error()
	}
	_ = c.post("/api/v2/tasks/"+l.Task.ID+"/finish", status, &struct{}{})
}

// Run executes a task's command.
func Run(t Task) error { return nil }
