package mongorepo

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/readinglibrary/service/ports"
)

// entity is what one entity's file adds to the database: its
// repositories, the collections it keeps with the indexes its queries
// use, the record kinds `libraryd migrate` copies for it, and the
// documents of it that expire. Each entity file registers its own (var _ =
// register(entity{...})), next to the repository that uses them, so a new
// entity is written in one file of this package: Repositories,
// EnsureIndexes, Records and the expiry sweep read the registry
// (entities).
type entity struct {
	// repositories sets the entity's fields of r, built on db.
	repositories func(db *mongo.Database, r *ports.Repositories)
	collections  []collection
	records      map[ports.RecordKind]records
	expiring     []expiringKind
}

// collection is one collection and the indexes its queries use; nil when
// it is read by _id only.
type collection struct {
	name    string
	indexes []mongo.IndexModel
}

// records gives the handling of one record kind on db (recordKind).
type records func(db *mongo.Database, k ports.RecordKind) recordKind

// entities holds every registered entity, in the order Go initialises the
// package's files (by file name): EnsureIndexes creates the indexes in that
// order.
var entities []entity

// register adds e to the registry. A collection or a record kind
// registered twice is a bug, caught when the package initialises.
func register(e entity) struct{} {
	for _, c := range e.collections {
		for _, other := range collections() {
			if other.name == c.name {
				panic(fmt.Sprintf("mongorepo: collection %q registered twice", c.name))
			}
		}
	}
	for k := range e.records {
		if _, dup := recordKinds()[k]; dup {
			panic(fmt.Sprintf("mongorepo: record kind %q registered twice", k))
		}
	}
	entities = append(entities, e)
	return struct{}{}
}

// collections lists every registered collection.
func collections() []collection {
	var out []collection
	for _, e := range entities {
		out = append(out, e.collections...)
	}
	return out
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

// expiringKinds lists the documents the expiry sweep deletes; EnsureIndexes
// creates the index on each one's expiry.
func expiringKinds() []expiringKind {
	var out []expiringKind
	for _, e := range entities {
		out = append(out, e.expiring...)
	}
	return out
}
