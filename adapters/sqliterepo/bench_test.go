package sqliterepo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/user"
)

// BenchmarkOpenFresh measures a database of one's own from nothing: a new
// file, opened and migrated to the latest schema, then closed.
func BenchmarkOpenFresh(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		db, err := sqliterepo.Open(ctx, filepath.Join(dir, fmt.Sprintf("library%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewTestDB measures what a test pays for sqlitetest.NewDB: a copy
// of a migrated file, opened, then closed.
func BenchmarkNewTestDB(b *testing.B) {
	for b.Loop() {
		if err := sqlitetest.NewDB(b).Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReopen measures Open of an existing, migrated database.
func BenchmarkReopen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "library.db")
	ctx := context.Background()
	db, err := sqliterepo.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		db, err := sqliterepo.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordSession measures one acknowledged write (a commit synced
// to disk) through the one writer connection.
func BenchmarkRecordSession(b *testing.B) {
	r := sqlitetest.NewDB(b).Repositories()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		s := catalog.ReadingSession{ID: fmt.Sprintf("rs_%d", i), AccountID: "a", BookID: "bk", At: time.Now(), Seconds: 5}
		if err := r.Progress.RecordSession(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetBook measures one read by id through the read pool.
func BenchmarkGetBook(b *testing.B) {
	r := sqlitetest.NewDB(b).Repositories()
	ctx := context.Background()
	book := catalog.Book{ID: "bk_1", Title: "Dune", Author: "Frank Herbert", CreatedAt: time.Now(),
		Chapters: []catalog.Chapter{{ID: "ch_1", Title: "One"}, {ID: "ch_2", Title: "Two"}}}
	book.Normalize()
	if err := r.Books.Create(ctx, book, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Books.Get(ctx, "bk_1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListBooks measures pages of a catalog of 3,000 books that all
// match the search word: the first and the hundredth page of a search, the
// hundredth unfiltered page, and a genre in rating order.
func BenchmarkListBooks(b *testing.B) {
	r := sqlitetest.NewDB(b).Repositories()
	ctx := context.Background()
	for i := range 3000 {
		book := catalog.Book{ID: fmt.Sprintf("bk_%05d", i), Title: fmt.Sprintf("Common title %d", i), Author: "Same Author",
			Genre: "fantasy", Rating: float64(i%50) / 10, CreatedAt: time.Now(),
			Chapters: []catalog.Chapter{{ID: "a", Title: "One"}, {ID: "b", Title: "Two"}, {ID: "c", Title: "Three"}}}
		book.Normalize()
		if err := r.Books.Create(ctx, book, nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		q    catalog.Query
	}{
		{"search/page1", catalog.Query{Terms: []string{"common"}, Page: 1, Limit: 20}},
		{"search/page100", catalog.Query{Terms: []string{"common"}, Page: 100, Limit: 20}},
		{"all/page100", catalog.Query{Page: 100, Limit: 20}},
		{"genre/rating/page1", catalog.Query{Genre: "fantasy", Sort: catalog.SortRatingDesc, Page: 1, Limit: 20}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := r.Books.List(ctx, c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAuthenticationReads measures the two reads every authenticated
// request makes: the account, and whether the token's session was ended.
func BenchmarkAuthenticationReads(b *testing.B) {
	repos := sqlitetest.NewDB(b).Repositories()
	ctx := context.Background()
	acct, err := user.NewAccount(user.NewAccountParams{ID: "a1", Email: "a@example.org", Name: "A", Role: user.RoleReader, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	if err := repos.Accounts.Create(ctx, acct); err != nil {
		b.Fatal(err)
	}
	if err := repos.RefreshTokens.RevokeFamily(ctx, "ended", time.Now()); err != nil {
		b.Fatal(err)
	}
	b.Run("Account", func(b *testing.B) {
		for b.Loop() {
			if _, err := repos.Accounts.Get(ctx, "a1"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SessionLive", func(b *testing.B) {
		for b.Loop() {
			if revoked, err := repos.RefreshTokens.FamilyRevoked(ctx, "live"); err != nil || revoked {
				b.Fatal(revoked, err)
			}
		}
	})
}
