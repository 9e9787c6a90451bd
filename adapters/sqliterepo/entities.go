package sqliterepo

import (
	"fmt"

	"github.com/readinglibrary/service/ports"
)

// entity is what one entity's file adds to the store besides its
// statements (which newStmt registers) and its tables (which its
// migration creates): its repositories, and the record kinds `libraryd
// migrate` copies for it. Each entity file registers its own (var _ =
// register(entity{...})), next to the repository whose conversions and
// statements they reuse, so Repositories and Records need no change for a
// new entity.
type entity struct {
	// repositories sets the entity's fields of r, built on d.
	repositories func(d *DB, r *ports.Repositories)
	records      map[ports.RecordKind]records
}

// records gives the handling of one record kind on d (recordKind).
type records func(d *DB, k ports.RecordKind) recordKind

// entities holds every registered entity.
var entities []entity

// register adds e to the registry. A record kind registered twice is a
// bug, caught when the package initialises.
func register(e entity) struct{} {
	for k := range e.records {
		if _, dup := recordKinds()[k]; dup {
			panic(fmt.Sprintf("sqliterepo: record kind %q registered twice", k))
		}
	}
	entities = append(entities, e)
	return struct{}{}
}

// recordKinds maps every registered record kind to its handling.
func recordKinds() map[ports.RecordKind]records {
	out := map[ports.RecordKind]records{}
	for _, e := range entities {
		for k, r := range e.records {
			out[k] = r
		}
	}
	return out
}
