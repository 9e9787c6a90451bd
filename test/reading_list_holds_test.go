package test

import (
	"fmt"
	"net/http"
	"testing"
)

const listHoldsPath = "/api/library/student/reading-list-holds"

// chooseListHolds sends a student's choice of whether their reading list
// places holds.
func (w *libraryWorld) chooseListHolds(tok, body string) response {
	return w.s.do(req{Method: http.MethodPut, Path: listHoldsPath, Token: tok, Body: body})
}

// listHoldsChoice reads the student's holds and their choice, as a client
// rendering the toggle does.
func (w *libraryWorld) listHoldsChoice(t *testing.T, tok string) (holds []map[string]any, on bool) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/student/holds", Token: tok})
	on, ok := r.json(t)["holds_from_reading_list"].(bool)
	if r.Status != 200 || !ok {
		t.Fatalf("GET /api/library/student/holds: %d %s, want the holds and the choice", r.Status, r.Body)
	}
	return holdsOf(t, r), on
}

// wantAdd puts a title on the student's want-to-read list and returns
// what the answer says about a hold (nil when it says nothing).
func (w *libraryWorld) wantAdd(t *testing.T, tok, bookID string) map[string]any {
	t.Helper()
	r := w.s.do(req{Method: http.MethodPut, Path: "/api/library/student/want-to-read/" + bookID, Token: tok})
	ids, _ := w.wantTitles(t, r)
	found := false
	for _, id := range ids {
		found = found || id == bookID
	}
	if !found {
		t.Fatalf("the list after adding %s = %v, want the title on it", bookID, ids)
	}
	hold, present := r.json(t)["library_hold"]
	if !present {
		return nil
	}
	return hold.(map[string]any)
}

// wantListHold fails t unless hold says status about bookID; it returns
// the hold id it names ("" for none).
func wantListHold(t *testing.T, what string, hold map[string]any, status, bookID, code string) string {
	t.Helper()
	if hold == nil || hold["status"] != status || hold["book_id"] != bookID || hold["message"] == "" {
		t.Fatalf("%s: library_hold = %v, want %s on %s", what, hold, status, bookID)
	}
	if code == "" && hold["code"] != nil || code != "" && hold["code"] != code {
		t.Fatalf("%s: library_hold code = %v, want %q", what, hold["code"], code)
	}
	id, _ := hold["hold_id"].(string)
	if (status == "placed" || status == "already_held") != (id != "") {
		t.Fatalf("%s: library_hold hold_id = %v with status %s", what, hold["hold_id"], status)
	}
	return id
}

