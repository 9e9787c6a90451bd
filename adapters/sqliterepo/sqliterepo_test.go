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
