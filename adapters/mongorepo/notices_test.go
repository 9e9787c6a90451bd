package mongorepo_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/core/library"
)

// TestNoticeSettingsDocument: a school's guardian copies are the plain
// string array guardian_copies and its contact the string contact; with
// none, neither field is stored, and settings stored before either field
// read with nil guardian copies and no contact.
func TestNoticeSettingsDocument(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	coll := db.Database().Collection("notice_settings")
	notices := db.Repositories().Notices

	school := uuid.NewString()
	old := library.NoticeSettings{Enabled: true, SendAt: "06:45", DueSoonDays: 3, OverdueSteps: []int{2, 9}}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: school}, {Key: "enabled", Value: true},
		{Key: "send_at", Value: "06:45"}, {Key: "due_soon_days", Value: 3}, {Key: "overdue_steps", Value: bson.A{2, 9}}}); err != nil {
		t.Fatal(err)
	}
	got, err := notices.Settings(ctx, school)
	if err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("Settings stored before = %+v (%v), want %+v, with nil guardian copies", got, err, old)
	}

	stored := func() bson.Raw {
		t.Helper()
		doc, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: school}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	set := old
	set.GuardianCopies = []string{library.NoticeOverdue, library.NoticeHoldReady}
	set.Contact = "Zoë, bibliothèque, poste 214"
	if err := notices.SaveSettings(ctx, school, set); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		GuardianCopies bson.A `bson:"guardian_copies"`
		Contact        string `bson:"contact"`
	}
	if err := bson.Unmarshal(stored(), &doc); err != nil {
		t.Fatal(err)
	}
	if want := (bson.A{"overdue", "hold_ready"}); !reflect.DeepEqual(doc.GuardianCopies, want) || doc.Contact != set.Contact {
		t.Fatalf("guardian_copies, contact = %v, %q; want %v, %q", doc.GuardianCopies, doc.Contact, want, set.Contact)
	}

	set.GuardianCopies, set.Contact = []string{}, ""
	if err := notices.SaveSettings(ctx, school, set); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"guardian_copies", "contact"} {
		if v, err := stored().LookupErr(field); err == nil {
			t.Errorf("settings without guardian copies or contact have %s %v, want no field", field, v)
		}
	}
	if got, err := notices.Settings(ctx, school); err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("Settings after saving none = %+v (%v), want %+v", got, err, old)
	}
}
