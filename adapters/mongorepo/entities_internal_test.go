package mongorepo

import (
	"testing"

	"github.com/readinglibrary/service/ports"
)

// TestRegisterRefusesADuplicate checks that two entity files cannot claim
// the same collection or record kind.
func TestRegisterRefusesADuplicate(t *testing.T) {
	before := len(entities)
	for name, e := range map[string]entity{
		"collection":  {collections: []collection{{colSchools, nil}}},
		"record kind": {records: map[ports.RecordKind]records{ports.KindSchools: nil}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register accepted a second %s", name)
				}
			}()
			register(e)
		}()
	}
	if len(entities) != before {
		t.Fatalf("a refused entity was added to the entities")
	}
}

// TestExpiringKindsHaveARegisteredCollection checks that every kind the
// expiry sweep deletes, and every collection deleted with it, is a
// registered collection.
func TestExpiringKindsHaveARegisteredCollection(t *testing.T) {
	names := map[string]bool{}
	for _, c := range collections() {
		names[c.name] = true
	}
	for _, k := range expiringKinds() {
		for _, c := range append([]string{k.collection}, k.dependents...) {
			if !names[c] {
				t.Errorf("expiring kind %s: collection %q is not registered", k.name, c)
			}
		}
	}
	if len(expiringKinds()) == 0 {
		t.Fatal("no expiring kinds are registered")
	}
}
