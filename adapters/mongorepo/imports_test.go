package mongorepo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// TestInterruptedImportsFinishAtStart leaves two student imports as a
// crash would, an hour old: one committed with its documents still marked,
// one never committed. The next start publishes the first and removes the
// second; a batch younger than that (another replica's, maybe still
// running) is left alone.
func TestInterruptedImportsFinishAtStart(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw := db.Database()
	school := uuid.NewString()
	old := time.Now().Add(-time.Hour).UTC()
	account := func(batch, name string) bson.D {
		id := uuid.NewString()
		return bson.D{{Key: "_id", Value: id}, {Key: "email", Value: name + "@example.org"}, {Key: "email_key", Value: name + "@example.org"},
			{Key: "name", Value: name}, {Key: "role", Value: "student"}, {Key: "school_id", Value: school}, {Key: "deleted", Value: false},
			{Key: "search_terms", Value: bson.A{name}}, {Key: "created_at", Value: old}, {Key: "updated_at", Value: old},
			{Key: "import_batch", Value: batch}}
	}
	number := func(batch, n string) bson.D {
		return bson.D{{Key: "_id", Value: school + "#" + n}, {Key: "school_id", Value: school}, {Key: "number", Value: n},
			{Key: "account_id", Value: "x"}, {Key: "import_batch", Value: batch}}
	}
	imp := func(id, batch string, committed bool, at time.Time) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "batch", Value: batch}, {Key: "committed", Value: committed}, {Key: "started_at", Value: at}}
	}
	insert := func(col string, docs ...any) {
		t.Helper()
		if _, err := raw.Collection(col).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	insert("accounts", account("done", "published"), account("lost", "dropped"), account("young", "running"))
	insert("student_numbers", number("done", "n-1"), number("lost", "n-2"), number("young", "n-3"))
	insert("student_imports", imp("done", "done", false, old), imp("done#committed", "done", true, old), imp("lost", "lost", false, old),
		imp("young", "young", false, time.Now().UTC()))

	// Nothing of an unfinished batch is visible, committed or not.
	r := db.Repositories()
	if _, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: school, Limit: 10}); err != nil || total != 0 {
		t.Fatalf("before the start: %d students listed (%v), want none", total, err)
	}
	if err := db.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	list, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: school, Limit: 10})
	if err != nil || total != 1 || list[0].Name != "published" {
		t.Fatalf("after the start: %v (%d, %v), want the committed batch's student alone", list, total, err)
	}
	if _, err := r.Accounts.GetByEmail(ctx, user.NormalizeEmail("dropped@example.org")); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the uncommitted batch's account: %v, want NotFound", err)
	}
	var running struct {
		ID string `bson:"_id"`
	}
	if err := raw.Collection("accounts").FindOne(ctx, bson.D{{Key: "name", Value: "running"}}).Decode(&running); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Accounts.Get(ctx, running.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the running batch's account read by id: %v, want NotFound", err)
	}
	taken, err := r.Students.TakenNumbers(ctx, school, []string{"n-1", "n-2", "n-3"})
	if err != nil || len(taken) != 2 {
		t.Fatalf("numbers after the start: %v %v, want n-1 (published) and n-3 (the young batch's)", taken, err)
	}
	if n, _ := raw.Collection("accounts").CountDocuments(ctx, bson.D{{Key: "import_batch", Value: "young"}}); n != 1 {
		t.Fatalf("the young batch's account: %d, want it left alone", n)
	}
	if n, _ := raw.Collection("student_imports").CountDocuments(ctx, bson.D{}); n != 1 {
		t.Fatalf("%d import records left, want the young batch's alone", n)
	}
}

