package sqliterepo

import (
	"testing"

	"github.com/readinglibrary/service/ports"
)

// TestRegisterRefusesADuplicate checks that two entity files cannot claim
// the same record kind.
func TestRegisterRefusesADuplicate(t *testing.T) {
	before := len(entities)
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("register accepted a second handling of %q", ports.KindSchools)
			}
		}()
		register(entity{records: map[ports.RecordKind]records{ports.KindSchools: nil}})
	}()
	if len(entities) != before {
		t.Fatalf("a refused entity was added to the registry")
	}
}