// A student who chooses so gets a hold placed by adding a title with no
// copy on the shelf to their want-to-read list; without the choice, with
// a copy on the shelf, or where the hold rules refuse, the title is only
// added, and the answer says which.
func TestWantToReadPlacesHoldsByChoice(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me := w.addSignInStudent(t, "Lia")

	// Off until chosen: the add only adds.
	if holds, on := w.listHoldsChoice(t, me.token); on || len(holds) != 0 {
		t.Fatalf("a new student: choice %v, holds %v; want off and none", on, holds)
	}
	early, _ := w.lentTitle(t, "Lent Before The Choice", w.studentAID)
	if hold := w.wantAdd(t, me.token, early); hold != nil {
		t.Fatalf("an add without the choice says library_hold %v", hold)
	}

	// Bad choices change nothing.
	wantCode(t, "a choice that is no boolean", w.chooseListHolds(me.token, `{"enabled":"yes"}`), 422, "validation_failed")
	wantCode(t, "a choice without enabled", w.chooseListHolds(me.token, `{}`), 422, "validation_failed")
	wantCode(t, "a choice with an unknown field", w.chooseListHolds(me.token, `{"enabled":true,"student_id":"x"}`), 422, "validation_failed")
	wantCode(t, "a malformed choice", w.chooseListHolds(me.token, `{"enabled":`), 400, "malformed_json")
	wantCode(t, "a librarian choosing", w.chooseListHolds(w.libA, `{"enabled":true}`), 403, "forbidden")
	if holds, on := w.listHoldsChoice(t, me.token); on || len(holds) != 0 {
		t.Fatalf("after refused choices: choice %v, holds %v; want still off and none", on, holds)
	}
	if acct, err := s.App.Repos.Accounts.Get(t.Context(), me.id); err != nil || acct.HoldsFromReadingList {
		t.Fatalf("stored choice after refused ones: %v (%v), want off", acct.HoldsFromReadingList, err)
	}

	// On: every copy out places a hold the student's holds list shows.
	if r := w.chooseListHolds(me.token, `{"enabled":true}`); r.Status != 200 || r.json(t)["enabled"] != true {
		t.Fatalf("choosing holds from the list: %d %s", r.Status, r.Body)
	}
	if _, on := w.listHoldsChoice(t, me.token); !on {
		t.Fatal("the choice does not show in the student's holds")
	}
	out, _ := w.lentTitle(t, "All Copies Out", w.studentAID)
	placed := w.wantAdd(t, me.token, out)
	holdID := wantListHold(t, "all copies out", placed, "placed", out, "")
	if placed["title"] != "All Copies Out" || placed["queue_position"] != float64(1) {
		t.Fatalf("the placed hold: %v, want the title, first in the queue", placed)
	}
	holds, _ := w.listHoldsChoice(t, me.token)
	if len(holds) != 1 || holds[0]["id"] != holdID || holds[0]["book_id"] != out || holds[0]["status"] != "waiting" {
		t.Fatalf("the student's holds = %v, want the one placed (%s)", holds, holdID)
	}
	// The librarian's queue has it too.
	if queue := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + out, Token: w.libA})); len(queue) != 1 || queue[0]["student_id"] != me.id {
		t.Fatalf("the title's queue = %v, want the student's hold", queue)
	}
	// Adding it again keeps the one hold.
	if again := wantListHold(t, "adding again", w.wantAdd(t, me.token, out), "already_held", out, ""); again != holdID {
		t.Fatalf("adding again names hold %s, want %s", again, holdID)
	}

	// A copy on the shelf needs no hold.
	shelved, _ := w.addBook(t, w.libA, `{"title":"On The Shelf Now","author":"S. Helf","copies":2}`)
	wantListHold(t, "a copy on the shelf", w.wantAdd(t, me.token, shelved), "on_shelf", shelved, "")
	// The hold rules refuse: a reference book, a title the student has out.
	ref, _ := w.addBook(t, w.libA, `{"title":"Reference Atlas","author":"R","copies":1,"loan_category":"reference"}`)
	wantListHold(t, "a reference title", w.wantAdd(t, me.token, ref), "refused", ref, "not_for_loan")
	mine, _ := w.lentTitle(t, "Mine Already", me.id)
	wantListHold(t, "a title the student has out", w.wantAdd(t, me.token, mine), "refused", mine, "already_borrowing")
	if holds, _ = w.listHoldsChoice(t, me.token); len(holds) != 1 {
		t.Fatalf("holds after the adds that needed none: %v, want only the one placed", holds)
	}

	// The choice is on the account: it is stored, exported, and turned off
	// again the adds only add.
	if acct, err := s.App.Repos.Accounts.Get(t.Context(), me.id); err != nil || !acct.HoldsFromReadingList {
		t.Fatalf("stored choice: %v (%v), want on", acct.HoldsFromReadingList, err)
	}
	export := s.do(req{Path: "/v1/users/me/export", Token: me.token})
	if export.Status != 200 || export.json(t)["profile"].(map[string]any)["holds_from_reading_list"] != true {
		t.Fatalf("the export: %d, profile %v; want the choice on", export.Status, export.json(t)["profile"])
	}
	if r := w.chooseListHolds(me.token, `{"enabled":false}`); r.Status != 200 || r.json(t)["enabled"] != false {
		t.Fatalf("turning it off: %d %s", r.Status, r.Body)
	}
	later, _ := w.lentTitle(t, "Lent After Turning It Off", w.studentAID)
	if hold := w.wantAdd(t, me.token, later); hold != nil {
		t.Fatalf("an add with the choice off says library_hold %v", hold)
	}
	if holds, on := w.listHoldsChoice(t, me.token); on || len(holds) != 1 || holds[0]["id"] != holdID {
		t.Fatalf("after turning it off: choice %v, holds %v; want off and the hold placed before kept", on, holds)
	}
}

// A student off the roll (whom the desk refuses holds) still adds the
// title; the answer says the hold was refused and why.
func TestWantToReadHoldRefusedForInactiveStudent(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ned := w.addSignInStudent(t, "Ned")
	if r := w.chooseListHolds(ned.token, `{"enabled":true}`); r.Status != 200 {
		t.Fatalf("choosing: %d %s", r.Status, r.Body)
	}
	acct, err := s.App.Repos.Accounts.Get(t.Context(), ned.id)
	if err != nil {
		t.Fatal(err)
	}
	acct.Inactive = true // as a roster sync leaving him out does
	if err := s.App.Repos.Accounts.Update(t.Context(), acct); err != nil {
		t.Fatal(err)
	}
	out, _ := w.lentTitle(t, "Wanted By A Leaver", w.studentAID)
	wantListHold(t, "an inactive student's add", w.wantAdd(t, ned.token, out), "refused", out, "student_inactive")
	if holds, on := w.listHoldsChoice(t, ned.token); !on || len(holds) != 0 {
		t.Fatalf("the inactive student: choice %v, holds %v; want on and none", on, holds)
	}
}