// TestInterruptedHoldingsImportsFinishAtStart leaves two holdings imports
// as a crash would, an hour old: a committed one whose book and copy are
// still marked, and one never committed. Until the next start neither is
// seen; then the first's book and copy are the school's and the second's
// are gone (its code free again).
func TestInterruptedHoldingsImportsFinishAtStart(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw := db.Database()
	school := uuid.NewString()
	old := time.Now().Add(-time.Hour).UTC()
	book := func(batch, id, title string) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "school_id", Value: school}, {Key: "isbn", Value: ""}, {Key: "isbn_key", Value: "none:" + id},
			{Key: "title", Value: title}, {Key: "author", Value: "A"}, {Key: "search_terms", Value: bson.A{}}, {Key: "cover_url", Value: ""},
			{Key: "created_at", Value: old}, {Key: "match_key", Value: holdingsfile.MatchKey(title, "A")}, {Key: "import_batch", Value: batch}}
	}
	cp := func(batch, bookID, code string) bson.D {
		return bson.D{{Key: "_id", Value: uuid.NewString()}, {Key: "school_id", Value: school}, {Key: "book_id", Value: bookID},
			{Key: "code", Value: code}, {Key: "created_at", Value: old}, {Key: "import_batch", Value: batch}}
	}
	imp := func(id, batch string, committed bool) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "batch", Value: batch}, {Key: "committed", Value: committed}, {Key: "started_at", Value: old}}
	}
	kept, lost := uuid.NewString(), uuid.NewString()
	for col, docs := range map[string][]any{
		"library_books":   {book("done", kept, "Kept"), book("lost", lost, "Lost")},
		"copies":          {cp("done", kept, "K 1"), cp("lost", lost, "L 1")},
		"student_imports": {imp("done", "done", false), imp("done#committed", "done", true), imp("lost", "lost", false)},
	} {
		if _, err := raw.Collection(col).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	r := db.Repositories()
	if _, err := r.Holdings.CopyByCode(ctx, school, "K 1"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a copy of an unfinished import is seen: %v", err)
	}
	// Reads by id filter on _id alone and check the import on the
	// document: they must not see it either.
	var keptCopy struct {
		ID string `bson:"_id"`
	}
	if err := raw.Collection("copies").FindOne(ctx, bson.D{{Key: "code", Value: "K 1"}}).Decode(&keptCopy); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Holdings.Book(ctx, school, kept); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a book of an unfinished import is read by id: %v", err)
	}
	if _, err := r.Holdings.Copy(ctx, school, keptCopy.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a copy of an unfinished import is read by id: %v", err)
	}
	if _, total, err := r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: school, Limit: 10}); err != nil || total != 0 {
		t.Fatalf("before the start: %d books (%v), want none", total, err)
	}
	if err := db.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if c, err := r.Holdings.CopyByCode(ctx, school, "K 1"); err != nil || c.BookID != kept {
		t.Fatalf("the committed import's copy after the start: %+v %v", c, err)
	}
	if b, err := r.Holdings.Book(ctx, school, kept); err != nil || b.Title != "Kept" {
		t.Fatalf("the committed import's book by id after the start: %+v %v", b, err)
	}
	if c, err := r.Holdings.Copy(ctx, school, keptCopy.ID); err != nil || c.Code != "K 1" {
		t.Fatalf("the committed import's copy by id after the start: %+v %v", c, err)
	}
	if _, err := r.Holdings.Book(ctx, school, lost); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the uncommitted import's book after the start: %v, want NotFound", err)
	}
	if n, _ := raw.Collection("copies").CountDocuments(ctx, bson.D{{Key: "code", Value: "L 1"}}); n != 0 {
		t.Fatalf("the uncommitted import's copy is still stored (%d)", n)
	}
}

// Past its commit a batch is the school's: a publish that fails once is
// tried again, and one that fails again is reported as stored and not yet
// shown (Unavailable, without the cause), never abandoned, its commit left
// for a later start to publish.
func TestCommittedImportIsNeverReportedAsNothing(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	imports := db.Database().Collection("student_imports")
	abandoned := 0
	abandon := func(_ context.Context, _ string, cause error) error { abandoned++; return cause }
	write := func(context.Context, string) error { return nil }
	failing := func(times int) (func(context.Context, string) error, *int) {
		calls := 0
		return func(context.Context, string) error {
			if calls++; calls <= times {
				return errors.New("connection reset by peer")
			}
			return nil
		}, &calls
	}
	publish, calls := failing(1)
	if err := mongorepo.StageImport(ctx, imports, write, publish, abandon); err != nil || *calls != 2 {
		t.Fatalf("a publish failing once: %v after %d tries, want done on the second", err, *calls)
	}
	publish, calls = failing(2)
	err := mongorepo.StageImport(ctx, imports, write, publish, abandon)
	e, ok := errs.As(err)
	if !ok || e.Kind != errs.Unavailable || !strings.Contains(e.Message, "stored") || strings.Contains(e.Message, "connection reset") || *calls != 2 {
		t.Fatalf("a publish failing twice: %v after %d tries, want Unavailable saying the import is stored", err, *calls)
	}
	if abandoned != 0 {
		t.Fatalf("%d committed batches abandoned, want none", abandoned)
	}
	if n, err := imports.CountDocuments(ctx, bson.D{{Key: "committed", Value: true}}); err != nil || n != 2 {
		t.Fatalf("commit records: %d (%v), want both batches' kept", n, err)
	}
}
