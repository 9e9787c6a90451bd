package mongorepo_test

import (
	"context"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
)

// A class's students are found through an index of their homeroom key in
// the student list's order, so the homeroom filters never walk a school's
// accounts.
func TestHomeroomIndexExists(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	specs, err := db.Database().Collection("accounts").Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const want = "school_id_1_role_1_homeroom_key_1_name_1__id_1"
	for _, s := range specs {
		if s.Name == want {
			return
		}
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	t.Fatalf("accounts has no index %s; it has %v", want, names)
}
