package sqliterepo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// writeRound is one round of a backup test's writer: a student, a library
// book with four copies (one statement), a loan with its claim and a
// renewal, returned and released every other round, and every third round
// a catalog book with two chapters (one transaction).
func writeRound(ctx context.Context, r ports.Repositories, w, i int) error {
	id := fmt.Sprintf("w%d-%04d", w, i)
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	if err := r.Accounts.Create(ctx, user.Account{ID: "acct-" + id, Name: "Pupil " + id, Role: user.RoleStudent,
		SchoolID: "alder", CreatedAt: at, UpdatedAt: at}); err != nil {
		return err
	}
	book := library.Book{ID: "lb-" + id, SchoolID: "alder", Title: "Title " + id, Author: "Author", CreatedAt: at}
	if err := r.Holdings.CreateBook(ctx, book); err != nil {
		return err
	}
	var copies []library.Copy
	for k := range 4 {
		copies = append(copies, library.Copy{ID: fmt.Sprintf("cp-%s-%d", id, k), SchoolID: "alder", BookID: book.ID,
			Code: fmt.Sprintf("C-%s-%d", id, k), CreatedAt: at})
	}
	if dups, err := r.Holdings.CreateCopies(ctx, copies); err != nil || len(dups) != 0 {
		return fmt.Errorf("CreateCopies: %v, duplicates %v", err, dups)
	}
	loan := library.Loan{ID: "ln-" + id, SchoolID: "alder", BookID: book.ID, CopyID: copies[0].ID, CopyCode: copies[0].Code,
		StudentID: "acct-" + id, LoanedAt: at, DueAt: "2025-03-15", BookTitle: book.Title, BookAuthor: book.Author}
	if err := r.Loans.Insert(ctx, loan); err != nil {
		return err
	}
	if err := r.ActiveLoans.Claim(ctx, library.CopyClaim{CopyID: loan.CopyID, LoanID: loan.ID, SchoolID: "alder", BookID: book.ID, ClaimedAt: at}); err != nil {
		return err
	}
	if err := r.Loans.AddRenewal(ctx, library.Renewal{LoanID: loan.ID, Number: 1, DueAt: "2025-03-22", RenewedAt: at}); err != nil {
		return err
	}
	if i%2 == 0 {
		if err := r.Loans.MarkReturned(ctx, loan.ID, at.Add(time.Hour)); err != nil {
			return err
		}
		if err := r.ActiveLoans.Release(ctx, loan.CopyID, loan.ID); err != nil {
			return err
		}
	}
	if i%3 == 0 {
		n := 0
		b, texts, err := catalog.NewBook("bk-"+id, catalog.BookDraft{Title: "Book " + id, Author: "Writer", Genre: "fantasy",
			ReadingLevel: user.LevelBeginner, Pages: 9, PublishedDate: "2001-02-03",
			Chapters: []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 5, Text: "one"}, {Title: "Two", PageStart: 6, PageEnd: 9, Text: "two"}},
		}, func(string) string { n++; return fmt.Sprintf("ch-%s-%d", id, n) }, at)
		if err != nil {
			return err
		}
		if err := r.Books.Create(ctx, b, texts); err != nil {
			return err
		}
	}
	return nil
}

