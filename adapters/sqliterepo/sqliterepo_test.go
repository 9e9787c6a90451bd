package sqliterepo_test

import (
	"testing"

	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/porttest"
)

func TestRepositories(t *testing.T) {
	porttest.Repositories(t, func(t *testing.T) ports.Repositories {
		return sqlitetest.NewDB(t).Repositories()
	})
}

func TestCatalog(t *testing.T) {
	porttest.Catalog(t, func(t *testing.T) ports.Repositories {
		return sqlitetest.NewDB(t).Repositories()
	})
}

func TestLibrary(t *testing.T) {
	newRepos := func(t *testing.T) ports.Repositories { return sqlitetest.NewDB(t).Repositories() }
	t.Run("Holdings", func(t *testing.T) { porttest.Holdings(t, newRepos) })
	t.Run("HoldingsImports", func(t *testing.T) { porttest.HoldingsImports(t, newRepos) })
	t.Run("Loans", func(t *testing.T) { porttest.Loans(t, newRepos) })
	t.Run("Reports", func(t *testing.T) { porttest.Reports(t, newRepos) })
	t.Run("Charges", func(t *testing.T) { porttest.Charges(t, newRepos) })
	t.Run("Stocktakes", func(t *testing.T) { porttest.Stocktakes(t, newRepos) })
	t.Run("ImportJobs", func(t *testing.T) { porttest.ImportJobs(t, newRepos) })
	t.Run("ActiveLoans", func(t *testing.T) { porttest.ActiveLoans(t, newRepos) })
	t.Run("Students", func(t *testing.T) { porttest.Students(t, newRepos) })
	t.Run("Departures", func(t *testing.T) { porttest.Departures(t, newRepos) })
	t.Run("Notices", func(t *testing.T) { porttest.Notices(t, newRepos) })
	t.Run("Invites", func(t *testing.T) { porttest.Invites(t, newRepos) })
	t.Run("Holds", func(t *testing.T) { porttest.Holds(t, newRepos) })
}

func TestExternalIdentities(t *testing.T) {
	porttest.ExternalIdentities(t, func(t *testing.T) ports.Repositories { return sqlitetest.NewDB(t).Repositories() })
}

func TestMailTokens(t *testing.T) {
	porttest.MailTokens(t, func(t *testing.T) ports.Repositories { return sqlitetest.NewDB(t).Repositories() })
}
