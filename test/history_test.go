package test

import (
	"fmt"
	"net/http"
	"testing"
)

// historyIDs reads one page of the calling student's history.
func (w *libraryWorld) historyIDs(t *testing.T, token, query string) (ids []string, body map[string]any) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/student/history" + query, Token: token})
	if r.Status != 200 {
		t.Fatalf("history%s: %d %s", query, r.Status, r.Body)
	}
	body = r.json(t)
	for _, l := range body["loans"].([]any) {
		ids = append(ids, l.(map[string]any)["id"].(string))
	}
	return ids, body
}

// A student reads their past loans over the API, a page at a time, and
// where the school lets them, chooses to keep none: their returned loans
// leave their history and their export at once, and the next return goes
// the same way, while the school's statistics keep the loans. A school
// that leaves no choice refuses it and changes nothing.
func TestStudentHistoryAndChoiceOverTheAPI(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me := w.addSignInStudent(t, "Hester")
	var past []string // newest first
	for i := range 3 {
		_, loanID := w.lentTitle(t, fmt.Sprintf("Past Title %d", i), me.id)
		if r := w.act(w.libA, loanID, "return"); r.Status != 200 {
			t.Fatalf("return: %d %s", r.Status, r.Body)
		}
		past = append([]string{loanID}, past...)
	}
	_, out := w.lentTitle(t, "Still Out", me.id)

	ids, body := w.historyIDs(t, me.token, "?limit=2")
	pg := body["pagination"].(map[string]any)
	if fmt.Sprint(ids) != fmt.Sprint(past[:2]) || pg["total"] != float64(3) || pg["total_pages"] != float64(2) || body["keep_history"] != true || body["history_choice"] != false {
		t.Fatalf("first page = %v %s; want %v of 3, kept, no choice", ids, pg, past[:2])
	}
	if ids, _ = w.historyIDs(t, me.token, "?limit=2&page=2"); fmt.Sprint(ids) != fmt.Sprint(past[2:]) {
		t.Fatalf("second page = %v, want %v", ids, past[2:])
	}
	wantCode(t, "a limit past the cap", s.do(req{Path: "/api/library/student/history?limit=101", Token: me.token}), 422, "validation_failed")
	wantCode(t, "an unknown parameter", s.do(req{Path: "/api/library/student/history?student_id=" + w.studentAID, Token: me.token}), 422, "validation_failed")

	choose := func(token, body string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/student/history/choice", Token: token, Body: body})
	}
	wantCode(t, "choosing no history where the school keeps it", choose(me.token, `{"keep_history":false}`), 409, "history_choice_off")
	wantCode(t, "a choice without keep_history", choose(me.token, `{}`), 422, "validation_failed")
	if ids, _ = w.historyIDs(t, me.token, ""); len(ids) != 3 {
		t.Fatalf("history after refused choices = %v, want all three", ids)
	}

	r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
		Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"history_choice":true}`})
	if r.Status != 200 || r.json(t)["history_choice"] != true {
		t.Fatalf("turn the choice on: %d %s", r.Status, r.Body)
	}
	r = choose(me.token, `{"keep_history":false}`)
	if r.Status != 200 || r.json(t)["forgotten"] != float64(3) || r.json(t)["keep_history"] != false {
		t.Fatalf("choose no history: %d %s, want 3 forgotten", r.Status, r.Body)
	}
	if ids, body = w.historyIDs(t, me.token, ""); len(ids) != 0 || body["keep_history"] != false || body["history_choice"] != true {
		t.Fatalf("history after the choice = %v %v, want none, not kept", ids, body)
	}
	if r := w.act(w.libA, out, "return"); r.Status != 200 {
		t.Fatalf("return the last loan: %d %s", r.Status, r.Body)
	}
	if ids, _ = w.historyIDs(t, me.token, ""); len(ids) != 0 {
		t.Fatalf("history after the next return = %v, want none", ids)
	}
	export := s.do(req{Path: "/v1/users/me/export", Token: me.token})
	if export.Status != 200 || len(export.json(t)["loans"].([]any)) != 0 {
		t.Fatalf("export after the choice: %d %s, want no loans", export.Status, export.Body)
	}
	// The school still counts the loans: the titles' borrowings stay.
	loans, err := s.App.Repos.Loans.ByIDs(t.Context(), append(past, out))
	if err != nil || len(loans) != 4 {
		t.Fatalf("the forgotten loans: %d, %v; want all four kept", len(loans), err)
	}
	for _, l := range loans {
		if !l.StudentDeleted() {
			t.Fatalf("loan %s still names the student", l.ID)
		}
	}
	// The other students of the school keep their history.
	if ids, body = w.historyIDs(t, w.studentA, ""); body["keep_history"] != true {
		t.Fatalf("another student's history: %v %v, want it kept", ids, body)
	}
	if r := choose(w.libA, `{"keep_history":false}`); r.Status != 403 {
		t.Fatalf("a librarian on the student's choice: %d %s, want 403", r.Status, r.Body)
	}
}
