package mongotest

import (
	"maps"
	"sync"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/readinglibrary/service/adapters/mongorepo"
)

// CommandCounter counts the commands a client sends, by command name, so a
// test can hold a repository method to a fixed number of round trips:
//
//	var c mongotest.CommandCounter
//	db := mongotest.NewDBWithMonitor(t, c.Monitor())
//	c.Reset()
//	_, _, _ = db.Repositories().Books.List(ctx, q)
//	if c.Total() != 2 { ... }
//
// Handshake, heartbeat and session upkeep (hello, isMaster, ping,
// endSessions, saslStart, saslContinue, buildInfo, getLastError, ...) are not
// counted. getMore and killCursors are: they are round trips too. The zero
// value is ready to use; it is safe for concurrent use.
type CommandCounter struct {
	mu     sync.Mutex
	byName map[string]int
}

// NewCommandCounter returns an empty counter (the zero value works too).
func NewCommandCounter() *CommandCounter { return &CommandCounter{} }

// Monitor returns a command monitor that feeds c.
func (c *CommandCounter) Monitor() *event.CommandMonitor { return mongorepo.CommandObserver(c.Observe) }

// Observe counts one command (or statement) by name.
func (c *CommandCounter) Observe(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil {
		c.byName = map[string]int{}
	}
	c.byName[name]++
}

// Reset forgets every command counted so far.
func (c *CommandCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byName)
}

// Total returns how many commands were counted since the last Reset.
func (c *CommandCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.byName {
		n += v
	}
	return n
}

// ByName returns a copy of the counts by command name ("find", "count",
// "aggregate", "insert", ...).
func (c *CommandCounter) ByName() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.byName))
	maps.Copy(out, c.byName)
	return out
}
