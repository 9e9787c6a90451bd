package test

import (
	"maps"
	"sync"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// queryCounter counts the statements (SQLite) or commands (MongoDB) the
// service sends to its store, by name, so a test can hold a request to a
// fixed number of round trips on either store.
type queryCounter struct {
	mu     sync.Mutex
	byName map[string]int
}

// Option wires the counter into the service.
func (c *queryCounter) Option() app.Option {
	return app.WithStatementObserver(func(name string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.byName == nil {
			c.byName = map[string]int{}
		}
		c.byName[name]++
	})
}

// Reset forgets everything counted so far.
func (c *queryCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byName)
}

// Total is how many were counted since the last Reset.
func (c *queryCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.byName {
		n += v
	}
	return n
}

// ByName is a copy of the counts by statement or command name.
func (c *queryCounter) ByName() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.byName)
}
