package mongorepo_test

import (
	"context"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/adapters/mongorepo/mongotest/ferret"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/porttest"
)

// TestMain stops the shared test server once every test has run, so the
// embedded FerretDB's temporary files do not pile up.
func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }

// TestContracts runs every contract suite of the store ports
// (ports/porttest) on fresh databases of this adapter.
func TestContracts(t *testing.T) {
	t.Logf("backend: %s", mongotest.Backend())
	porttest.All(t, func(t *testing.T) ports.Repositories { return mongotest.NewDB(t).Repositories() })
}

// TestTransfer runs the RecordStore suite with two fresh databases, then
// compares the raw documents of the one seeded through the repositories
// with those of the one written by Records: a record written by Records
// must be stored exactly as its repository would store it, derived fields
// and composite keys included.
func TestTransfer(t *testing.T) {
	t.Logf("backend: %s", mongotest.Backend())
	var dbs []*mongorepo.DB
	porttest.Transfer(t, func(t *testing.T) (ports.Repositories, ports.RecordStore) {
		db := mongotest.NewDB(t)
		dbs = append(dbs, db)
		return db.Repositories(), db.Records()
	})
	if t.Failed() || len(dbs) < 2 {
		return
	}
	sameDocuments(t, dbs[0].Database(), dbs[1].Database())
}

// TestEnsureIndexesLeavesTheRegisteredOptionsAlone checks that creating
// the indexes does not change the registered index options, which every
// start (and replicas in one process) share: the driver names an index by
// adding to its options, which raced when two starts shared them.
func TestEnsureIndexesLeavesTheRegisteredOptionsAlone(t *testing.T) {
	before := mongorepo.RegisteredOptionCounts()
	db := mongotest.NewDB(t) // EnsureIndexes has run once
	if err := db.EnsureIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := mongorepo.RegisteredOptionCounts(); !slices.Equal(before, after) {
		t.Fatalf("registered index options before EnsureIndexes %v, after %v", before, after)
	}
}

func TestEnsureIndexesIsIdempotent(t *testing.T) {
	db := mongotest.NewDB(t) // already ran once
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The unique email index of earlier versions is dropped (see below);
	// a missing one is no error.
	legacy := mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}
	if _, err := db.Database().Collection("accounts").Indexes().CreateOne(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 3)
	for range 3 {
		go func() { errc <- db.EnsureIndexes(ctx) }()
	}
	for range 3 {
		if err := <-errc; err != nil {
			t.Fatalf("EnsureIndexes again: %v", err)
		}
	}
	// The unique indexes still hold.
	r := db.Repositories()
	a := user.Account{ID: uuid.NewString(), Email: "a@example.org"}
	if err := r.Accounts.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	a.ID = uuid.NewString()
	if got, want := errs.CodeOf(r.Accounts.Create(ctx, a)), "account_exists"; got != want {
		t.Fatalf("Create with a taken email after EnsureIndexes: code %q, want %q", got, want)
	}
	// The legacy index is gone: accounts without an email do not clash.
	for range 2 {
		if err := r.Accounts.Create(ctx, user.Account{ID: uuid.NewString(), Role: user.RoleStudent}); err != nil {
			t.Fatalf("Create without an email after EnsureIndexes dropped the legacy index: %v", err)
		}
	}
	specs, err := db.Database().Collection("accounts").Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.Name == "email_1" {
			t.Fatalf("index email_1 still exists after EnsureIndexes")
		}
	}
	if err := db.EnsureIndexes(ctx); err != nil {
		t.Fatalf("EnsureIndexes without the legacy index: %v", err)
	}
}

// freeAddr returns a loopback TCP address nothing listens on, so a server
// can be restarted on the very address a client already knows.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func TestConnectFailsFastWithoutLeakingCredentials(t *testing.T) {
	uri := "mongodb://reader:s3cr3t-pa55@" + freeAddr(t) + "/?authSource=admin"
	start := time.Now()
	_, err := mongorepo.Connect(context.Background(), uri, "library")
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("Connect to a closed port = nil error, want an error")
	}
	if elapsed > 5*time.Second {
		t.Errorf("Connect took %v, want under 5s", elapsed)
	}
	if strings.Contains(err.Error(), "s3cr3t-pa55") {
		t.Errorf("Connect error %q contains the password", err)
	}
	if !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("Connect error %q, want it to say the server does not answer", err)
	}
}

