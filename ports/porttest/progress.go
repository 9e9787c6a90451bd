package porttest

// The reading progress and session ports' contract, run by the Catalog
// suite, and the Progress suite for what came after it.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Progress", Progress)

// Progress checks the part of the ports.ProgressRepository contract that
// the Catalog suite does not: the sessions summed per account and book.
// newRepos must return empty repositories that no other subtest sees.
func Progress(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	tests := []struct {
		name string
		run  func(t *testing.T, r ports.Repositories)
	}{
		{"SessionTotals", testProgressSessionTotals},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

func checkProgress(t *testing.T, call string, got, want catalog.Progress) {
	t.Helper()
	if !sameTime(got.LastRead, want.LastRead) || !sameTime(got.CompletedAt, want.CompletedAt) || got.Completed() != want.Completed() {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.LastRead, got.CompletedAt, want.LastRead, want.CompletedAt)
	}
	got.LastRead, got.CompletedAt = want.LastRead, want.CompletedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkSession(t *testing.T, call string, got, want catalog.ReadingSession) {
	t.Helper()
	if !sameTime(got.At, want.At) {
		t.Errorf("%s: At = %v, want %v (at ms precision)", call, got.At, want.At)
	}
	got.At = want.At
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func newSession(accountID, bookID string, at time.Time, seconds int) catalog.ReadingSession {
	return catalog.ReadingSession{
		ID: newID("rs_"), AccountID: accountID, BookID: bookID, At: at, LocalDay: at.Format(time.DateOnly),
		Seconds: seconds, FromPage: 10, ToPage: 25, PagesAdvanced: 15, WordsRead: 4200, Completed: true,
	}
}

func testProgressGetMissing(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	_, err := r.Progress.Get(ctx(t), acct, book)
	wantErr(t, "Get", err, errs.NotFound, "progress_not_found")
	must(t, "Save", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct, BookID: book, PageNumber: 1, LastRead: base}))
	_, err = r.Progress.Get(ctx(t), uuid.NewString(), book)
	wantErr(t, "Get another account's", err, errs.NotFound, "progress_not_found")
	_, err = r.Progress.Get(ctx(t), acct, newID(catalog.BookIDPrefix))
	wantErr(t, "Get another book's", err, errs.NotFound, "progress_not_found")
}

func testProgressSaveGetOverwrite(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	p := catalog.Progress{
		AccountID: acct, BookID: book, PageNumber: 120, Percentage: 40.5, MaxPage: 200, MaxPercentage: 66.7,
		LastRead: base, CompletedAt: base.Add(-time.Hour),
	}
	must(t, "Save", r.Progress.Save(ctx(t), p))
	got, err := r.Progress.Get(ctx(t), acct, book)
	must(t, "Get", err)
	checkProgress(t, "Get", got, p)

	// Last write wins, a zero CompletedAt included.
	p2 := catalog.Progress{AccountID: acct, BookID: book, PageNumber: 3, Percentage: 1, MaxPage: 3, MaxPercentage: 1, LastRead: base.Add(time.Hour)}
	must(t, "Save again", r.Progress.Save(ctx(t), p2))
	got, err = r.Progress.Get(ctx(t), acct, book)
	must(t, "Get after overwrite", err)
	checkProgress(t, "Get after overwrite", got, p2)
	if got.Completed() {
		t.Fatalf("Completed() after saving a zero CompletedAt = true, want false (CompletedAt %v)", got.CompletedAt)
	}
	all, err := r.Progress.ListByAccount(ctx(t), acct)
	must(t, "ListByAccount", err)
	if len(all) != 1 {
		t.Fatalf("ListByAccount after two Saves of one book = %d records, want 1", len(all))
	}
}

func testProgressListByAccount(t *testing.T, r ports.Repositories) {
	acct := uuid.NewString()
	var want []catalog.Progress
	for i, book := range []string{"bk_c", "bk_a", "bk_b"} {
		p := catalog.Progress{AccountID: acct, BookID: book, PageNumber: i + 1, Percentage: float64(10 * (i + 1)), LastRead: base.Add(time.Duration(i) * time.Minute)}
		must(t, "Save", r.Progress.Save(ctx(t), p))
		want = append(want, p)
	}
	// Accounts whose ids start like acct's must not leak into its list.
	must(t, "Save other", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct + "|x", BookID: "bk_a", LastRead: base}))
	must(t, "Save other", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct + "x", BookID: "bk_a", LastRead: base}))
	must(t, "Save other", r.Progress.Save(ctx(t), catalog.Progress{AccountID: uuid.NewString(), BookID: "bk_a", LastRead: base}))

	got, err := r.Progress.ListByAccount(ctx(t), acct)
	must(t, "ListByAccount", err)
	if len(got) != 3 {
		t.Fatalf("ListByAccount = %d records, want 3: %+v", len(got), got)
	}
	slices.SortFunc(want, func(a, b catalog.Progress) int { return strings.Compare(a.BookID, b.BookID) })
	for i := range got {
		checkProgress(t, fmt.Sprintf("ListByAccount[%d]", i), got[i], want[i])
	}
	got, err = r.Progress.ListByAccount(ctx(t), uuid.NewString())
	must(t, "ListByAccount of an account without progress", err)
	if len(got) != 0 {
		t.Fatalf("ListByAccount of an account without progress = %d records, want 0", len(got))
	}
}

