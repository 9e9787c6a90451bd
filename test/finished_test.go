package test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// myStats reads the caller's statistics.
func (w *libraryWorld) myStats(t *testing.T, token string) map[string]any {
	t.Helper()
	r := w.s.do(req{Path: "/v1/users/me/stats", Token: token})
	if r.Status != 200 {
		t.Fatalf("stats: %d %s", r.Status, r.Body)
	}
	return r.json(t)
}

// wantBooksRead checks books_completed and its split by source.
func wantBooksRead(t *testing.T, what string, stats map[string]any, app, library int) {
	t.Helper()
	by, _ := stats["books_completed_by_source"].(map[string]any)
	if stats["books_completed"] != float64(app+library) || by["app"] != float64(app) || by["library"] != float64(library) {
		t.Fatalf("%s: books_completed %v, by source %v; want %d (app %d, library %d)", what, stats["books_completed"], by, app+library, app, library)
	}
}

// markFinished is the student's "I finished it" over the API.
func (w *libraryWorld) markFinished(token, loanID string) response {
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/student/history/" + loanID + "/finished", Token: token})
}

func finishedVia(t *testing.T, r response) string {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("mark finished: %d %s", r.Status, r.Body)
	}
	f, _ := r.json(t)["finished"].(map[string]any)
	return fmt.Sprint(f["marked_via"])
}

// A student's returned loan becomes a book read when they say so, from
// their page, the app or at the desk: the statistics count it once, from
// the library, with its return day as a reading day, and the reading
// record and the export show where it came from. A loan still out,
// another student's loan and another school's are refused and change
// nothing; a deleted account takes its record with it.
func TestFinishedLoansCountInTheReadingRecord(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me, other := w.addSignInStudent(t, "Noor"), w.addSignInStudent(t, "Omar")
	var returned []string
	for i := range 2 {
		_, id := w.lentTitle(t, fmt.Sprintf("Read Title %d", i), me.id)
		if r := w.act(w.libA, id, "return"); r.Status != 200 {
			t.Fatalf("return: %d %s", r.Status, r.Body)
		}
		returned = append(returned, id)
	}
	_, out := w.lentTitle(t, "Still Reading", me.id)
	wantBooksRead(t, "stats before any mark", w.myStats(t, me.token), 0, 0)

	if via := finishedVia(t, w.markFinished(me.token, returned[0])); via != "student" {
		t.Fatalf("marked via %q, want student", via)
	}
	stats := w.myStats(t, me.token)
	wantBooksRead(t, "stats after the mark", stats, 0, 1)
	if stats["current_streak"] != float64(1) || stats["longest_streak"] != float64(1) {
		t.Fatalf("streaks after a return marked read today: %v, %v; want 1, 1", stats["current_streak"], stats["longest_streak"])
	}
	// Marked again, from the page or the app: the first record, nothing doubled.
	if via := finishedVia(t, w.markFinished(me.token, returned[0])); via != "student" {
		t.Fatalf("marked again via %q, want the first record (student)", via)
	}
	if via := finishedVia(t, s.do(req{Method: http.MethodPut, Path: "/v1/users/me/reading-record/loans/" + returned[0], Token: me.token})); via != "student" {
		t.Fatalf("marked from the app after the page: via %q, want the first record", via)
	}
	wantBooksRead(t, "stats after marking again", w.myStats(t, me.token), 0, 1)

	wantCode(t, "a loan still out", w.markFinished(me.token, out), 409, "loan_not_returned")
	wantCode(t, "another student's loan", w.markFinished(other.token, returned[1]), 404, "loan_not_found")
	wantCode(t, "an unknown loan", w.markFinished(me.token, "0b6f1e5c-1111-4c3b-9d7e-2a7a1f0c9e11"), 404, "loan_not_found")
	wantCode(t, "another school's librarian at the desk", s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + returned[1] + "/finished", Token: w.libB}),
		404, "loan_not_found")
	wantCode(t, "the desk on a loan still out", s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + out + "/finished", Token: w.libA}),
		409, "loan_not_returned")
	wantBooksRead(t, "stats after the refusals", w.myStats(t, me.token), 0, 1)

	// The desk's one-tap records the source.
	if via := finishedVia(t, s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + returned[1] + "/finished", Token: w.libA})); via != "desk" {
		t.Fatalf("desk mark via %q, want desk", via)
	}
	wantBooksRead(t, "stats after the desk's mark", w.myStats(t, me.token), 0, 2)
	// The librarian sees the same statistics of the student.
	wantBooksRead(t, "the student's stats as the librarian reads them",
		s.do(req{Path: "/v1/users/usr_" + me.id + "/stats", Token: w.libA}).json(t), 0, 2)

	r := s.do(req{Path: "/v1/users/me/reading-record", Token: me.token})
	if r.Status != 200 {
		t.Fatalf("reading record: %d %s", r.Status, r.Body)
	}
	rec := r.json(t)
	entries := rec["entries"].([]any)
	if rec["total"] != float64(2) || len(entries) != 2 {
		t.Fatalf("reading record = %s, want two entries", r.Body)
	}
	vias := map[string]string{}
	for _, e := range entries {
		e := e.(map[string]any)
		loan := e["loan"].(map[string]any)
		if e["source"] != "library" || !strings.HasPrefix(fmt.Sprint(e["title"]), "Read Title") {
			t.Fatalf("reading record entry %v, want a library title", e)
		}
		vias[loan["loan_id"].(string)] = loan["marked_via"].(string)
	}
	if vias[returned[0]] != "student" || vias[returned[1]] != "desk" {
		t.Fatalf("reading record sources %v, want student and desk", vias)
	}

	// Undone, then marked from the app.
	if r := s.do(req{Method: http.MethodDelete, Path: "/api/library/student/history/" + returned[1] + "/finished", Token: me.token}); r.Status != 200 ||
		r.json(t)["finished"] != nil {
		t.Fatalf("undo: %d %s", r.Status, r.Body)
	}
	wantBooksRead(t, "stats after the undo", w.myStats(t, me.token), 0, 1)
	if via := finishedVia(t, s.do(req{Method: http.MethodPut, Path: "/v1/users/me/reading-record/loans/" + returned[1], Token: me.token})); via != "app" {
		t.Fatalf("app mark via %q, want app", via)
	}

	export := s.do(req{Path: "/v1/users/me/export", Token: me.token})
	if export.Status != 200 {
		t.Fatalf("export: %d %s", export.Status, export.Body)
	}
	ex := export.json(t)
	if got := ex["finished_loans"].([]any); len(got) != 2 {
		t.Fatalf("export finished_loans = %v, want both", got)
	}
	wantBooksRead(t, "the export's statistics", ex["statistics"].(map[string]any), 0, 2)

	// A deleted account takes its reading record with it; the loans stay,
	// without the student.
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: other.token}); r.Status != 200 {
		t.Fatalf("delete another account: %d %s", r.Status, r.Body)
	}
	if r := w.act(w.libA, out, "return"); r.Status != 200 {
		t.Fatalf("return the last loan: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: me.token}); r.Status != 200 {
		t.Fatalf("delete the account: %d %s", r.Status, r.Body)
	}
	if got, err := s.App.Repos.FinishedLoans.OfLoans(t.Context(), returned); err != nil || len(got) != 0 {
		t.Fatalf("finished loans after the deletion: %+v, %v; want none", got, err)
	}
	if n, err := s.App.Repos.FinishedLoans.CountOfStudent(t.Context(), me.id); err != nil || n != 0 {
		t.Fatalf("the deleted student's records: %d, %v", n, err)
	}
}

