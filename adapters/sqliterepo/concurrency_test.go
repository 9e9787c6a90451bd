package sqliterepo_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// hammer runs racers goroutines that each write through r at once: a
// reading-list item of their own, the same shared item, a session, a
// progress record, an account, and a claim on one shared rotation. It
// returns every error, and the number of claims won.
func hammer(t *testing.T, r ports.Repositories, racers int, acct, sharedBook, hash, tag string) (errsOut []error, wins int) {
	t.Helper()
	ctx := testCtx(t)
	var mu sync.Mutex
	var start, done sync.WaitGroup
	start.Add(1)
	at := time.Date(2025, 4, 1, 8, 0, 0, 0, time.UTC)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			book := fmt.Sprintf("bk_%s_%02d", tag, i)
			var local []error
			add := func(err error) {
				if err != nil {
					local = append(local, err)
				}
			}
			_, _, err := r.ReadingLists.Add(ctx, catalog.ListItem{ID: "rl_" + uuid.NewString(), AccountID: acct, BookID: book,
				Status: catalog.WantToRead, Priority: catalog.PriorityNormal, AddedAt: at, UpdatedAt: at})
			add(err)
			_, _, err = r.ReadingLists.Add(ctx, catalog.ListItem{ID: "rl_" + uuid.NewString(), AccountID: acct, BookID: sharedBook,
				Status: catalog.CurrentlyReading, Priority: catalog.PriorityHigh, AddedAt: at, UpdatedAt: at})
			add(err)
			add(r.Progress.RecordSession(ctx, catalog.ReadingSession{ID: "rs_" + uuid.NewString(), AccountID: acct,
				BookID: sharedBook, At: at, LocalDay: "2025-04-01", Seconds: 7}))
			add(r.Progress.Save(ctx, catalog.Progress{AccountID: acct, BookID: book, PageNumber: i + 1, LastRead: at}))
			add(r.Accounts.Create(ctx, user.Account{ID: uuid.NewString(), Email: fmt.Sprintf("%s-%d@example.org", tag, i), CreatedAt: at, UpdatedAt: at}))
			claim := r.RefreshTokens.ClaimRotation(ctx, hash, at)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case claim == nil:
				wins++
			case errs.CodeOf(claim) != "refresh_token_reused":
				local = append(local, claim)
			}
			errsOut = append(errsOut, local...)
		}()
	}
	start.Done()
	done.Wait()
	return errsOut, wins
}

// TestConcurrentWriters: 50 goroutines write at once through the one writer
// connection; none sees SQLITE_BUSY or any other error, and nothing is lost.
func TestConcurrentWriters(t *testing.T) {
	const racers = 50
	r := sqlitetest.NewDB(t).Repositories()
	acct, shared, hash := uuid.NewString(), "bk_shared", auth.HashToken(uuid.NewString())
	failures, wins := hammer(t, r, racers, acct, shared, hash, "a")
	for _, err := range failures {
		t.Errorf("concurrent write failed: %v", err)
	}
	checkHammered(t, r, acct, shared, racers, racers)
	if wins != 1 {
		t.Fatalf("%d racing ClaimRotation: %d won, want 1", racers, wins)
	}
}

// TestTwoHandlesOnOneFile: two DBs on one file (as two processes would
// be) write at once; the second writer waits for the first under
// busy_timeout instead of failing.
func TestTwoHandlesOnOneFile(t *testing.T) {
	const racers = 25
	first := sqlitetest.NewDB(t)
	second, err := sqliterepo.Open(testCtx(t), first.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Close() })
	acct, shared, hash := uuid.NewString(), "bk_shared", auth.HashToken(uuid.NewString())

	var wg sync.WaitGroup
	results := make([][]error, 2)
	wins := make([]int, 2)
	for i, db := range []*sqliterepo.DB{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], wins[i] = hammer(t, db.Repositories(), racers, acct, shared, hash, fmt.Sprint(i))
		}()
	}
	wg.Wait()
	for _, failures := range results {
		for _, err := range failures {
			t.Errorf("concurrent write failed: %v", err)
		}
	}
	checkHammered(t, first.Repositories(), acct, shared, 2*racers, 2*racers)
	if wins[0]+wins[1] != 1 {
		t.Fatalf("racing ClaimRotation through two handles: %d won, want 1", wins[0]+wins[1])
	}
}

func checkHammered(t *testing.T, r ports.Repositories, acct, shared string, items, accounts int) {
	t.Helper()
	ctx := testCtx(t)
	list, err := r.ReadingLists.List(ctx, acct, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != items+1 {
		t.Fatalf("List after the race = %d items, want %d (one per goroutine and the shared one)", len(list), items+1)
	}
	readers, err := r.ReadingLists.ReadersByBook(ctx, []string{shared})
	if err != nil || readers[shared] != 1 {
		t.Fatalf("ReadersByBook(shared) = %v, %v; want 1", readers, err)
	}
	total, err := r.Progress.TotalSeconds(ctx, acct, shared)
	if err != nil || total != int64(7*items) {
		t.Fatalf("TotalSeconds = %d, %v; want %d", total, err, 7*items)
	}
	progress, err := r.Progress.ListByAccount(ctx, acct)
	if err != nil || len(progress) != items {
		t.Fatalf("ListByAccount = %d records, %v; want %d", len(progress), err, items)
	}
	n, err := r.Accounts.Count(ctx)
	if err != nil || n != int64(accounts) {
		t.Fatalf("Accounts.Count = %d, %v; want %d", n, err, accounts)
	}
}
