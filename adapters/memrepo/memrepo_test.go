package memrepo_test

import (
	"testing"

	"github.com/readinglibrary/service/adapters/memrepo"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/porttest"
)

func TestRepositories(t *testing.T) {
	porttest.Repositories(t, func(*testing.T) ports.Repositories { return memrepo.New() })
}

func TestCatalog(t *testing.T) {
	porttest.Catalog(t, func(*testing.T) ports.Repositories { return memrepo.New() })
}

func TestLibrary(t *testing.T) {
	porttest.Library(t, func(*testing.T) ports.Repositories { return memrepo.New() })
}