// A student who chooses to keep no history loses the books they marked
// read with it (the records keep their titles, not the student), and the
// loans returned after the choice cannot be marked; the school's
// retention unnames the records of the loans it anonymises too.
func TestFinishedLoansFollowTheHistory(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me, keeper := w.addSignInStudent(t, "Ilse"), w.addSignInStudent(t, "Kofi")
	lendReturned := func(who holdStudent, title string) string {
		_, id := w.lentTitle(t, title, who.id)
		if r := w.act(w.libA, id, "return"); r.Status != 200 {
			t.Fatalf("return: %d %s", r.Status, r.Body)
		}
		return id
	}
	mine, kept := lendReturned(me, "Choice Title"), lendReturned(keeper, "Kept Title")
	for _, m := range []struct {
		who  holdStudent
		loan string
	}{{me, mine}, {keeper, kept}} {
		finishedVia(t, w.markFinished(m.who.token, m.loan))
	}
	r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
		Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"history_choice":true}`})
	if r.Status != 200 {
		t.Fatalf("turn the choice on: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/student/history/choice", Token: me.token, Body: `{"keep_history":false}`}); r.Status != 200 {
		t.Fatalf("choose no history: %d %s", r.Status, r.Body)
	}
	wantBooksRead(t, "stats after choosing no history", w.myStats(t, me.token), 0, 0)
	if got, err := s.App.Repos.FinishedLoans.OfLoans(t.Context(), []string{mine}); err != nil || len(got) != 1 || got[0].StudentID != "" {
		t.Fatalf("the forgotten record: %+v, %v; want it kept without the student", got, err)
	}
	if ex := s.do(req{Path: "/v1/users/me/export", Token: me.token}).json(t); len(ex["finished_loans"].([]any)) != 0 {
		t.Fatalf("export after the choice: %v, want no finished loans", ex["finished_loans"])
	}
	// A loan returned after the choice no longer names the student.
	later := lendReturned(me, "After The Choice")
	wantCode(t, "a loan returned after the choice", w.markFinished(me.token, later), 404, "loan_not_found")
	wantBooksRead(t, "the other student's stats", w.myStats(t, keeper.token), 0, 1)

	// The retention sweep unnames the records of the loans it anonymises.
	r = s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
		Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"history_choice":true,"loan_history_days":30}`})
	if r.Status != 200 {
		t.Fatalf("keep history 30 days: %d %s", r.Status, r.Body)
	}
	if res, err := s.App.Sweeper.Sweep(t.Context(), time.Now().Add(31*24*time.Hour)); err != nil || !res.Claimed {
		t.Fatalf("sweep after 31 days: %+v %v", res, err)
	}
	wantBooksRead(t, "stats after the sweep", w.myStats(t, keeper.token), 0, 0)
	if got, err := s.App.Repos.FinishedLoans.OfLoans(t.Context(), []string{kept}); err != nil || len(got) != 1 || got[0].StudentID != "" || got[0].BookID == "" {
		t.Fatalf("the anonymised record: %+v, %v; want its title without the student", got, err)
	}
	wantCode(t, "an anonymised loan", w.markFinished(keeper.token, kept), 404, "loan_not_found")
}