func testProgressSessionDuplicate(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	s := newSession(acct, book, base, 60)
	must(t, "RecordSession", r.Progress.RecordSession(ctx(t), s))
	dup := newSession(acct, book, base.Add(time.Hour), 999)
	dup.ID = s.ID
	wantErr(t, "RecordSession same id", r.Progress.RecordSession(ctx(t), dup), errs.Conflict, "session_exists")

	got, err := r.Progress.Sessions(ctx(t), acct)
	must(t, "Sessions", err)
	if len(got) != 1 {
		t.Fatalf("Sessions after a refused duplicate = %d, want 1", len(got))
	}
	checkSession(t, "Sessions[0]", got[0], s)
	total, err := r.Progress.TotalSeconds(ctx(t), acct, book)
	must(t, "TotalSeconds", err)
	if total != 60 {
		t.Fatalf("TotalSeconds after a refused duplicate = %d, want 60", total)
	}
}

func testProgressConcurrentSessions(t *testing.T, r ports.Repositories) {
	const racers, seconds = 50, 7
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	total, err := r.Progress.TotalSeconds(ctx(t), acct, book)
	must(t, "TotalSeconds before any session", err)
	if total != 0 {
		t.Fatalf("TotalSeconds before any session = %d, want 0", total)
	}
	// Time on another book and by another account must not count.
	must(t, "RecordSession other book", r.Progress.RecordSession(ctx(t), newSession(acct, newID(catalog.BookIDPrefix), base, 1000)))
	must(t, "RecordSession other account", r.Progress.RecordSession(ctx(t), newSession(uuid.NewString(), book, base, 1000)))

	c := ctx(t)
	errCh := make(chan error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errCh <- r.Progress.RecordSession(c, newSession(acct, book, base.Add(time.Duration(i)*time.Millisecond), seconds))
		}()
	}
	start.Done()
	done.Wait()
	close(errCh)
	for err := range errCh {
		must(t, "RecordSession", err)
	}
	total, err = r.Progress.TotalSeconds(ctx(t), acct, book)
	must(t, "TotalSeconds", err)
	if total != racers*seconds {
		t.Fatalf("TotalSeconds after %d concurrent sessions of %ds = %d, want %d (time lost)", racers, seconds, total, racers*seconds)
	}
}

func testProgressSessionsOrdered(t *testing.T, r ports.Repositories) {
	acct := uuid.NewString()
	s1 := newSession(acct, "bk_a", base.Add(2*time.Hour), 30)
	s2 := newSession(acct, "bk_b", base, 40)
	s3 := newSession(acct, "bk_a", base.Add(time.Hour), 50)
	s3.Completed, s3.LocalDay, s3.FromPage, s3.ToPage, s3.PagesAdvanced, s3.WordsRead = false, "2025-03-13", 0, 0, 0, 0
	for _, s := range []catalog.ReadingSession{s1, s2, s3, newSession(uuid.NewString(), "bk_a", base, 10)} {
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), s))
	}
	got, err := r.Progress.Sessions(ctx(t), acct)
	must(t, "Sessions", err)
	want := []catalog.ReadingSession{s2, s3, s1}
	if len(got) != len(want) {
		t.Fatalf("Sessions = %d, want %d", len(got), len(want))
	}
	for i := range want {
		checkSession(t, fmt.Sprintf("Sessions[%d]", i), got[i], want[i])
	}
	got, err = r.Progress.Sessions(ctx(t), uuid.NewString())
	must(t, "Sessions of an account without sessions", err)
	if len(got) != 0 {
		t.Fatalf("Sessions of an account without sessions = %d, want 0", len(got))
	}
}

