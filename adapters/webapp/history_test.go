package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// A student's history page lists their returned loans and not the ones
// out, which stay on their loans page; the choice form appears only where
// the school lets students choose, and choosing to keep no history empties
// the page and says how many loans went. Staff cannot open the page.
func TestStudentHistoryPageAndChoice(t *testing.T) {
	f := newFixture(t)
	asLib := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	_, returned := f.heldBook(t, "Came Back", f.student)
	found, err := f.lib.Holdings.CopyByCode(asLib, f.school.ID, returned.Code)
	if err != nil || found.Loan == nil {
		t.Fatalf("the loan of %s: %+v, %v", returned.Code, found, err)
	}
	if _, err := f.lib.Circulation.ReturnLoan(asLib, found.Loan.Loan.ID); err != nil {
		t.Fatal(err)
	}
	f.heldBook(t, "Still Out", f.student)
	const historyPath = "/library/maple.example.org/my-history"

	mine := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	if rows := byTestID(mine, "my-loan-row"); len(rows) != 1 || !strings.Contains(textOf(rows[0]), "Still Out") || byID(mine, "my-history-link") == nil {
		t.Fatalf("loans page: %d rows (%q), want only the loan out and a link to the history", len(rows), textOf(byID(mine, "my-loans-table")))
	}
	page := parse(t, f.do(&f.student, http.MethodGet, historyPath, nil).Body.String())
	rows := byTestID(page, "history-row")
	if len(rows) != 1 || !strings.Contains(textOf(rows[0]), "Came Back") || !strings.Contains(textOf(rows[0]), "Returned") {
		t.Fatalf("history page: %d rows (%q), want the returned loan", len(rows), textOf(byID(page, "main")))
	}
	if byID(page, "history-choice-form") != nil {
		t.Fatal("the choice form shows at a school that leaves no choice")
	}
	checkAccessible(t, page)
	// A post anyway is refused with the reason, and forgets nothing.
	rec := f.do(&f.student, http.MethodPost, historyPath+"/choice", url.Values{"keep_history": {"no"}})
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") != "error" || !strings.Contains(textOf(fl), "keeps the loan history") || len(byTestID(page, "history-row")) != 1 {
		t.Fatalf("a refused choice: flash %q, %d rows", textOf(fl), len(byTestID(page, "history-row")))
	}

	on := true
	if _, err := f.lib.Schools.ChangeSettings(asLib, "", library.SettingsChange{HistoryChoice: &on}); err != nil {
		t.Fatal(err)
	}
	page = parse(t, f.do(&f.student, http.MethodGet, historyPath, nil).Body.String())
	if byID(page, "history-choice-form") == nil || !hasAttr(byID(page, "keep-history-yes"), "checked") {
		t.Fatal("the choice form is missing, or does not show the history kept")
	}
	checkAccessible(t, page)
	rec = f.do(&f.student, http.MethodPost, historyPath+"/choice", url.Values{"keep_history": {"maybe"}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" {
		t.Fatalf("a choice that is neither: flash %q, want an error", textOf(fl))
	}
	rec = f.do(&f.student, http.MethodPost, historyPath+"/choice", url.Values{"keep_history": {"no"}})
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") == "error" || !strings.Contains(textOf(fl), "1 past loan was removed") {
		t.Fatalf("choosing no history: flash %q", textOf(fl))
	}
	if len(byTestID(page, "history-row")) != 0 || !hasAttr(byID(page, "keep-history-no"), "checked") || byID(page, "no-history") == nil {
		t.Fatalf("history page after the choice: %q", textOf(byID(page, "main")))
	}
	checkAccessible(t, page)

	if rec := f.do(&f.librarian, http.MethodGet, historyPath, nil); rec.Code != http.StatusForbidden {
		t.Fatalf("a librarian on the student's history page: %d, want 403", rec.Code)
	}
	if rec := f.do(&f.librarian, http.MethodPost, historyPath+"/choice", url.Values{"keep_history": {"no"}}); rec.Code != http.StatusForbidden {
		t.Fatalf("a librarian on the student's choice: %d, want 403", rec.Code)
	}
}

// The settings page turns the students' choice on and off, and staff see
// it read-only.
func TestSettingsPageSetsTheHistoryChoice(t *testing.T) {
	f := newFixture(t)
	form := url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"}, "allow_public_catalog": {"true"}, "history_choice": {"true"}}
	rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/settings", form)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("save settings: %d %s", rec.Code, rec.Body)
	}
	s, err := f.lib.Schools.Settings(user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian)), f.school.ID)
	if err != nil || !s.Settings.HistoryChoice {
		t.Fatalf("after ticking the box: HistoryChoice %v, %v", s.Settings.HistoryChoice, err)
	}
	page := parse(t, f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/settings", nil).Body.String())
	if !hasAttr(byID(page, "settings-history-choice"), "checked") {
		t.Fatal("the settings page does not show the choice on")
	}
	view := parse(t, f.do(&f.staff, http.MethodGet, "/library/maple.example.org/settings", nil).Body.String())
	if got := textOf(byTestID(view, "setting-history-choice")[0]); got != "Yes" {
		t.Fatalf("staff's view of the choice = %q, want Yes", got)
	}
	form.Del("history_choice") // an unticked box is not sent
	f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/settings", form)
	if s, _ = f.lib.Schools.Settings(user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian)), f.school.ID); s.Settings.HistoryChoice {
		t.Fatal("an unticked box left the choice on")
	}
}
