package sqlitetest

import (
	"maps"
	"sync"
)

// StatementCounter counts the statements the repositories run, by name, so
// a test can hold a request to a fixed number of statements (as
// mongotest.CommandCounter does with MongoDB commands):
//
//	var c sqlitetest.StatementCounter
//	db := sqlitetest.NewDB(t, sqliterepo.WithStatementObserver(c.Observe))
//	c.Reset()
//	_, _, _ = db.Repositories().Books.List(ctx, q)
//	if c.Total() != 2 { ... }
//
// The zero value is ready to use; it is safe for concurrent use.
type StatementCounter struct {
	mu     sync.Mutex
	byName map[string]int
}

// Observe counts one statement; pass it to sqliterepo.WithStatementObserver.
func (c *StatementCounter) Observe(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil {
		c.byName = map[string]int{}
	}
	c.byName[name]++
}

// Reset forgets every statement counted so far.
func (c *StatementCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byName)
}

// Total returns how many statements were counted since the last Reset.
func (c *StatementCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.byName {
		n += v
	}
	return n
}

// ByName returns a copy of the counts by statement name ("books.get",
// "books.list[terms,title]", ...).
func (c *StatementCounter) ByName() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.byName))
	maps.Copy(out, c.byName)
	return out
}
