package mongorepo_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/core/user"
)

// TestGuardiansDocument: an account's guardians are the array guardians
// of plain subdocuments {name, email, relationship} in their order, and an
// account without any has no such field.
func TestGuardiansDocument(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	accounts := db.Database().Collection("accounts")
	a := user.Account{ID: uuid.NewString(), Name: "Pippi", Role: user.RoleStudent, SchoolID: uuid.NewString(),
		Tier: user.TierStandard, Preferences: user.DefaultPreferences(), CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC(),
		Guardians: []user.Guardian{
			{Name: "Zoë O'Brien", Email: "zoe@example.org", Relationship: user.RelationshipParent},
			{Email: "grandpa@example.org"},
		}}
	if err := db.Repositories().Accounts.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	stored := func() bson.Raw {
		t.Helper()
		doc, err := accounts.FindOne(ctx, bson.D{{Key: "_id", Value: a.ID}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	var got struct {
		Guardians []bson.D `bson:"guardians"`
	}
	if err := bson.Unmarshal(stored(), &got); err != nil {
		t.Fatal(err)
	}
	want := []bson.D{
		{{Key: "name", Value: "Zoë O'Brien"}, {Key: "email", Value: "zoe@example.org"}, {Key: "relationship", Value: "parent"}},
		{{Key: "name", Value: ""}, {Key: "email", Value: "grandpa@example.org"}, {Key: "relationship", Value: ""}},
	}
	if !reflect.DeepEqual(got.Guardians, want) {
		t.Fatalf("guardians = %v, want %v", got.Guardians, want)
	}

	a.Guardians = []user.Guardian{}
	if err := db.Repositories().Accounts.Update(ctx, a); err != nil {
		t.Fatal(err)
	}
	if v, err := stored().LookupErr("guardians"); err == nil {
		t.Fatalf("an account without guardians has guardians %v, want no field", v)
	}
}