// TestBackupWhileWriting takes a backup while 8 goroutines keep writing,
// and opens it: the file is sound, holds whole transactions and statements
// only (a book with all its copies and chapters or none, a claim only with
// its loan, counters and search indexes that agree with the rows), and
// holds at least what was written before the backup began and at most what
// was written before it ended.
func TestBackupWhileWriting(t *testing.T) {
	db := sqlitetest.NewDB(t)
	r := db.Repositories()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const writers = 8
	var (
		rounds   atomic.Int64
		failed   atomic.Bool
		stop     atomic.Bool
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []error
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				if err := writeRound(ctx, r, w, i); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Errorf("writer %d round %d: %w", w, i, err))
					mu.Unlock()
					failed.Store(true)
					return
				}
				rounds.Add(1)
			}
		}()
	}
	// waitRounds waits until n rounds are done in all, a writer fails, or
	// the test's time runs out.
	waitRounds := func(n int64) {
		for rounds.Load() < n && !failed.Load() && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitRounds(3 * writers)
	accountsBefore, err := r.Accounts.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	backupErr := db.Backup(ctx, path)
	accountsAfter, err := r.Accounts.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The writers go on after the backup, on the same database.
	waitRounds(rounds.Load() + writers)
	stop.Store(true)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatal(errors.Join(failures...))
	}
	if backupErr != nil {
		t.Fatalf("Backup while writing: %v", backupErr)
	}
	if entries, err := os.ReadDir(filepath.Dir(path)); err != nil || len(entries) != 1 {
		t.Fatalf("backup directory holds %v (%v), want the backup alone", entries, err)
	}

	raw := rawDB(t, path)
	var check string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of the backup = %q, %v", check, err)
	}
	for _, fts := range []string{"books_fts", "library_books_fts", "students_fts"} {
		if _, err := raw.Exec(fmt.Sprintf(`INSERT INTO %s (%s) VALUES ('integrity-check')`, fts, fts)); err != nil {
			t.Fatalf("integrity-check of %s in the backup: %v", fts, err)
		}
	}
	if rows, err := raw.Query(`PRAGMA foreign_key_check`); err != nil || rows.Next() {
		t.Fatalf("foreign_key_check of the backup found violations (%v)", err)
	} else {
		rows.Close()
	}
	for _, c := range []struct{ name, rows, counter string }{
		{"accounts", `SELECT count(*) FROM accounts`, `SELECT n FROM counters WHERE name = 'accounts'`},
		{"books", `SELECT count(*) FROM books`, `SELECT n FROM counters WHERE name = 'books'`},
		// A book's copies come in one statement: four or none.
		{"library books with copies", `SELECT count(*) FROM library_books AS b WHERE (SELECT count(*) FROM copies WHERE book_id = b.id) = 4`,
			`SELECT count(DISTINCT book_id) FROM copies`},
		{"copies", `SELECT count(*) FROM copies`, `SELECT 4 * count(DISTINCT book_id) FROM copies`},
		// A claim is taken after its loan is stored, and names its copy.
		{"claims with their loan", `SELECT count(*) FROM copy_claims AS c JOIN loans AS l ON l.id = c.loan_id AND l.copy_id = c.copy_id`,
			`SELECT count(*) FROM copy_claims`},
		// A catalog book and its chapters and texts are one transaction.
		{"chapters", `SELECT count(*) FROM book_chapters`, `SELECT 2 * count(*) FROM books`},
		{"chapter texts", `SELECT count(*) FROM chapter_texts`, `SELECT 2 * count(*) FROM books`},
		{"students in the index", `SELECT count(*) FROM students_fts`, `SELECT count(*) FROM accounts`},
		{"library books in the index", `SELECT count(*) FROM library_books_fts`, `SELECT count(*) FROM library_books`},
	} {
		var got, want int64
		if err := raw.QueryRow(c.rows).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := raw.QueryRow(c.counter).Scan(&want); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != want {
			t.Errorf("backup: %s = %d, want %d", c.name, got, want)
		}
	}

	restored, err := sqliterepo.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of the backup: %v", err)
	}
	defer restored.Close()
	rr := restored.Repositories()
	n, err := rr.Accounts.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n < accountsBefore || n > accountsAfter {
		t.Fatalf("the backup holds %d accounts, want between %d (before it began) and %d (when it ended)", n, accountsBefore, accountsAfter)
	}
	all, total, err := rr.Students.Search(ctx, library.StudentQuery{SchoolID: "alder", Limit: 1})
	if err != nil || int64(total) != n || len(all) != 1 {
		t.Fatalf("Search of the backup = %d of %d, %v; want 1 of %d", len(all), total, err, n)
	}
	if _, found, err := rr.Students.Search(ctx, library.StudentQuery{SchoolID: "alder", Terms: []string{"pupil"}, Limit: 1}); err != nil || found != total {
		t.Fatalf("Search pupil in the backup = total %d, %v; want %d", found, err, total)
	}
	_, books, err := rr.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: "alder", Limit: 1})
	if err != nil || books == 0 {
		t.Fatalf("BooksPage of the backup = total %d, %v", books, err)
	}
	if _, found, err := rr.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: "alder", Terms: []string{"title"}, Limit: 1}); err != nil || found != books {
		t.Fatalf("BooksPage title in the backup = total %d, %v; want %d", found, err, books)
	}
	if err := writeRound(ctx, rr, 99, 0); err != nil {
		t.Fatalf("a write to the restored backup: %v", err)
	}
}

// TestBackupRefusesAnExistingFile: a file at the target, the database's own
// included, is never overwritten, and nothing is left behind.
func TestBackupRefusesAnExistingFile(t *testing.T) {
	db := sqlitetest.NewDB(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "taken.db")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{target, db.Path()} {
		err := db.Backup(testCtx(t), path)
		if !errors.Is(err, sqliterepo.ErrBackupExists) {
			t.Fatalf("Backup to the existing %s = %v, want ErrBackupExists", path, err)
		}
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "keep me" {
		t.Fatalf("the existing file now holds %q (%v)", got, err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Fatalf("directory after refused backups: %v (%v), want the existing file alone", entries, err)
	}
}

// TestBackupThatFailsLeavesNoFile: a backup whose context has ended fails,
// and leaves no file under its name and no temporary file.
func TestBackupThatFailsLeavesNoFile(t *testing.T) {
	db := sqlitetest.NewDB(t)
	if err := db.Repositories().Accounts.Create(testCtx(t), user.Account{ID: "a1", Name: "Ada"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Backup(ctx, filepath.Join(dir, "backup.db")); err == nil {
		t.Fatal("Backup with an ended context succeeded")
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("directory after a failed backup: %v (%v), want it empty", entries, err)
	}
	// The same name works afterwards.
	path := filepath.Join(dir, "backup.db")
	if err := db.Backup(testCtx(t), path); err != nil {
		t.Fatal(err)
	}
	restored, err := sqliterepo.Open(testCtx(t), path)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if _, err := restored.Repositories().Accounts.Get(testCtx(t), "a1"); err != nil {
		t.Fatalf("Get from the backup: %v", err)
	}
}
