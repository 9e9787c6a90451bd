package sqliterepo_test

import (
	"testing"

	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/porttest"
)

// TestContracts runs every contract suite of the store ports
// (ports/porttest) on fresh databases of this adapter.
func TestContracts(t *testing.T) {
	porttest.All(t, func(t *testing.T) ports.Repositories { return sqlitetest.NewDB(t).Repositories() })
}
