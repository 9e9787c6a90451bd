package mongorepo_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
)

// TestLanguageDocuments: a school and an account stored before the
// language existed read with none chosen (""); a chosen language is the
// string field language of the settings and of the preferences, and
// choosing none again leaves no field.
func TestLanguageDocuments(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	schools, accounts := db.Database().Collection("schools"), db.Database().Collection("accounts")
	r := db.Repositories()

	schoolID, accountID := uuid.NewString(), uuid.NewString()
	if _, err := schools.InsertOne(ctx, bson.D{{Key: "_id", Value: schoolID}, {Key: "name", Value: "Maple High"},
		{Key: "domain", Value: "maple.example.org"}, {Key: "settings", Value: bson.D{{Key: "default_loan_days", Value: 14},
			{Key: "max_renewals", Value: 2}, {Key: "renewal_days", Value: 7}, {Key: "allow_public_catalog", Value: true}}},
		{Key: "created_at", Value: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := accounts.InsertOne(ctx, bson.D{{Key: "_id", Value: accountID}, {Key: "email", Value: "pippi@example.org"},
		{Key: "email_key", Value: "pippi@example.org"}, {Key: "name", Value: "Pippi"}, {Key: "role", Value: "student"},
		{Key: "school_id", Value: schoolID}, {Key: "tier", Value: "standard"}, {Key: "suspended", Value: false}, {Key: "deleted", Value: false},
		{Key: "preferences", Value: bson.D{{Key: "font_size", Value: 16}, {Key: "theme", Value: "light"},
			{Key: "notifications", Value: true}, {Key: "timezone", Value: "UTC"}}},
		{Key: "created_at", Value: time.Now()}, {Key: "updated_at", Value: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	school, err := r.Schools.Get(ctx, schoolID)
	if err != nil || school.Settings.Language != "" || school.Settings.DefaultLoanDays != 14 {
		t.Fatalf("school stored before = %+v (%v), want no language", school.Settings, err)
	}
	account, err := r.Accounts.Get(ctx, accountID)
	if err != nil || account.Preferences.Language != "" || account.Preferences.Timezone != "UTC" {
		t.Fatalf("account stored before = %+v (%v), want no language", account.Preferences, err)
	}

	stored := func(coll string, id, path string) (string, bool) {
		t.Helper()
		doc, err := db.Database().Collection(coll).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		v, err := doc.LookupErr(path, "language")
		if err != nil {
			return "", false
		}
		s, ok := v.StringValueOK()
		if !ok {
			t.Fatalf("%s.language of %s is %s, want a string", path, coll, v.Type)
		}
		return s, true
	}
	school.Settings.Language = "es"
	if err := r.Schools.SaveSettings(ctx, schoolID, school.Settings); err != nil {
		t.Fatal(err)
	}
	account.Preferences.Language = "ar"
	if err := r.Accounts.Update(ctx, account); err != nil {
		t.Fatal(err)
	}
	if got, ok := stored("schools", schoolID, "settings"); got != "es" || !ok {
		t.Errorf("settings.language = %q (%v), want es", got, ok)
	}
	if got, ok := stored("accounts", accountID, "preferences"); got != "ar" || !ok {
		t.Errorf("preferences.language = %q (%v), want ar", got, ok)
	}

	school.Settings.Language, account.Preferences.Language = "", ""
	if err := r.Schools.SaveSettings(ctx, schoolID, school.Settings); err != nil {
		t.Fatal(err)
	}
	if err := r.Accounts.Update(ctx, account); err != nil {
		t.Fatal(err)
	}
	if got, ok := stored("schools", schoolID, "settings"); ok {
		t.Errorf("settings.language = %q after choosing none, want no field", got)
	}
	if got, ok := stored("accounts", accountID, "preferences"); ok {
		t.Errorf("preferences.language = %q after choosing none, want no field", got)
	}
}
