package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// shelfPickJSON is one entry of GET /api/library/student/recommendations.
type shelfPickJSON struct {
	Title      string   `json:"title"`
	Reason     string   `json:"reason"`
	Confidence float64  `json:"confidence"`
	AtLevel    bool     `json:"at_your_level"`
	Actions    []string `json:"actions"`
	Library    *struct {
		ID        string `json:"id"`
		Available int    `json:"available_copies"`
		Genre     string `json:"genre"`
		Level     string `json:"reading_level"`
	} `json:"library_book"`
	ReadNow *struct {
		ID string `json:"id"`
	} `json:"read_now"`
}

func shelfPicks(t *testing.T, s *service, tok, query string) []shelfPickJSON {
	t.Helper()
	r := s.do(req{Path: "/api/library/student/recommendations" + query, Token: tok})
	if r.Status != 200 {
		t.Fatalf("recommendations%s: %d %s", query, r.Status, r.Body)
	}
	var body struct {
		Recommendations []shelfPickJSON `json:"recommendations"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("recommendations: %v in %s", err, r.Body)
	}
	return body.Recommendations
}

func pickByTitle(picks []shelfPickJSON, title string) *shelfPickJSON {
	for i := range picks {
		if picks[i].Title == title {
			return &picks[i]
		}
	}
	return nil
}

// signInStudentInGrade adds a student of school A in grade with a password and
// signs them in.
func (w *libraryWorld) signInStudentInGrade(t *testing.T, name, grade string) (id, token string) {
	t.Helper()
	email := fmt.Sprintf("%s-%s@maplegrove.example.org", strings.ToLower(strings.Fields(name)[0]), uuid.NewString()[:8])
	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: fmt.Sprintf(`{"name":%q,"email":%q,"password":"student-pass-1","grade":%q}`, name, email, grade)})
	if r.Status != 201 {
		t.Fatalf("add student %s: %d %s", name, r.Status, r.Body)
	}
	return r.json(t)["student"].(map[string]any)["student_id"].(string), w.s.login(email, "student-pass-1").Access
}

// A student is offered what they can have now: titles of the genre they
// finished, within their grade's reading range, with a copy on the shelf
// or the same work in the app; each with its reason and what to do. A
// hold placed from a pick, a title borrowed before and a work finished in
// the app all leave the list; a new student gets titles at their level.
func TestRecommendationsKnowTheShelf(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ada, adaTok := w.signInStudentInGrade(t, "Ada Picks", "3")
	book := func(title, genre, level, isbn string, copies int) (string, []map[string]any) {
		isbnField := ""
		if isbn != "" {
			isbnField = fmt.Sprintf(`"isbn":%q,`, isbn)
		}
		return w.addBook(t, w.libA, fmt.Sprintf(`{"title":%q,"author":"Picks Author",%s"copies":%d,"genre":%q,"reading_level":%q}`,
			title, isbnField, copies, genre, level))
	}
	borrowReturn := func(bookID, copyID, student string) string {
		t.Helper()
		r := w.lend(w.libA, bookID, copyID, student)
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		loan := r.json(t)["loan"].(map[string]any)["id"].(string)
		if r := w.act(w.libA, loan, "return"); r.Status != 200 {
			t.Fatalf("return: %d %s", r.Status, r.Body)
		}
		return loan
	}
	dragons, dragonCopies := book("Dragon Days", "Fantasy", "3.0", "", 1)
	book("Wizard Wood", "fantasy", "3.5", "", 2)
	book("Giant Steps", "Fantasy", "9.0", "", 1)
	book("Goal!", "Sport", "3.0", "", 1)
	outID, outCopies := book("Out Again", "Fantasy", "4.0", "", 1)
	skyID, skyCopies := book("Sky Reader", "Fantasy", "4.0", "9780000000101", 1)
	book("Moon Map", "Fantasy", "3.0", "9780000000118", 1)
	before, beforeCopies := book("Borrowed Before", "Fantasy", "3.0", "", 1)
	admin := w.admin
	skyApp := appBook(t, s, admin, "Sky Reader", "Picks Author", "9780000000101")
	moonApp := appBook(t, s, admin, "Moon Map", "Picks Author", "9780000000118")
	// Ada finished Dragon Days (she says so) and only borrowed Borrowed
	// Before; two titles are out with the demo student.
	loan := borrowReturn(dragons, dragonCopies[0]["id"].(string), ada)
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/student/history/" + loan + "/finished", Token: adaTok}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("Ada marks Dragon Days read: %d %s", r.Status, r.Body)
	}
	borrowReturn(before, beforeCopies[0]["id"].(string), ada)
	for _, lend := range [][2]string{{outID, outCopies[0]["id"].(string)}, {skyID, skyCopies[0]["id"].(string)}} {
		if r := w.lend(w.libA, lend[0], lend[1], w.studentAID); r.Status != 201 {
			t.Fatalf("lend to the demo student: %d %s", r.Status, r.Body)
		}
	}

	picks := shelfPicks(t, s, adaTok, "?limit=30")
	for _, gone := range []string{"Dragon Days", "Borrowed Before", "Giant Steps", "Goal!", "Out Again"} {
		if p := pickByTitle(picks, gone); p != nil {
			t.Errorf("%s offered (%+v): finished, borrowed, above her range, another genre or out with no app copy", gone, *p)
		}
	}
	wizard := pickByTitle(picks, "Wizard Wood")
	if wizard == nil || wizard.Library == nil || wizard.Library.Available != 2 || wizard.Reason != "Because you finished Dragon Days" ||
		!wizard.AtLevel || len(wizard.Actions) != 0 || wizard.ReadNow != nil {
		t.Fatalf("Wizard Wood (on the shelf, fantasy at 3.5) = %+v in %+v", wizard, picks)
	}
	// The reason is said in the language the request asks for.
	for lang, want := range map[string]string{"es-MX,es;q=0.9": "Porque terminaste Dragon Days", "ar": "لأنك أنهيت «Dragon Days»"} {
		r := s.do(req{Path: "/api/library/student/recommendations?limit=30", Token: adaTok, Headers: map[string]string{"Accept-Language": lang}})
		var body struct {
			Recommendations []shelfPickJSON `json:"recommendations"`
		}
		if err := json.Unmarshal(r.Body, &body); r.Status != 200 || err != nil {
			t.Fatalf("recommendations in %s: %d %s", lang, r.Status, r.Body)
		}
		if p := pickByTitle(body.Recommendations, "Wizard Wood"); p == nil || p.Reason != want || r.Header.Get("Content-Language") != lang[:2] {
			t.Errorf("Wizard Wood in %s = %+v (Content-Language %q), want the reason %q", lang, p, r.Header.Get("Content-Language"), want)
		}
	}
	sky := pickByTitle(picks, "Sky Reader")
	if sky == nil || sky.Library == nil || sky.Library.Available != 0 || sky.ReadNow == nil || sky.ReadNow.ID != skyApp ||
		!slices.Equal(sky.Actions, []string{"place_hold", "read_now"}) {
		t.Fatalf("Sky Reader (out, but in the app) = %+v", sky)
	}
	moon := pickByTitle(picks, "Moon Map")
	if moon == nil || moon.ReadNow == nil || moon.ReadNow.ID != moonApp || !slices.Equal(moon.Actions, []string{"read_now"}) {
		t.Fatalf("Moon Map (on the shelf and in the app) = %+v", moon)
	}
	if wizard.Confidence <= sky.Confidence {
		t.Errorf("a copy on the shelf (%v) should rank above one only the app has now (%v)", wizard.Confidence, sky.Confidence)
	}
	for i, p := range picks {
		if i > 0 && p.Confidence > picks[i-1].Confidence {
			t.Errorf("picks not best first: %v after %v", p.Confidence, picks[i-1].Confidence)
		}
		if p.Library == nil && (p.ReadNow == nil || !slices.Equal(p.Actions, []string{"read_now"})) {
			t.Errorf("an app-only pick must be readable now: %+v", p)
		}
	}
	if got := shelfPicks(t, s, adaTok, "?limit=1"); len(got) != 1 || got[0].Title != picks[0].Title {
		t.Errorf("limit=1 gave %+v, want the best pick %q", got, picks[0].Title)
	}
	// However strong the app's own picks, half the list is the school's.
	fromShelf := 0
	for _, p := range shelfPicks(t, s, adaTok, "?limit=4") {
		if p.Library != nil {
			fromShelf++
		}
	}
	if fromShelf < 2 {
		t.Errorf("limit=4 gave %d of the school's titles, want at least 2 (it has 3 to offer)", fromShelf)
	}

	// Both actions work as offered: the hold joins the queue, the app
	// book opens; then the held title leaves the list.
	if r := w.placeHold(adaTok, skyID, ""); r.Status != 201 {
		t.Fatalf("place_hold from the pick: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/v1/books/" + moonApp + "/content", Token: adaTok}); r.Status != 200 {
		t.Fatalf("read_now from the pick: %d %s", r.Status, r.Body)
	}
	if p := pickByTitle(shelfPicks(t, s, adaTok, "?limit=30"), "Sky Reader"); p != nil {
		t.Errorf("a title on hold is still offered: %+v", *p)
	}
	// Finishing Moon Map in the app finishes the work: the school's copy
	// is not offered any more.
	pages := int(s.do(req{Path: "/v1/books/" + moonApp, Token: adaTok}).json(t)["pages"].(float64))
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + moonApp + "/progress", Token: adaTok,
		Body: fmt.Sprintf(`{"page_number":%d,"time_spent":300}`, pages)}); r.Status != 200 {
		t.Fatalf("Ada finishes Moon Map in the app: %d %s", r.Status, r.Body)
	}
	if p := pickByTitle(shelfPicks(t, s, adaTok, "?limit=30"), "Moon Map"); p != nil {
		t.Errorf("a work finished in the app is still offered from the shelf: %+v", *p)
	}

	// A new grade 3 student has finished nothing: titles at their level on
	// the shelf, any genre, never one above their range.
	_, newTok := w.signInStudentInGrade(t, "Noor New", "3")
	fresh := shelfPicks(t, s, newTok, "?limit=30")
	goal := pickByTitle(fresh, "Goal!")
	if goal == nil || goal.Reason != "At your reading level" || !goal.AtLevel {
		t.Errorf("a new student's Goal! = %+v in %+v", goal, fresh)
	}
	if p := pickByTitle(fresh, "Giant Steps"); p != nil {
		t.Errorf("a title above the range offered to a new student: %+v", *p)
	}

	// Only students; bad limits change nothing and say why.
	wantCode(t, "a librarian", s.do(req{Path: "/api/library/student/recommendations", Token: w.libA}), 403, "forbidden")
	wantCode(t, "no token", s.do(req{Path: "/api/library/student/recommendations"}), 401, "unauthorized")
	for _, q := range []string{"?limit=0", "?limit=31", "?sort=title"} {
		wantCode(t, "limit "+q, s.do(req{Path: "/api/library/student/recommendations" + q, Token: adaTok}), 422, "validation_failed")
	}
	wantCode(t, "limit=x", s.do(req{Path: "/api/library/student/recommendations?limit=x", Token: adaTok}), 400, "malformed_query")
}
