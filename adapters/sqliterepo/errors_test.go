package sqliterepo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

func wantUnavailable(t *testing.T, call string, err error) {
	t.Helper()
	if errs.KindOf(err) != errs.Unavailable || errs.CodeOf(err) != "unavailable" {
		t.Fatalf("%s = %v (kind %q, code %q), want Unavailable \"unavailable\"", call, err, errs.KindOf(err), errs.CodeOf(err))
	}
	e, _ := errs.As(err)
	if e.Err == nil {
		t.Fatalf("%s: Unavailable without its cause", call)
	}
}

func TestClosedDatabaseIsUnavailable(t *testing.T) {
	db, err := sqliterepo.Open(testCtx(t), filepath.Join(t.TempDir(), "library.db"))
	if err != nil {
		t.Fatal(err)
	}
	r := db.Repositories()
	if err := r.Health.Ping(testCtx(t)); err != nil {
		t.Fatalf("Ping before Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wantUnavailable(t, "Ping after Close", r.Health.Ping(testCtx(t)))
	_, err = r.Accounts.Get(testCtx(t), uuid.NewString())
	wantUnavailable(t, "Get after Close", err)
	wantUnavailable(t, "Create after Close", r.Accounts.Create(testCtx(t), user.Account{ID: uuid.NewString()}))
	_, _, err = r.ReadingLists.Add(testCtx(t), catalog.ListItem{ID: "rl_1", AccountID: "a", BookID: "b",
		Status: catalog.WantToRead, Priority: catalog.PriorityNormal})
	wantUnavailable(t, "Add (a transaction) after Close", err)
	_, _, err = r.Books.List(testCtx(t), catalog.Query{})
	wantUnavailable(t, "List (a read transaction) after Close", err)
}

func TestPingNoticesTheFileIsGone(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(path string) error
	}{
		{"removed", os.Remove},
		{"replaced", func(path string) error {
			if err := os.Rename(path, path+".old"); err != nil {
				return err
			}
			return os.WriteFile(path, nil, 0o600)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := sqlitetest.NewDB(t)
			h := db.Repositories().Health
			if err := h.Ping(testCtx(t)); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			if err := c.do(db.Path()); err != nil {
				t.Fatal(err)
			}
			wantUnavailable(t, "Ping with the file "+c.name, h.Ping(testCtx(t)))
		})
	}
}

func TestCancelledContextIsUnavailable(t *testing.T) {
	r := sqlitetest.NewDB(t).Repositories()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Accounts.Get(ctx, uuid.NewString())
	wantUnavailable(t, "Get with a cancelled context", err)
	wantUnavailable(t, "RecordSession with a cancelled context", r.Progress.RecordSession(ctx, catalog.ReadingSession{ID: "rs_1"}))
	_, _, err = r.Books.List(ctx, catalog.Query{Terms: []string{"x"}})
	wantUnavailable(t, "List with a cancelled context", err)
	wantUnavailable(t, "Ping with a cancelled context", r.Health.Ping(ctx))
}

// TestLockHeldElsewhereIsUnavailable: another process (here another
// connection) holds the write lock past busy_timeout; the writer gives up
// with SQLITE_BUSY, which is Unavailable, and works again once the lock is
// released.
func TestLockHeldElsewhereIsUnavailable(t *testing.T) {
	db := sqlitetest.NewDB(t, sqliterepo.WithBusyTimeout(50*time.Millisecond))
	r := db.Repositories()
	other := rawDB(t, db.Path())
	other.SetMaxOpenConns(1)
	if _, err := other.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err := r.Accounts.Create(testCtx(t), user.Account{ID: uuid.NewString(), Email: "a@example.org"})
	wantUnavailable(t, "Create while another connection holds the lock", err)
	var se *sqlite.Error
	if e, _ := errs.As(err); !errors.As(e.Err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY {
		t.Fatalf("cause = %v, want SQLITE_BUSY", e.Err)
	}
	// Readers are not blocked by a writer in WAL mode.
	if _, err := r.Accounts.Count(testCtx(t)); err != nil {
		t.Fatalf("Count while another connection holds the write lock: %v", err)
	}
	if _, err := other.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := r.Accounts.Create(testCtx(t), user.Account{ID: uuid.NewString(), Email: "a@example.org"}); err != nil {
		t.Fatalf("Create after the lock is released: %v", err)
	}
}

// TestClientMessagesCarryNoSQL: an unexpected failure is Internal, and
// neither SQL nor the driver's text reaches the message clients see.
func TestClientMessagesCarryNoSQL(t *testing.T) {
	r := sqlitetest.NewDB(t).Repositories()
	a := catalog.Book{ID: "bk_a", Title: "A", CreatedAt: time.Now()}
	texts := []catalog.ChapterText{{ChapterID: "ch_1", BookID: "bk_a", Text: "x"}}
	if err := r.Books.Create(testCtx(t), a, texts); err != nil {
		t.Fatal(err)
	}
	b := catalog.Book{ID: "bk_b", Title: "B", CreatedAt: time.Now()}
	err := r.Books.Create(testCtx(t), b, []catalog.ChapterText{{ChapterID: "ch_1", BookID: "bk_b", Text: "y"}})
	if errs.KindOf(err) != errs.Internal {
		t.Fatalf("Create with another book's chapter id = %v, want Internal", err)
	}
	e, _ := errs.As(err)
	for _, leak := range []string{"INSERT", "chapter_texts", "constraint", "UNIQUE", "SQL"} {
		if strings.Contains(e.Message, leak) {
			t.Fatalf("client message %q contains %q", e.Message, leak)
		}
	}
	if e.Err == nil || !strings.Contains(e.Err.Error(), "UNIQUE") {
		t.Fatalf("cause = %v, want the constraint failure kept for the logs", e.Err)
	}
	// A CHECK failure (a status the schema does not know) is Internal too.
	_, _, err = r.ReadingLists.Add(testCtx(t), catalog.ListItem{ID: "rl_1", AccountID: "a", BookID: "b", Status: "lost", Priority: catalog.PriorityNormal})
	if errs.KindOf(err) != errs.Internal {
		t.Fatalf("Add with an unknown status = %v, want Internal", err)
	}
}
