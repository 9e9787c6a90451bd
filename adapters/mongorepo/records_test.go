package mongorepo_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// sameDocuments fails t unless databases a and b hold the same collections
// with the same documents, byte for byte, compared in _id order; b must
// hold no claims of used mail tokens, since the used tokens they refuse
// are not copied either.
func sameDocuments(t *testing.T, a, b *mongo.Database) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names := func(db *mongo.Database) []string {
		t.Helper()
		list, err := db.ListCollectionNames(ctx, bson.D{})
		if err != nil {
			t.Fatalf("list the collections of %s: %v", db.Name(), err)
		}
		slices.Sort(list)
		return list
	}
	docs := func(db *mongo.Database, collection string) []bson.Raw {
		t.Helper()
		cur, err := db.Collection(collection).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatalf("read %s.%s: %v", db.Name(), collection, err)
		}
		var out []bson.Raw
		if err := cur.All(ctx, &out); err != nil {
			t.Fatalf("read %s.%s: %v", db.Name(), collection, err)
		}
		return out
	}
	collections := names(a)
	if got := names(b); !slices.Equal(got, collections) {
		t.Fatalf("collections written by Records = %v, want %v as the repositories wrote", got, collections)
	}
	for _, c := range collections {
		want, got := docs(a, c), docs(b, c)
		if c == "mail_token_uses" {
			want = nil
		}
		if len(got) != len(want) {
			t.Errorf("%s: Records wrote %d documents, the repositories %d", c, len(got), len(want))
			continue
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: document written by Records differs from the repository's:\n got %s\nwant %s", c, got[i], want[i])
			}
		}
	}
}

func TestRecordsRefusesUnknownKindAndBatchSize(t *testing.T) {
	rec := mongotest.NewDB(t).Records()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const unknown ports.RecordKind = "bookmarks"
	none := func([]any) error { return nil }
	for call, err := range map[string]error{
		"Count of an unknown kind": func() error { _, err := rec.Count(ctx, unknown); return err }(),
		"Read of an unknown kind":  rec.Read(ctx, unknown, 10, none),
		"Write of an unknown kind": rec.Write(ctx, unknown, []any{"x"}),
		"Read in batches of 0":     rec.Read(ctx, ports.KindLoans, 0, none),
	} {
		if errs.KindOf(err) != errs.Invalid {
			t.Errorf("%s: kind %q (err %v), want %q", call, errs.KindOf(err), err, errs.Invalid)
		}
	}
	if err := rec.Write(ctx, ports.KindLoans, nil); err != nil {
		t.Errorf("Write of no records: %v, want nil", err)
	}
}

