package porttest

import (
	"maps"
	"sync"
)

// Counter counts the round trips a store makes, by name: the statements of
// the SQLite store (sqliterepo.WithStatementObserver) or the commands of the
// MongoDB store (mongorepo.CommandObserver), so a test can hold a request to
// a fixed number of them on either store:
//
//	var c porttest.Counter
//	db := sqlitetest.NewDB(t, sqliterepo.WithStatementObserver(c.Observe))
//	c.Reset()
//	_, _, _ = db.Repositories().Books.List(ctx, q)
//	if c.Total() != 2 { ... }
//
// The zero value is ready to use; it is safe for concurrent use.
type Counter struct {
	mu     sync.Mutex
	byName map[string]int
}

// Observe counts one round trip of the given name.
func (c *Counter) Observe(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil {
		c.byName = map[string]int{}
	}
	c.byName[name]++
}

// Reset forgets everything counted so far.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byName)
}

// Total is how many were counted since the last Reset.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.byName {
		n += v
	}
	return n
}

// ByName is a copy of the counts by name.
func (c *Counter) ByName() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.byName)
}
