package mongotest

import (
	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/ports/porttest"
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
// Handshake, heartbeat and session upkeep are not counted (see
// mongorepo.CommandObserver); getMore and killCursors are: they are round
// trips too. The zero value is ready to use; it is safe for concurrent use.
type CommandCounter struct {
	porttest.Counter
}

// NewCommandCounter returns an empty counter (the zero value works too).
func NewCommandCounter() *CommandCounter { return &CommandCounter{} }

// Monitor returns a command monitor that feeds c.
func (c *CommandCounter) Monitor() *event.CommandMonitor { return mongorepo.CommandObserver(c.Observe) }