func TestUnavailableThenRecovers(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	srv, err := ferret.Start(context.Background(), ferret.Options{DataDir: dir, Addr: addr})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(srv.Stop)
	db, err := mongorepo.Connect(context.Background(), srv.URI(), "library")
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	r := db.Repositories()
	a := user.Account{ID: uuid.NewString(), Email: "ada@example.org", Name: "Ada"}
	if err := r.Accounts.Create(context.Background(), a); err != nil {
		t.Fatalf("Create: %v", err)
	}

	stopStart := time.Now()
	srv.Stop()
	t.Logf("Stop took %v", time.Since(stopStart))

	for _, call := range []struct {
		name string
		fn   func(context.Context) error
	}{
		{"Accounts.Get", func(ctx context.Context) error { _, err := r.Accounts.Get(ctx, a.ID); return err }},
		{"Health.Ping", r.Health.Ping},
	} {
		start := time.Now()
		err := call.fn(context.Background())
		t.Logf("%s failed after %v", call.name, time.Since(start))
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("%s with the server down took %v, want under 5s", call.name, elapsed)
		}
		if got := errs.KindOf(err); got != errs.Unavailable {
			t.Fatalf("%s with the server down: kind %q (err %v), want %q", call.name, got, err, errs.Unavailable)
		}
		if e, _ := errs.As(err); e.ClientCode() != "unavailable" || e.Err == nil {
			t.Fatalf("%s: code %q, cause %v; want code unavailable and the cause kept", call.name, e.ClientCode(), e.Err)
		}
	}

	srv2, err := ferret.Start(context.Background(), ferret.Options{DataDir: dir, Addr: addr})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(srv2.Stop)

	// The same *DB must find the server again by itself.
	restarted := time.Now()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := r.Accounts.Get(context.Background(), a.ID)
		if err == nil {
			if got.Email != a.Email {
				t.Fatalf("Get after recovery: email %q, want %q", got.Email, a.Email)
			}
			t.Logf("recovered %v after the restart", time.Since(restarted))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Get still failing 10s after the restart: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Documents written by earlier versions get what this version searches on
// at the next start: search terms on library books and accounts, student
// numbers keyed without case, and the keys app links look books up by.
// Each migration runs once.
func TestMigrationsBringOldDocumentsUpToDate(t *testing.T) {
	uri, name := mongotest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := mongorepo.Connect(ctx, uri, name)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	school, bookID, studentID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	raw := db.Database()
	mustInsert := func(coll string, doc bson.D) {
		t.Helper()
		if _, err := raw.Collection(coll).InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	// The shapes an earlier version stored: no search_terms, a number key
	// with its capitals.
	mustInsert("library_books", bson.D{{Key: "_id", Value: bookID}, {Key: "school_id", Value: school}, {Key: "isbn", Value: ""},
		{Key: "isbn_key", Value: "none:" + bookID}, {Key: "title", Value: "Les Misérables"}, {Key: "author", Value: "Victor Hugo"},
		{Key: "cover_url", Value: ""}, {Key: "created_at", Value: time.Now()}})
	mustInsert("accounts", bson.D{{Key: "_id", Value: studentID}, {Key: "email", Value: ""}, {Key: "email_key", Value: "id:" + studentID},
		{Key: "name", Value: "Émile Zola"}, {Key: "role", Value: "student"}, {Key: "school_id", Value: school}, {Key: "tier", Value: "standard"},
		{Key: "suspended", Value: false}, {Key: "deleted", Value: false}, {Key: "student_number", Value: "AB-7"},
		{Key: "created_at", Value: time.Now()}, {Key: "updated_at", Value: time.Now()}})
	mustInsert("student_numbers", bson.D{{Key: "_id", Value: school + "#AB-7"}, {Key: "school_id", Value: school},
		{Key: "number", Value: "AB-7"}, {Key: "account_id", Value: studentID}})
	// Terms folded before final sigma folded with Σ.
	homerID := uuid.NewString()
	mustInsert("library_books", bson.D{{Key: "_id", Value: homerID}, {Key: "school_id", Value: school}, {Key: "isbn", Value: ""},
		{Key: "isbn_key", Value: "none:" + homerID}, {Key: "title", Value: "Ὅμηρος"}, {Key: "author", Value: ""},
		{Key: "search_terms", Value: bson.A{"ο", "ομ", "ομη", "ομηρ", "ομηρο", "ομηρος"}},
		{Key: "cover_url", Value: ""}, {Key: "created_at", Value: time.Now()}})

	// A loan anonymized with the marker of earlier versions, and a book
	// stored with "" for an unknown publication date.
	oldLoanID, datelessID := uuid.NewString(), uuid.NewString()
	mustInsert("loans", bson.D{{Key: "_id", Value: oldLoanID}, {Key: "school_id", Value: school}, {Key: "student_id", Value: "deleted-student"},
		{Key: "loaned_at", Value: time.Now()}})
	mustInsert("books", bson.D{{Key: "_id", Value: datelessID}, {Key: "title", Value: "Undated"}, {Key: "published_date", Value: ""}})
	// A reading-app book stored before its ISBN-13 and work key.
	appBookID := uuid.NewString()
	mustInsert("books", bson.D{{Key: "_id", Value: appBookID}, {Key: "title", Value: "Matilda"}, {Key: "author", Value: "Roald Dahl"},
		{Key: "isbn", Value: "0-14-032872-6"}, {Key: "search_terms", Value: bson.A{}}})

	for range 2 { // the second start finds every migration recorded
		if err := db.EnsureIndexes(ctx); err != nil {
			t.Fatalf("EnsureIndexes: %v", err)
		}
	}
	r := db.Repositories()
	books, total, err := r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: school, Terms: []string{"miser", "hugo"}, Limit: 10})
	if err != nil || total != 1 || len(books) != 1 || books[0].ID != bookID {
		t.Fatalf("search of an old book: %v, %d, %v; want the book", books, total, err)
	}
	students, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: school, Terms: []string{"emile", "ab"}, Limit: 10})
	if err != nil || total != 1 || len(students) != 1 || students[0].ID != studentID {
		t.Fatalf("search of an old student: %v, %d, %v; want the student", students, total, err)
	}
	if got := errs.CodeOf(r.Students.ClaimNumber(ctx, school, "ab-7", uuid.NewString())); got != "student_number_exists" {
		t.Fatalf("claiming an old number in lower case: %q, want student_number_exists", got)
	}
	taken, err := r.Students.TakenNumbers(ctx, school, []string{"Ab-7"})
	if err != nil || len(taken) != 1 || taken[0] != "AB-7" {
		t.Fatalf("TakenNumbers of an old number: %v, %v; want [AB-7]", taken, err)
	}
	books, _, err = r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: school, Terms: catalog.QueryTerms("ΟΜΗΡΟΣ"), Limit: 10})
	if err != nil || len(books) != 1 || books[0].ID != homerID {
		t.Fatalf("search ΟΜΗΡΟΣ for a book stored before final sigma folded: %v, %v", books, err)
	}
	if n, err := raw.Collection("loans").CountDocuments(ctx, bson.D{{Key: "_id", Value: oldLoanID}, {Key: "student_id", Value: ""}}); err != nil || n != 1 {
		t.Errorf("old anonymized loan after the migration: %d with no student id, %v; want the marker gone", n, err)
	}
	if n, err := raw.Collection("books").CountDocuments(ctx, bson.D{{Key: "_id", Value: datelessID}, {Key: "published_date", Value: bson.D{{Key: "$exists", Value: true}}}}); err != nil || n != 0 {
		t.Errorf("old dateless book after the migration: %d with published_date, %v; want none", n, err)
	}
	if found, err := r.HoldingsImports.BooksByMatchKeys(ctx, school, []string{holdingsfile.MatchKey("LES MISERABLES", "victor hugo")}); err != nil || len(found) != 1 || found[0].ID != bookID {
		t.Errorf("an old book by title and author after the migration: %v, %v; want the book", found, err)
	}
	if found, err := r.AppLinks.LibraryBooksByWorkKeys(ctx, school, []string{catalog.WorkKey("Les Misérables", "Hugo, Victor, 1802-1885")}, 10); err != nil || len(found) != 1 || found[0].ID != bookID {
		t.Errorf("an old library book by work key after the migration: %v, %v; want the book", found, err)
	}
	if found, err := r.AppLinks.AppBooksByISBN13(ctx, []string{"9780140328721"}, 10); err != nil || len(found) != 1 || found[0].ID != appBookID {
		t.Errorf("an old reading-app book by its ISBN-13 after the migration: %v, %v; want the book", found, err)
	}
	if found, err := r.AppLinks.AppBooksByWorkKeys(ctx, []string{catalog.WorkKey("Matilda /", "Dahl, Roald")}, 10); err != nil || len(found) != 1 || found[0].ID != appBookID {
		t.Errorf("an old reading-app book by work key after the migration: %v, %v; want the book", found, err)
	}
	if n, err := raw.Collection("books").CountDocuments(ctx, bson.D{{Key: "_id", Value: datelessID}, {Key: "work_key", Value: ""}, {Key: "isbn13", Value: ""}}); err != nil || n != 1 {
		t.Errorf("an old book without author or ISBN after the migration: %d with empty keys, %v; want them set to none", n, err)
	}
	n, err := raw.Collection("migrations").CountDocuments(ctx, bson.D{})
	if err != nil || n != 11 {
		t.Fatalf("recorded migrations: %d, %v; want 11", n, err)
	}
}

// A book without a publication date stores nothing for it: no "" that a
// reader of the collection would take for a date.
func TestBookWithoutPublishedDateStoresNoField(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	newID := func(prefix string) string { return prefix + uuid.NewString()[:8] }
	b, texts, err := catalog.NewBook(newID(catalog.BookIDPrefix), catalog.BookDraft{Title: "Undated", Author: "Anon", Genre: "fiction", ReadingLevel: "beginner", Pages: 3,
		Chapters: []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 3, Text: "Once."}}}, newID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Repositories().Books.Create(ctx, b, texts); err != nil {
		t.Fatal(err)
	}
	n, err := db.Database().Collection("books").CountDocuments(ctx, bson.D{{Key: "_id", Value: b.ID}, {Key: "published_date", Value: bson.D{{Key: "$exists", Value: true}}}})
	if err != nil || n != 0 {
		t.Fatalf("a dateless book stored with published_date: %d, %v", n, err)
	}
	got, err := db.Repositories().Books.Get(ctx, b.ID)
	if err != nil || got.PublishedDate != "" {
		t.Fatalf("Get of the dateless book: %q, %v; want no date", got.PublishedDate, err)
	}
}
