package porttest

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/readinglibrary/service/ports"
)

// suite is one contract suite of the store ports, run on fresh
// repositories from newRepos.
type suite struct {
	name string
	run  func(t *testing.T, newRepos func(t *testing.T) ports.Repositories)
}

// suites holds every registered contract suite, in the order Go
// initialises the package's files (by file name).
var suites []suite

// register adds a contract suite. Each suite's file registers its own, so
// a new entity's suite runs on every store without a change to the
// adapters' tests. A name registered twice is a bug, caught when the
// package initialises.
func register(name string, run func(t *testing.T, newRepos func(t *testing.T) ports.Repositories)) struct{} {
	for _, s := range suites {
		if s.name == name {
			panic(fmt.Sprintf("porttest: suite %q registered twice", name))
		}
	}
	suites = append(suites, suite{name: name, run: run})
	return struct{}{}
}

// All runs every registered contract suite, each as a subtest named after
// it (TestContracts/Holds/QueuePages), on fresh repositories from newRepos.
// Every adapter's tests call it; Transfer, which needs a record store too,
// is run on its own.
func All(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	t.Helper()
	if len(suites) == 0 {
		t.Fatal("porttest: no contract suite is registered")
	}
	t.Run("EveryRepository", func(t *testing.T) { everyRepository(t, newRepos(t)) })
	for _, s := range suites {
		t.Run(s.name, func(t *testing.T) { s.run(t, newRepos) })
	}
}

// everyRepository checks that the adapter builds every repository: an
// entity whose file forgot to register its repository would leave a use
// case a nil port.
func everyRepository(t *testing.T, r ports.Repositories) {
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		if v.Field(i).IsNil() {
			t.Errorf("ports.Repositories.%s is nil: the adapter builds no repository for it", v.Type().Field(i).Name)
		}
	}
}