// A student who chose so and puts a reading-app book on their app reading
// list to read gets a hold on their school's title of the same work.
// Other books, other statuses and other callers get the answer they got
// before: no library_hold at all.
func TestAppReadingListPlacesLibraryHoldByChoice(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me := w.addSignInStudent(t, "Ava")
	matilda := appBook(t, s, w.admin, "Matilda", "Roald Dahl", "978-0-14-032872-1")
	shelfMatilda, copies := w.addBook(t, w.libA, fmt.Sprintf(`{"school_id":%q,"isbn":"0140328726","title":"Matilda /","author":"Dahl, Roald","copies":1}`, w.schoolA))
	w.lendOK(t, shelfMatilda, copies[0], w.studentAID)
	twits := appBook(t, s, w.admin, "The Twits", "Roald Dahl", "")
	shelfTwits, _ := w.addBook(t, w.libA, `{"title":"The Twits","author":"Roald Dahl","copies":1}`)
	unlinked := appBook(t, s, w.admin, "A Tale The School Lacks", "N. Owhere", "")

	add := func(tok, appID, body string) map[string]any {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: "/v1/books/" + appID + "/reading-list", Token: tok, Body: body})
		if r.Status != 200 || r.json(t)["success"] != true {
			t.Fatalf("add %s to the reading list: %d %s", appID, r.Status, r.Body)
		}
		return r.json(t)
	}
	// noHold fails t unless the answer is the reading list's own, as before.
	noHold := func(what string, body map[string]any) {
		t.Helper()
		if _, present := body["library_hold"]; present || len(body) != 3 {
			t.Fatalf("%s: %v, want success, message and reading_list_item only", what, body)
		}
	}

	noHold("before the choice", add(me.token, matilda, `{"status":"want_to_read"}`))
	if holds, _ := w.listHoldsChoice(t, me.token); len(holds) != 0 {
		t.Fatalf("holds before the choice: %v", holds)
	}
	if r := w.chooseListHolds(me.token, `{"enabled":true}`); r.Status != 200 {
		t.Fatalf("choosing: %d %s", r.Status, r.Body)
	}
	body := add(me.token, matilda, `{"status":"want_to_read","priority":"high"}`)
	holdID := wantListHold(t, "a linked app book with every copy out", body["library_hold"].(map[string]any), "placed", shelfMatilda, "")
	if item := body["reading_list_item"].(map[string]any); item["book_id"] != matilda || item["status"] != "want_to_read" {
		t.Fatalf("the reading-list item: %v", item)
	}
	if holds, _ := w.listHoldsChoice(t, me.token); len(holds) != 1 || holds[0]["id"] != holdID || holds[0]["book_id"] != shelfMatilda {
		t.Fatalf("the student's holds = %v, want the hold on the school's Matilda", holds)
	}
	// Linked with a copy on the shelf: none needed. The default status is
	// want_to_read too.
	wantListHold(t, "a linked app book on the shelf", add(me.token, twits, "")["library_hold"].(map[string]any), "on_shelf", shelfTwits, "")
	// An app book the school does not have, and a book not to read next.
	noHold("an unlinked app book", add(me.token, unlinked, `{"status":"want_to_read"}`))
	other := appBook(t, s, w.admin, "Matilda: illustrated", "Dahl, Roald", "")
	noHold("a linked book being read", add(me.token, other, `{"status":"currently_reading"}`))
	// Nobody else's answer changes, the school's librarian's included.
	noHold("a reader of no school", add(s.login(demoReader, demoPassword).Access, matilda, `{"status":"want_to_read"}`))
	noHold("the school's librarian", add(w.libA, matilda, `{"status":"want_to_read"}`))
	noHold("a student without the choice", add(w.studentA, twits, `{"status":"want_to_read"}`))
	if holds, _ := w.listHoldsChoice(t, me.token); len(holds) != 1 {
		t.Fatalf("the student's holds after the other adds: %v, want only the one", holds)
	}
	if queue := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + shelfMatilda, Token: w.libA})); len(queue) != 1 {
		t.Fatalf("Matilda's queue = %v, want the student's hold alone", queue)
	}
}