// TestTransferScale copies 10,000 copies and 5,000 loans from one database
// to another as libraryd migrate does, and reports how long that took, to
// size the migration of a large school. It asserts only the counts.
func TestTransferScale(t *testing.T) {
	if testing.Short() {
		t.Skip("copies 15,000 records")
	}
	if raceEnabled {
		t.Skip("a timing under the race detector says nothing about a migration; run without -race")
	}
	const (
		nCopies   = 10_000
		nLoans    = 5_000
		batchSize = 1_000
	)
	t.Logf("backend: %s", mongotest.Backend())
	from, to := mongotest.NewDB(t).Records(), mongotest.NewDB(t).Records()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	school, at := uuid.NewString(), time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)
	books := make([]string, 500)
	for i := range books {
		books[i] = uuid.NewString()
	}
	copies := make([]library.Copy, nCopies)
	for i := range copies {
		copies[i] = library.Copy{ID: uuid.NewString(), SchoolID: school, BookID: books[i%len(books)], Code: fmt.Sprintf("C%06d", i), CreatedAt: at}
	}
	seed := func(kind ports.RecordKind, n int, record func(i int) any) {
		t.Helper()
		for lo := 0; lo < n; lo += batchSize {
			batch := make([]any, 0, batchSize)
			for i := lo; i < min(lo+batchSize, n); i++ {
				batch = append(batch, record(i))
			}
			if err := from.Write(ctx, kind, batch); err != nil {
				t.Fatalf("seed %s: %v", kind, err)
			}
		}
	}
	start := time.Now()
	seed(ports.KindCopies, nCopies, func(i int) any { return copies[i] })
	seed(ports.KindLoans, nLoans, func(i int) any {
		cp := copies[i]
		l := library.Loan{ID: uuid.NewString(), SchoolID: school, BookID: cp.BookID, CopyID: cp.ID, CopyCode: cp.Code,
			StudentID: uuid.NewString(), LoanedAt: at.Add(time.Duration(i) * time.Minute), DueAt: "2025-09-15",
			BookTitle: "Title", BookAuthor: "Author"}
		if i%2 == 0 {
			l.ReturnedAt = l.LoanedAt.Add(7 * 24 * time.Hour)
		}
		return l
	})
	t.Logf("seeded %d copies and %d loans in %v", nCopies, nLoans, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	total := 0
	for _, kind := range []ports.RecordKind{ports.KindCopies, ports.KindLoans} {
		kindStart, n := time.Now(), 0
		err := from.Read(ctx, kind, batchSize, func(records []any) error {
			n += len(records)
			return to.Write(ctx, kind, records)
		})
		if err != nil {
			t.Fatalf("copy %s: %v", kind, err)
		}
		total += n
		t.Logf("copied %d %s in %v", n, kind, time.Since(kindStart).Round(time.Millisecond))
	}
	elapsed := time.Since(start)
	perRecord := elapsed / time.Duration(total)
	t.Logf("copied %d records in %v (%v a record, %.0f records/s); at that rate 100,000 loans take about %v",
		total, elapsed.Round(time.Millisecond), perRecord, float64(total)/elapsed.Seconds(), (100_000 * perRecord).Round(time.Second))

	for kind, want := range map[ports.RecordKind]int64{ports.KindCopies: nCopies, ports.KindLoans: nLoans} {
		got, err := to.Count(ctx, kind)
		if err != nil || got != want {
			t.Errorf("Count %s after the copy = %d, %v; want %d", kind, got, err, want)
		}
	}
}

// A mailed token whose claim was stored but whose removal failed is used:
// MailTokens refuses it, and Records neither counts nor reads it, so a
// copy into a store without claims cannot make it work again.
func TestRecordsLeaveOutClaimedMailTokens(t *testing.T) {
	db := mongotest.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	now := time.Now().UTC().Truncate(time.Millisecond)
	var hashes []string
	for range 3 {
		tok := auth.MailToken{Hash: auth.HashToken(uuid.NewString()), Purpose: auth.PurposePasswordReset,
			AccountID: uuid.NewString(), CreatedAt: now, ExpiresAt: now.Add(auth.PasswordResetTTL)}
		if err := db.Repositories().MailTokens.Create(ctx, tok); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, tok.Hash)
	}
	// The claim of token 1, as Consume stores it before removing the token.
	claim := bson.D{{Key: "_id", Value: hashes[1]}, {Key: "at", Value: now}, {Key: "expires_at", Value: now.Add(time.Hour)}}
	if _, err := db.Database().Collection("mail_token_uses").InsertOne(ctx, claim); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Repositories().MailTokens.Consume(ctx, hashes[1], auth.PurposePasswordReset, now); errs.KindOf(err) != errs.NotFound {
		t.Fatalf("Consume of a claimed token: %v, want NotFound", err)
	}
	rec := db.Records()
	n, err := rec.Count(ctx, ports.KindMailTokens)
	if err != nil || n != 2 {
		t.Fatalf("Count mail_tokens = %d, %v; want 2 (the claimed token left out)", n, err)
	}
	var read []string
	err = rec.Read(ctx, ports.KindMailTokens, 1, func(records []any) error {
		for _, r := range records {
			read = append(read, r.(auth.MailToken).Hash)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(read)
	want := []string{hashes[0], hashes[2]}
	slices.Sort(want)
	if !slices.Equal(read, want) {
		t.Fatalf("Read mail_tokens = %v, want %v", read, want)
	}
}
