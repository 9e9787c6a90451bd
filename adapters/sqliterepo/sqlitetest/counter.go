package sqlitetest

import "github.com/readinglibrary/service/ports/porttest"

// StatementCounter counts the statements the repositories run, by name;
// pass its Observe to sqliterepo.WithStatementObserver.
type StatementCounter = porttest.Counter
