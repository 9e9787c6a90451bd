package mongorepo_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
)

// TestInterruptedRosterRollsBackAtStart leaves a roster change as a crash
// in its middle would, an hour old: a student already changed (made
// inactive, given an external id), the id claimed, the rollover claimed,
// and no new student committed. The next start writes the student back
// and removes the claims, so the same change can run again; a change whose
// new students were committed is kept.
func TestInterruptedRosterRollsBackAtStart(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw, r := db.Database(), db.Repositories()
	school := uuid.NewString()
	ann := user.Account{ID: uuid.NewString(), Name: "Ann", Role: user.RoleStudent, SchoolID: school, Tier: user.TierStandard,
		Preferences: user.DefaultPreferences(), Grade: "6", CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	kept := ann
	kept.ID, kept.Name = uuid.NewString(), "Kit"
	for _, a := range []user.Account{ann, kept} {
		if err := r.Accounts.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	var before bson.M
	if err := raw.Collection("accounts").FindOne(ctx, bson.D{{Key: "_id", Value: ann.ID}}).Decode(&before); err != nil {
		t.Fatal(err)
	}
	// The crash: Ann written, her external id and the year claimed.
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "inactive", Value: true}, {Key: "external_id", Value: "X-ANN"}, {Key: "grade", Value: "7"}}}}
	if _, err := raw.Collection("accounts").UpdateOne(ctx, bson.D{{Key: "_id", Value: ann.ID}}, set); err != nil {
		t.Fatal(err)
	}
	insert := func(col string, doc any) {
		t.Helper()
		if _, err := raw.Collection(col).InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	insert("student_external_ids", bson.D{{Key: "_id", Value: school + "#X-ANN"}, {Key: "school_id", Value: school}, {Key: "account_id", Value: ann.ID}})
	insert("roster_rollovers", bson.D{{Key: "_id", Value: school + "#2026"}, {Key: "school_id", Value: school}, {Key: "school_year", Value: "2026"}})
	old := time.Now().Add(-time.Hour).UTC()
	insert("roster_applies", bson.D{{Key: "_id", Value: "crashed"}, {Key: "befores", Value: bson.A{before}},
		{Key: "owners", Value: bson.A{ann.ID, "never-added"}}, {Key: "number_ids", Value: bson.A{}},
		{Key: "external_ids", Value: bson.A{school + "#X-ANN"}}, {Key: "rollover_id", Value: school + "#2026"},
		{Key: "adds", Value: bson.A{"never-added"}}, {Key: "started_at", Value: old}})
	// A change whose new student (Kit) was committed before the crash.
	insert("roster_applies", bson.D{{Key: "_id", Value: "committed"}, {Key: "befores", Value: bson.A{}},
		{Key: "owners", Value: bson.A{kept.ID}}, {Key: "number_ids", Value: bson.A{}}, {Key: "external_ids", Value: bson.A{}},
		{Key: "rollover_id", Value: ""}, {Key: "adds", Value: bson.A{kept.ID}}, {Key: "started_at", Value: old}})

	if err := db.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := r.Accounts.Get(ctx, ann.ID)
	if err != nil || got.Inactive || got.ExternalID != "" || got.Grade != "6" {
		t.Fatalf("Ann after the start: %+v (%v), want her as before the change", got, err)
	}
	if _, err := r.Students.Rollover(ctx, school, "2026"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the interrupted rollover's claim: %v, want it removed", err)
	}
	if _, err := r.Accounts.Get(ctx, kept.ID); err != nil {
		t.Fatalf("the committed change's student: %v", err)
	}
	if n, _ := raw.Collection("roster_applies").CountDocuments(ctx, bson.D{}); n != 0 {
		t.Fatalf("%d roster journals left, want none", n)
	}
	// The same change runs again: the external id is free.
	after := ann
	after.ExternalID, after.Inactive = "X-ANN", true
	ro := roster.Rollover{SchoolID: school, SchoolYear: "2026", At: time.Now()}
	if err := r.Students.ApplyRoster(ctx, roster.RosterChange{SchoolID: school, Changed: []user.Account{after}, Before: []user.Account{got}, Rollover: &ro}); err != nil {
		t.Fatalf("the change again: %v", err)
	}
	if n, _ := raw.Collection("roster_applies").CountDocuments(ctx, bson.D{}); n != 0 {
		t.Fatalf("a finished change left %d journals", n)
	}
}