// At the desk, a return offers the one-tap "Finished it?", which records
// the book in the student's reading record and puts the focus back on the
// return's scan field; the student's history page then shows it finished,
// and their own button marks the others.
func TestFinishedAtTheDeskAndOnTheHistoryPage(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me := w.addSignInStudent(t, "Pia")
	bookID, copies := w.addBook(t, w.libA, `{"title":"Desk Finish","author":"R. Eader","copies":1}`)
	loan := w.lendOK(t, bookID, copies[0], me.id)["id"].(string)
	_, second := w.lentTitle(t, "Page Finish", me.id)
	if r := w.act(w.libA, second, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}

	desk := "/library/" + demoDomain
	lib := newBrowser(t, s)
	if p := lib.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("librarian sign-in: %d", p.Status)
	}
	home := lib.follow(desk+"/return", url.Values{"code": {copies[0]["code"].(string)}})
	form := home.byID("finished-form")
	if form == nil || !strings.Contains(home.text("finished-question"), "Desk Finish") || !hasHTMLAttr(home.byID("return-code"), "autofocus") {
		t.Fatalf("after the return the desk offers no one-tap finish: %q", home.text("flash"))
	}
	home = lib.follow(desk+"/loans/finished", url.Values{"loan_id": {loan}})
	if htmlAttr(home.byID("flash"), "data-kind") != "success" || !hasHTMLAttr(home.byID("return-code"), "autofocus") || home.byID("finished-form") != nil {
		t.Fatalf("after the one-tap: flash %q", home.text("flash"))
	}
	if got, err := s.App.Repos.FinishedLoans.OfLoans(t.Context(), []string{loan}); err != nil || len(got) != 1 || got[0].Source != "desk" {
		t.Fatalf("the desk's record: %+v, %v", got, err)
	}

	acct, err := s.App.Repos.Accounts.Get(t.Context(), me.id)
	if err != nil {
		t.Fatal(err)
	}
	pupil := newBrowser(t, s)
	if p := pupil.signIn(acct.Email, "student-pass-1"); p.Status != http.StatusSeeOther {
		t.Fatalf("student sign-in: %d", p.Status)
	}
	page := pupil.get(desk + "/my-history")
	if row, ok := page.byTestIDAttr("history-row", "data-loan-id", loan); !ok || !strings.Contains(htmlText(row), "Finished") {
		t.Fatalf("the history page does not show the desk's mark: %s", page.text("history-table"))
	}
	if row, ok := page.byTestIDAttr("history-row", "data-loan-id", second); !ok || !strings.Contains(htmlText(row), "I finished it") {
		t.Fatalf("the history page offers no button on the other returned loan: %s", page.text("history-table"))
	}
	page = pupil.follow(desk+"/my-history/finished", url.Values{"loan_id": {second}, "action": {"mark"}})
	if htmlAttr(page.byID("flash"), "data-kind") != "success" {
		t.Fatalf("the student's mark: flash %q", page.text("flash"))
	}
	if row, _ := page.byTestIDAttr("history-row", "data-loan-id", second); !strings.Contains(htmlText(row), "Finished") {
		t.Fatalf("after the student's mark: %s", page.text("history-table"))
	}
	wantBooksRead(t, "stats after the desk and the page", w.myStats(t, me.token), 0, 2)
}