func testProgressDeleteByAccount(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	// Accounts whose ids start like acct's keep what they have.
	lookalikes := []string{acct + "|x", acct + "x"}
	for _, book := range []string{"bk_a", "bk_b"} {
		must(t, "Save", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct, BookID: book, PageNumber: 5, LastRead: base}))
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), newSession(acct, book, base, 60)))
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), newSession(acct, book, base.Add(time.Hour), 30)))
	}
	keep := map[string]catalog.Progress{}
	for _, a := range append([]string{other}, lookalikes...) {
		p := catalog.Progress{AccountID: a, BookID: "bk_a", PageNumber: 7, Percentage: 12.5, LastRead: base}
		must(t, "Save "+a, r.Progress.Save(ctx(t), p))
		must(t, "RecordSession "+a, r.Progress.RecordSession(ctx(t), newSession(a, "bk_a", base, 45)))
		keep[a] = p
	}

	must(t, "DeleteByAccount", r.Progress.DeleteByAccount(ctx(t), acct))
	for _, book := range []string{"bk_a", "bk_b"} {
		_, err := r.Progress.Get(ctx(t), acct, book)
		wantErr(t, "Get deleted progress", err, errs.NotFound, "progress_not_found")
		total, err := r.Progress.TotalSeconds(ctx(t), acct, book)
		must(t, "TotalSeconds", err)
		if total != 0 {
			t.Fatalf("TotalSeconds on %s after DeleteByAccount = %d, want 0", book, total)
		}
	}
	all, err := r.Progress.ListByAccount(ctx(t), acct)
	must(t, "ListByAccount", err)
	if len(all) != 0 {
		t.Fatalf("ListByAccount after DeleteByAccount = %d records, want 0", len(all))
	}
	sessions, err := r.Progress.Sessions(ctx(t), acct)
	must(t, "Sessions", err)
	if len(sessions) != 0 {
		t.Fatalf("Sessions after DeleteByAccount = %d, want 0", len(sessions))
	}

	for a, p := range keep {
		got, err := r.Progress.Get(ctx(t), a, "bk_a")
		must(t, "Get kept progress of "+a, err)
		checkProgress(t, "Get kept progress of "+a, got, p)
		all, err := r.Progress.ListByAccount(ctx(t), a)
		must(t, "ListByAccount "+a, err)
		if len(all) != 1 {
			t.Fatalf("ListByAccount of %s after another's DeleteByAccount = %d records, want 1", a, len(all))
		}
		sessions, err := r.Progress.Sessions(ctx(t), a)
		must(t, "Sessions "+a, err)
		if len(sessions) != 1 {
			t.Fatalf("Sessions of %s after another's DeleteByAccount = %d, want 1", a, len(sessions))
		}
		total, err := r.Progress.TotalSeconds(ctx(t), a, "bk_a")
		must(t, "TotalSeconds "+a, err)
		if total != 45 {
			t.Fatalf("TotalSeconds of %s after another's DeleteByAccount = %d, want 45", a, total)
		}
	}

	must(t, "DeleteByAccount again", r.Progress.DeleteByAccount(ctx(t), acct))
	must(t, "DeleteByAccount without progress", r.Progress.DeleteByAccount(ctx(t), uuid.NewString()))
	// Reading again starts from nothing.
	must(t, "RecordSession after DeleteByAccount", r.Progress.RecordSession(ctx(t), newSession(acct, "bk_a", base.Add(2*time.Hour), 10)))
	total, err := r.Progress.TotalSeconds(ctx(t), acct, "bk_a")
	must(t, "TotalSeconds after reading again", err)
	if total != 10 {
		t.Fatalf("TotalSeconds after DeleteByAccount and one new session = %d, want 10", total)
	}
}

