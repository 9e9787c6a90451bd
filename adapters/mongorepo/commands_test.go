package mongorepo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// TestCommandsPerCall holds the catalog and library reads to a fixed number
// of database commands whatever the catalog's size: the same counts with 30
// books as with 300 (no query per book, no getMore for the sizes the service
// asks; a school's lists come whole in the first reply).
func TestCommandsPerCall(t *testing.T) {
	var counts []map[string]int
	for _, n := range []int{30, 300} {
		t.Run(fmt.Sprintf("%d books", n), func(t *testing.T) {
			counts = append(counts, measureCommands(t, n))
		})
	}
	if len(counts) == 2 && fmt.Sprint(counts[0]) != fmt.Sprint(counts[1]) {
		t.Fatalf("commands per call differ with the catalog's size:\n 30 books: %v\n300 books: %v", counts[0], counts[1])
	}
}

// measureCommands fills a fresh database with n books, reading-list items
// and sessions, and returns the commands each call took, checking them
// against the expected counts.
func measureCommands(t *testing.T, n int) map[string]int {
	const candidateLimit = 200 // what the service asks for
	var counter mongotest.CommandCounter
	db := mongotest.NewDBWithMonitor(t, counter.Monitor())
	r := db.Repositories()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	genres := []string{"fantasy", "history", "science-fiction", "romance", "mystery"}
	levels := []string{user.LevelBeginner, user.LevelIntermediate, user.LevelAdvanced}
	ids := make([]string, 0, n)
	var textIDs []string // the chapter ids of the first candidateLimit books
	for i := range n {
		d := catalog.BookDraft{
			Title: fmt.Sprintf("Harry the %d Potter", i), Author: fmt.Sprintf("Author %d", i%17),
			Genre: genres[i%len(genres)], ReadingLevel: levels[i%len(levels)], Pages: 20,
			Rating: float64(i%50) / 10, PublishedDate: fmt.Sprintf("%04d-01-01", 1900+i%120),
			Chapters: []catalog.ChapterDraft{
				{Title: "One", PageStart: 1, PageEnd: 10, Text: "Once upon a time."},
				{Title: "Two", PageStart: 11, PageEnd: 20, Text: "The end."},
			},
		}
		b, texts, err := catalog.NewBook(fmt.Sprintf("bk_%05d", i), d, func(p string) string { return p + uuid.NewString() }, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Books.Create(ctx, b, texts); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
		if i < candidateLimit {
			for _, text := range texts {
				textIDs = append(textIDs, text.ChapterID)
			}
		}
	}
	// One long book: its texts still come in one reply.
	long := catalog.BookDraft{Title: "Long", Author: "Prolix", Genre: "poetry", ReadingLevel: user.LevelAdvanced, Pages: 150}
	for i := range 150 {
		long.Chapters = append(long.Chapters, catalog.ChapterDraft{Title: fmt.Sprint("Canto ", i+1), PageStart: i + 1, PageEnd: i + 1, Text: "Sing, goddess."})
	}
	longBook, longTexts, err := catalog.NewBook("bk_long", long, func(p string) string { return p + uuid.NewString() }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Books.Create(ctx, longBook, longTexts); err != nil {
		t.Fatal(err)
	}

	for _, text := range longTexts {
		textIDs = append(textIDs, text.ChapterID)
	}
	withMissing := append(slices.Clone(textIDs), "ch_missing")

	account := uuid.NewString()
	for i, id := range ids {
		item := catalog.ListItem{ID: "rl_" + uuid.NewString(), AccountID: uuid.NewString(), BookID: id, Status: catalog.WantToRead, Priority: catalog.PriorityNormal, AddedAt: time.Now(), UpdatedAt: time.Now()}
		if _, _, err := r.ReadingLists.Add(ctx, item); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			s := catalog.ReadingSession{ID: "rs_" + uuid.NewString(), AccountID: account, BookID: ids[0], At: time.Now(), Seconds: 30}
			if err := r.Progress.RecordSession(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		if i%3 == 0 { // the account lists and reads a third of the books
			mine := catalog.ListItem{ID: "rl_" + uuid.NewString(), AccountID: account, BookID: id, Status: catalog.CurrentlyReading, Priority: catalog.PriorityNormal, AddedAt: time.Now(), UpdatedAt: time.Now()}
			if _, _, err := r.ReadingLists.Add(ctx, mine); err != nil {
				t.Fatal(err)
			}
			if err := r.Progress.Save(ctx, catalog.Progress{AccountID: account, BookID: id, PageNumber: 3, LastRead: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Live accounts grow with the catalog; interrupted removals are few.
	const deletedAccounts = 3
	var deletedIDs []string
	for i := range n/10 + deletedAccounts {
		a := user.Account{ID: uuid.NewString(), Email: fmt.Sprintf("u%d@example.org", i), Deleted: i < deletedAccounts}
		if err := r.Accounts.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		if a.Deleted {
			deletedIDs = append(deletedIDs, a.ID)
		}
	}
	batch := ids[:min(len(ids), candidateLimit)]
	lib := seedLibrary(ctx, t, r, n, candidateLimit)

	calls := []struct {
		name string
		want int
		call func(r ports.Repositories) error
	}{
		{"Books.List", 2, func(r ports.Repositories) error {
			q := catalog.Query{Page: 2, Limit: 3, Genre: "fantasy", Terms: catalog.QueryTerms("harr pott"), Sort: catalog.SortRatingDesc}
			books, total, err := r.Books.List(ctx, q)
			if err == nil && (len(books) == 0 || total < 6) {
				err = fmt.Errorf("List returned %d books of %d", len(books), total)
			}
			return err
		}},
		{"Books.List/limit 100", 2, func(r ports.Repositories) error {
			_, _, err := r.Books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortTitle})
			return err
		}},
		{"Books.Get", 1, func(r ports.Repositories) error { _, err := r.Books.Get(ctx, ids[len(ids)/2]); return err }},
		{"Books.GetMany", 1, func(r ports.Repositories) error {
			books, err := r.Books.GetMany(ctx, batch)
			if err == nil && len(books) != len(batch) {
				err = fmt.Errorf("GetMany returned %d books, want %d", len(books), len(batch))
			}
			return err
		}},
		{"Books.Candidates", 1, func(r ports.Repositories) error {
			q := catalog.CandidateQuery{Genres: []string{"fantasy", "history"}, Authors: []string{"Author 3"}, Level: user.LevelAdvanced, Exclude: ids[:5], Limit: candidateLimit}
			books, err := r.Books.Candidates(ctx, q)
			if err == nil && len(books) == 0 {
				err = fmt.Errorf("Candidates returned no book")
			}
			return err
		}},
		{"Books.ChapterText", 1, func(r ports.Repositories) error {
			b, err := r.Books.Get(ctx, ids[0])
			if err != nil {
				return err
			}
			counter.Reset() // only the text
			_, err = r.Books.ChapterText(ctx, b.ID, b.Chapters[1].ID)
			return err
		}},
		{"Books.ChapterTexts", 1, func(r ports.Repositories) error { _, err := r.Books.ChapterTexts(ctx, ids[0]); return err }},
		{"Books.ChapterTexts/150 chapters", 1, func(r ports.Repositories) error {
			texts, err := r.Books.ChapterTexts(ctx, longBook.ID)
			if err == nil && len(texts) != 150 {
				err = fmt.Errorf("ChapterTexts returned %d texts, want 150", len(texts))
			}
			return err
		}},
		{"Books.Count", 1, func(r ports.Repositories) error { _, err := r.Books.Count(ctx); return err }},
		{"ReadingLists.ReadersByBook", 1, func(r ports.Repositories) error {
			readers, err := r.ReadingLists.ReadersByBook(ctx, batch)
			if err == nil && len(readers) != len(batch) {
				err = fmt.Errorf("ReadersByBook returned %d books, want %d", len(readers), len(batch))
			}
			return err
		}},
		{"Progress.TotalSeconds", 1, func(r ports.Repositories) error {
			total, err := r.Progress.TotalSeconds(ctx, account, ids[0])
			if want := int64((n + 9) / 10 * 30); err == nil && total != want {
				err = fmt.Errorf("TotalSeconds = %d, want %d", total, want)
			}
			return err
		}},
		{"Progress.TotalSeconds/none", 1, func(r ports.Repositories) error {
			_, err := r.Progress.TotalSeconds(ctx, uuid.NewString(), ids[0])
			return err
		}},
		{"Progress.SessionTotals", 1, func(r ports.Repositories) error {
			totals, err := r.Progress.SessionTotals(ctx, []string{account, uuid.NewString()}, time.Now().Add(-time.Hour), time.Now(), library.MaxClassReadingEntries)
			if want := int64((n + 9) / 10 * 30); err == nil && (len(totals) != 1 || totals[0].Seconds != want) {
				err = fmt.Errorf("SessionTotals = %+v, want one total of %d seconds", totals, want)
			}
			return err
		}},
		{"Progress.SessionTotals/no accounts", 0, func(r ports.Repositories) error {
			_, err := r.Progress.SessionTotals(ctx, nil, time.Now().Add(-time.Hour), time.Now(), 10)
			return err
		}},
		// A class's term of marked loans, whatever the class holds.
		{"FinishedLoans.OfStudentsBetween", 1, func(r ports.Repositories) error {
			_, err := r.FinishedLoans.OfStudentsBetween(ctx, uuid.NewString(), []string{account, uuid.NewString()}, time.Now().Add(-time.Hour), time.Now(),
				library.MaxClassReadingEntries)
			return err
		}},
		// Every id found fills the batch, which costs an empty getMore
		// on FerretDB unless the batch has room for one more.
		{"Books.ChapterTextsByID", 1, func(r ports.Repositories) error {
			texts, err := r.Books.ChapterTextsByID(ctx, textIDs)
			if err == nil && len(texts) != len(textIDs) {
				err = fmt.Errorf("ChapterTextsByID returned %d texts, want %d", len(texts), len(textIDs))
			}
			return err
		}},
		{"Books.ChapterTextsByID/one missing", 1, func(r ports.Repositories) error {
			texts, err := r.Books.ChapterTextsByID(ctx, withMissing)
			if err == nil && len(texts) != len(textIDs) {
				err = fmt.Errorf("ChapterTextsByID returned %d texts, want %d", len(texts), len(textIDs))
			}
			return err
		}},
		{"Books.ChapterTextsByID/none", 0, func(r ports.Repositories) error {
			_, err := r.Books.ChapterTextsByID(ctx, nil)
			return err
		}},
		{"Accounts.ListDeleted", 1, func(r ports.Repositories) error {
			accounts, err := r.Accounts.ListDeleted(ctx)
			if err == nil && len(accounts) != deletedAccounts {
				err = fmt.Errorf("ListDeleted returned %d accounts, want %d", len(accounts), deletedAccounts)
			}
			return err
		}},
		// The library's list reads: one command however large the school.
		{"Holdings.BooksPage", 2, func(r ports.Repositories) error {
			books, _, err := r.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: lib.school, Limit: 50})
			return wantLen(err, "BooksPage", len(books), min(n, 50))
		}},
		{"Holdings.BooksByID", 1, func(r ports.Repositories) error {
			books, err := r.Holdings.BooksByID(ctx, lib.school, lib.bookBatch)
			return wantLen(err, "BooksByID", len(books), len(lib.bookBatch))
		}},
		{"Holdings.CopyCounts", 1, func(r ports.Repositories) error {
			counts, err := r.Holdings.CopyCounts(ctx, lib.school, lib.bookBatch)
			return wantLen(err, "CopyCounts", len(counts), len(lib.bookBatch))
		}},
		{"ActiveLoans.ClaimsOfBooks", 1, func(r ports.Repositories) error {
			claims, err := r.ActiveLoans.ClaimsOfBooks(ctx, lib.school, lib.bookBatch)
			return wantLen(err, "ClaimsOfBooks", len(claims), len(lib.bookBatch))
		}},
		{"ActiveLoans.ClaimsOfCopies", 1, func(r ports.Repositories) error {
			claims, err := r.ActiveLoans.ClaimsOfCopies(ctx, lib.claimBatch)
			return wantLen(err, "ClaimsByCopy", len(claims), len(lib.claimBatch))
		}},
		{"Loans.Open", 1, func(r ports.Repositories) error {
			loans, err := r.Loans.Open(ctx, lib.school, "", "")
			return wantLen(err, "OpenLoans", len(loans), n)
		}},
		{"Loans.ByIDs", 1, func(r ports.Repositories) error {
			loans, err := r.Loans.ByIDs(ctx, lib.loanBatch)
			return wantLen(err, "LoansByID", len(loans), len(lib.loanBatch))
		}},
		{"Loans.Renewals", 1, func(r ports.Repositories) error {
			renewals, err := r.Loans.Renewals(ctx, lib.loanBatch)
			return wantLen(err, "Renewals", len(renewals), 2*len(lib.loanBatch))
		}},
		{"Accounts.ListBySchool", 1, func(r ports.Repositories) error {
			accounts, err := r.Accounts.ListBySchool(ctx, lib.school, nil)
			return wantLen(err, "ListBySchool", len(accounts), n)
		}},
		{"Students.Search", 2, func(r ports.Repositories) error {
			students, _, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: lib.school, Terms: []string{"stud"}, Limit: 20})
			return wantLen(err, "Students.Search", len(students), min(n, 20))
		}},
		// The app links: one command each.
		{"AppLinks.AppBooksByWorkKeys", 1, func(r ports.Repositories) error {
			var keys []string
			for i := range min(n, 50) {
				keys = append(keys, catalog.WorkKey(fmt.Sprintf("Harry the %d Potter", i), fmt.Sprintf("Author %d", i%17)))
			}
			books, err := r.AppLinks.AppBooksByWorkKeys(ctx, keys, 50)
			return wantLen(err, "AppBooksByWorkKeys", len(books), len(keys))
		}},
		{"AppLinks.AppBooksByISBN13", 1, func(r ports.Repositories) error {
			_, err := r.AppLinks.AppBooksByISBN13(ctx, []string{"9780140328721"}, 50)
			return err
		}},
		{"AppLinks.LibraryBooksByWorkKeys", 1, func(r ports.Repositories) error {
			_, err := r.AppLinks.LibraryBooksByWorkKeys(ctx, lib.school, []string{catalog.WorkKey("Title 1", "Anon")}, 50)
			return err
		}},
		{"AppLinks.SaveChoice", 1, func(r ports.Repositories) error {
			return r.AppLinks.SaveChoice(ctx, library.AppLinkChoice{SchoolID: lib.school, BookID: lib.bookBatch[0], AppBookID: ids[0], Same: true, At: time.Now()})
		}},
		{"AppLinks.ChoicesForBooks", 1, func(r ports.Repositories) error {
			choices, err := r.AppLinks.ChoicesForBooks(ctx, lib.school, lib.bookBatch)
			return wantLen(err, "ChoicesForBooks", len(choices), 1)
		}},
		{"AppLinks.ChoicesForAppBook", 1, func(r ports.Repositories) error {
			choices, err := r.AppLinks.ChoicesForAppBook(ctx, lib.school, ids[0], library.MaxAppLinkChoicesPerBook)
			return wantLen(err, "ChoicesForAppBook", len(choices), 1)
		}},
		{"AppLinks.ChoicesForAppBooks", 1, func(r ports.Repositories) error {
			choices, err := r.AppLinks.ChoicesForAppBooks(ctx, lib.school, ids, 50)
			return wantLen(err, "ChoicesForAppBooks", len(choices), 1)
		}},
		{"AppLinks.RemoveChoice", 1, func(r ports.Repositories) error {
			return r.AppLinks.RemoveChoice(ctx, lib.school, lib.bookBatch[0], ids[0])
		}},
		// The removals come last: they empty what the reads above count.
		{"Accounts.Delete", 1, func(r ports.Repositories) error { return r.Accounts.Delete(ctx, deletedIDs[0]) }},
		{"ReadingLists.DeleteByAccount", 1, func(r ports.Repositories) error { return r.ReadingLists.DeleteByAccount(ctx, account) }},
		{"Progress.DeleteByAccount", 2, func(r ports.Repositories) error { return r.Progress.DeleteByAccount(ctx, account) }},
	}
	got := map[string]int{}
	for _, c := range calls {
		counter.Reset()
		if err := c.call(r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got[c.name] = counter.Total()
		t.Logf("%-32s %d command(s) %v", c.name, counter.Total(), counter.ByName())
		if counter.Total() != c.want {
			t.Errorf("%s took %d commands %v, want %d", c.name, counter.Total(), counter.ByName(), c.want)
		}
	}
	checkRemoved(ctx, t, r, account, deletedIDs[0], ids[0])
	return got
}

// wantLen is err, or an error when a call returned got items, not want.
func wantLen(err error, call string, got, want int) error {
	if err == nil && got != want {
		err = fmt.Errorf("%s returned %d items, want %d", call, got, want)
	}
	return err
}

// libraryData is what seedLibrary stored.
type libraryData struct {
	school     string
	bookBatch  []string // book ids, as many as a page asks
	claimBatch []string // claimed copy ids, likewise
	loanBatch  []string // open loan ids, likewise; each renewed twice
}

// seedLibrary fills one school with n books, two copies of each, n open
// loans whose claims hold the first copies, two renewals of the first
// batch loans, and n students without an email.
func seedLibrary(ctx context.Context, t *testing.T, r ports.Repositories, n, batch int) libraryData {
	t.Helper()
	d := libraryData{school: uuid.NewString()}
	var copies []library.Copy
	for i := range n {
		b := library.Book{ID: uuid.NewString(), SchoolID: d.school, ISBN: fmt.Sprintf("978%010d", i), Title: fmt.Sprintf("Title %d", i), CreatedAt: time.Now()}
		if err := r.Holdings.CreateBook(ctx, b); err != nil {
			t.Fatal(err)
		}
		for j := range 2 {
			copies = append(copies, library.Copy{ID: uuid.NewString(), SchoolID: d.school, BookID: b.ID, Code: fmt.Sprintf("C%05d-%d", i, j), CreatedAt: time.Now()})
		}
		if i < batch {
			d.bookBatch = append(d.bookBatch, b.ID)
		}
	}
	if dups, err := r.Holdings.CreateCopies(ctx, copies); err != nil || len(dups) != 0 {
		t.Fatalf("CreateCopies: duplicates %v, %v", dups, err)
	}
	for i := range n {
		c := copies[2*i]
		student := user.Account{ID: uuid.NewString(), Name: fmt.Sprintf("Student %d", i), Role: user.RoleStudent, SchoolID: d.school}
		if err := r.Accounts.Create(ctx, student); err != nil {
			t.Fatal(err)
		}
		l := library.Loan{ID: uuid.NewString(), SchoolID: d.school, BookID: c.BookID, CopyID: c.ID, CopyCode: c.Code, StudentID: student.ID, LoanedAt: time.Now(), DueAt: "2026-12-01"}
		if err := r.Loans.Insert(ctx, l); err != nil {
			t.Fatal(err)
		}
		if err := r.ActiveLoans.Claim(ctx, library.CopyClaim{CopyID: c.ID, LoanID: l.ID, SchoolID: d.school, BookID: c.BookID, ClaimedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if i >= batch {
			continue
		}
		d.claimBatch = append(d.claimBatch, c.ID)
		d.loanBatch = append(d.loanBatch, l.ID)
		for number := 1; number <= 2; number++ {
			if err := r.Loans.AddRenewal(ctx, library.Renewal{LoanID: l.ID, Number: number, DueAt: "2026-12-08", RenewedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return d
}

// checkRemoved checks that the removals measured above removed everything
// of the account, and that the deleted account is gone.
func checkRemoved(ctx context.Context, t *testing.T, r ports.Repositories, account, deletedID, bookID string) {
	t.Helper()
	if _, err := r.Accounts.Get(ctx, deletedID); errs.CodeOf(err) != "account_not_found" {
		t.Errorf("Get of the deleted account: %v, want account_not_found", err)
	}
	if items, err := r.ReadingLists.List(ctx, account, ""); err != nil || len(items) != 0 {
		t.Errorf("reading list after DeleteByAccount: %d items, %v; want none", len(items), err)
	}
	if progress, err := r.Progress.ListByAccount(ctx, account); err != nil || len(progress) != 0 {
		t.Errorf("progress after DeleteByAccount: %d records, %v; want none", len(progress), err)
	}
	if total, err := r.Progress.TotalSeconds(ctx, account, bookID); err != nil || total != 0 {
		t.Errorf("TotalSeconds after DeleteByAccount = %d, %v; want 0", total, err)
	}
}

// TestCommandCounterIgnoresUpkeep checks that the counter leaves out the
// driver's own commands and sees every repository command.
func TestCommandCounterIgnoresUpkeep(t *testing.T) {
	var counter mongotest.CommandCounter
	db := mongotest.NewDBWithMonitor(t, counter.Monitor())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if counter.ByName()["createIndexes"] == 0 {
		t.Fatalf("counts after NewDBWithMonitor = %v, want the createIndexes commands", counter.ByName())
	}
	counter.Reset()
	if counter.Total() != 0 || len(counter.ByName()) != 0 {
		t.Fatalf("after Reset: Total %d, ByName %v, want nothing", counter.Total(), counter.ByName())
	}
	if err := db.Repositories().Health.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if counter.Total() != 0 {
		t.Fatalf("Ping counted as %v, want nothing", counter.ByName())
	}
	if _, err := db.Repositories().Books.Count(ctx); err != nil {
		t.Fatal(err)
	}
	if counter.Total() != 1 {
		t.Fatalf("Count counted as %v, want one command", counter.ByName())
	}
}
