package mongorepo

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/event"
)

// upkeepCommands are the driver's own connection and session upkeep, not
// commands a repository method sends.
var upkeepCommands = map[string]bool{
	"hello":        true,
	"isMaster":     true,
	"ismaster":     true,
	"ping":         true,
	"endSessions":  true,
	"saslStart":    true,
	"saslContinue": true,
	"authenticate": true,
	"getnonce":     true,
	"buildInfo":    true,
	"buildinfo":    true,
	"getLastError": true,
}

// CommandObserver returns a command monitor that calls f with the name of
// every command the repositories send ("find", "insert", "aggregate",
// "getMore", ...), leaving out handshakes, heartbeats and session upkeep,
// so a test can hold a request to a fixed number of round trips.
func CommandObserver(f func(name string)) *event.CommandMonitor {
	return &event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if !upkeepCommands[e.CommandName] {
				f(e.CommandName)
			}
		},
	}
}