func testProgressSessionTotals(t *testing.T, r ports.Repositories) {
	a1, a2, idle, notAsked := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	b1, b2, b3 := newID(catalog.BookIDPrefix), newID(catalog.BookIDPrefix), newID(catalog.BookIDPrefix)
	// base has sub-millisecond digits: the bounds hold at the stores'
	// millisecond precision, and a millisecond past them is outside.
	from, to := base, base.Add(48*time.Hour)
	hour := func(n int) time.Time { return from.Add(time.Duration(n) * time.Hour) }
	session := func(acct, book string, at time.Time, seconds int, completed bool) catalog.ReadingSession {
		s := newSession(acct, book, at, seconds)
		s.Completed = completed
		return s
	}
	for _, s := range []catalog.ReadingSession{
		session(a1, b1, from, 60, false), // the lower bound
		session(a1, b1, hour(1), 30, true),
		session(a1, b1, hour(2), 20, false),
		session(a1, b1, from.Add(-time.Millisecond), 1000, true), // just before
		session(a1, b2, to, 40, false),                           // the upper bound
		session(a1, b2, to.Add(time.Millisecond), 500, true),     // just after: b2 is not completed in range
		session(a1, b3, from.Add(-24*time.Hour), 70, true),       // b3 only before the period
		session(a2, b1, hour(3), 15, true),
		session(a2, b1, hour(5), 25, true), // the latest completing session counts
		session(a2, b3, hour(4), 0, false),
		session(notAsked, b1, hour(1), 999, true),
	} {
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), s))
	}
	want := []catalog.SessionTotal{
		{AccountID: a1, BookID: b1, Seconds: 110, LastAt: hour(2), CompletedAt: hour(1)},
		{AccountID: a1, BookID: b2, Seconds: 40, LastAt: to},
		{AccountID: a2, BookID: b1, Seconds: 40, LastAt: hour(5), CompletedAt: hour(5)},
		{AccountID: a2, BookID: b3, Seconds: 0, LastAt: hour(4)},
	}
	sortTotals(want)
	accounts := []string{a1, a2, idle}

	for _, limit := range []int{len(want), 100} {
		got, err := r.Progress.SessionTotals(ctx(t), accounts, from, to, limit)
		must(t, "SessionTotals", err)
		sortTotals(got)
		if len(got) != len(want) {
			t.Fatalf("SessionTotals(limit %d) = %d totals, want %d:\n got %+v\nwant %+v", limit, len(got), len(want), got, want)
		}
		for i := range want {
			checkSessionTotal(t, fmt.Sprintf("SessionTotals(limit %d)[%d]", limit, i), got[i], want[i])
		}
	}

	// Fewer totals than there are, each of them whole.
	got, err := r.Progress.SessionTotals(ctx(t), accounts, from, to, 2)
	must(t, "SessionTotals limit 2", err)
	if len(got) != 2 {
		t.Fatalf("SessionTotals(limit 2) = %d totals, want 2: %+v", len(got), got)
	}
	for i, g := range got {
		j := slices.IndexFunc(want, func(w catalog.SessionTotal) bool { return w.AccountID == g.AccountID && w.BookID == g.BookID })
		if j < 0 {
			t.Fatalf("SessionTotals(limit 2)[%d] = %+v, a total not asked for", i, g)
		}
		checkSessionTotal(t, fmt.Sprintf("SessionTotals(limit 2)[%d]", i), g, want[j])
	}
	if got[0].AccountID == got[1].AccountID && got[0].BookID == got[1].BookID {
		t.Fatalf("SessionTotals(limit 2) returned one total twice: %+v", got)
	}

	for _, none := range [][]string{nil, {}} {
		got, err := r.Progress.SessionTotals(ctx(t), none, from, to, 10)
		must(t, "SessionTotals of no accounts", err)
		if len(got) != 0 {
			t.Fatalf("SessionTotals of no accounts = %+v, want none", got)
		}
	}
	got, err = r.Progress.SessionTotals(ctx(t), []string{idle}, from, to, 10)
	must(t, "SessionTotals of an account without sessions", err)
	if len(got) != 0 {
		t.Fatalf("SessionTotals of an account without sessions = %+v, want none", got)
	}
}

func sortTotals(totals []catalog.SessionTotal) {
	slices.SortFunc(totals, func(a, b catalog.SessionTotal) int {
		return cmp.Or(strings.Compare(a.AccountID, b.AccountID), strings.Compare(a.BookID, b.BookID))
	})
}

func checkSessionTotal(t *testing.T, call string, got, want catalog.SessionTotal) {
	t.Helper()
	if !sameTime(got.LastAt, want.LastAt) || !sameTime(got.CompletedAt, want.CompletedAt) || got.CompletedAt.IsZero() != want.CompletedAt.IsZero() {
		t.Errorf("%s: LastAt, CompletedAt = %v, %v, want %v, %v (at ms precision)", call, got.LastAt, got.CompletedAt, want.LastAt, want.CompletedAt)
	}
	got.LastAt, got.CompletedAt = want.LastAt, want.CompletedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}
