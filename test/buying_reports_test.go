package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
)

// TestReportAppReadingNotHeld: the reading-app books school B's students
// read that no book of school B is the same work as, most readers first,
// then most finished, then by title. A book linked by the ISBN in its
// other form, by title and author, or by the librarian's choice is left
// out; one linked only at school A is not. The period defaults to the
// last 90 days (school B has no term) and a past one shows only its own
// sessions; the limit cuts the list; the CSV has the same rows.
func TestReportAppReadingNotHeld(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	readers := make([]string, 4)
	ids := make([]string, 4)
	for i := range readers {
		email := fmt.Sprintf("app-reader-%d@riverside.example.org", i)
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB,
			Body: fmt.Sprintf(`{"name":"App Reader %d","email":%q,"password":"reading-owl-1234"}`, i, email)})
		if r.Status != 201 {
			t.Fatalf("student %d: %d %s", i, r.Status, r.Body)
		}
		ids[i] = r.json(t)["student"].(map[string]any)["student_id"].(string)
		readers[i] = s.login(email, "reading-owl-1234").Access
	}
	alpha := appBook(t, s, w.admin, "Alpha App", "Ann Writer", "9780306406157")
	bravo := appBook(t, s, w.admin, "Bravo App", "Ben Writer", "")
	charlie := appBook(t, s, w.admin, "Charlie App", "Cat Writer", "")
	delta := appBook(t, s, w.admin, "Delta App", "Dan Writer", "9780451524935")
	echo := appBook(t, s, w.admin, "Echo App", "Eve Writer", "")
	fox := appBook(t, s, w.admin, "Foxtrot App", "Fay Writer", "")
	golf := appBook(t, s, w.admin, "Golf App", "Gus Writer", "")
	hotel := appBook(t, s, w.admin, "Hotel App", "Hal Writer", "")

	// School B's shelf: Alpha by its ISBN-10, Golf by title and author,
	// Foxtrot by the librarian's word; Delta is on school A's shelf only.
	w.addBook(t, w.libB, `{"title":"Alpha on the shelf","author":"Someone Else","isbn":"0306406152","copies":1}`)
	w.addBook(t, w.libB, `{"title":"Golf App","author":"Gus Writer","copies":1}`)
	shelfFox, _ := w.addBook(t, w.libB, `{"title":"The Fox Book","author":"F. Writer","copies":1}`)
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/books/" + shelfFox + "/app-link", Token: w.libB,
		Body: fmt.Sprintf(`{"app_book_id":%q,"same":true}`, fox)}); r.Status != 200 {
		t.Fatalf("choose Foxtrot: %d %s", r.Status, r.Body)
	}
	w.addBook(t, w.libA, `{"title":"Delta App","author":"Dan Writer","isbn":"9780451524935","copies":1}`)

	read := func(reader int, book string, finish bool) {
		t.Helper()
		page := 3
		if finish {
			page = 10
		}
		if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + book + "/progress", Token: readers[reader],
			Body: fmt.Sprintf(`{"page_number":%d,"time_spent":120}`, page)}); r.Status != 200 {
			t.Fatalf("reader %d reads %s: %d %s", reader, book, r.Status, r.Body)
		}
	}
	for i := range 4 {
		read(i, alpha, true)
		read(i, fox, i%2 == 0)
	}
	read(0, bravo, true)
	read(1, bravo, false)
	read(1, bravo, true) // one reader, however many sessions
	read(2, bravo, false)
	read(0, charlie, true)
	read(1, charlie, true)
	read(2, delta, true)
	read(3, delta, false)
	read(3, echo, false)
	read(1, hotel, false)
	read(0, golf, true)
	// A term long past: reader 0 finished Echo then, outside the default period.
	past := time.Now().AddDate(0, 0, -200)
	if err := s.App.Repos.Progress.RecordSession(context.Background(), catalog.ReadingSession{ID: uuid.NewString(), AccountID: ids[0], BookID: echo,
		At: past, LocalDay: past.Format("2006-01-02"), Seconds: 300, FromPage: 0, ToPage: 10, PagesAdvanced: 10, Completed: true}); err != nil {
		t.Fatal(err)
	}

	get := func(tok, query string) map[string]any {
		t.Helper()
		r := s.do(req{Path: "/api/library/reports/app-reading-not-held" + query, Token: tok})
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", query, r.Status, r.Body)
		}
		return r.json(t)
	}
	row := func(id, title, author, isbn string, students, finished int) string {
		return fmt.Sprintf(`{"app_book_id":%q,"author":%q,"finished":%d,"isbn":%q,"students":%d,"title":%q}`, id, author, finished, isbn, students, title)
	}
	rows := []string{
		row(bravo, "Bravo App", "Ben Writer", "", 3, 2),
		row(charlie, "Charlie App", "Cat Writer", "", 2, 2),
		row(delta, "Delta App", "Dan Writer", "9780451524935", 2, 1),
		row(echo, "Echo App", "Eve Writer", "", 1, 0),
		row(hotel, "Hotel App", "Hal Writer", "", 1, 0),
	}
	body := get(w.libB, "")
	today := time.Now().In(time.UTC)
	if body["to"] != today.Format("2006-01-02") && body["to"] != today.AddDate(0, 0, -1).Format("2006-01-02") && body["to"] != today.AddDate(0, 0, 1).Format("2006-01-02") {
		t.Errorf("the period ends %v, want today", body["to"])
	}
	if got, want := jsonOf(t, body["titles"]), "["+strings.Join(rows, ",")+"]"; got != want {
		t.Errorf("app reading not held =\n%s\nwant\n%s", got, want)
	}
	if got, want := jsonOf(t, get(w.admin, "?limit=2&schoolId="+w.schoolB)["titles"]), "["+strings.Join(rows[:2], ",")+"]"; got != want {
		t.Errorf("limit 2 =\n%s\nwant\n%s", got, want)
	}
	from, to := past.AddDate(0, 0, -10).Format("2006-01-02"), past.AddDate(0, 0, 10).Format("2006-01-02")
	if got, want := jsonOf(t, get(w.libB, "?from="+from+"&to="+to)["titles"]), "["+row(echo, "Echo App", "Eve Writer", "", 1, 1)+"]"; got != want {
		t.Errorf("%s to %s =\n%s\nwant\n%s", from, to, got, want)
	}
	// School A's students read none of these.
	for _, title := range []string{"Bravo App", "Charlie App", "Hotel App"} {
		if strings.Contains(jsonOf(t, get(w.libA, "?limit=100")["titles"]), title) {
			t.Errorf("school A's report lists %s", title)
		}
	}

	r := s.do(req{Path: "/api/library/reports/app-reading-not-held?format=csv&limit=3", Token: w.libB})
	if r.Status != 200 || r.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.HasPrefix(r.Header.Get("Content-Disposition"), `attachment; filename="app-reading-not-held-`) {
		t.Fatalf("CSV: %d %v %s", r.Status, r.Header, r.Body)
	}
	want := fmt.Sprintf("rank,title,author,isbn,students,finished,app_book_id\n"+
		"1,Bravo App,Ben Writer,,3,2,%s\n2,Charlie App,Cat Writer,,2,2,%s\n3,Delta App,Dan Writer,9780451524935,2,1,%s\n", bravo, charlie, delta)
	if string(r.Body) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", r.Body, want)
	}

	for _, tt := range []struct {
		query  string
		status int
		code   string
		field  string
	}{
		{"limit=0", 422, "validation_failed", "limit"},
		{"limit=101", 422, "validation_failed", "limit"},
		{"limit=ten", 400, "malformed_query", "limit"},
		{"limit=0&format=csv", 422, "validation_failed", "limit"},
		{"from=2026-02-30", 422, "validation_failed", "from"},
		{"from=2026-10-01&to=2026-09-01", 422, "validation_failed", "to"},
		{"from=2020-01-01&to=2026-01-01", 422, "validation_failed", "to"},
	} {
		details := wantRefused(t, tt.query, s.do(req{Path: "/api/library/reports/app-reading-not-held?" + tt.query, Token: w.libB}), tt.status, tt.code)
		if f, _ := details["fields"].(map[string]any); f[tt.field] == nil {
			t.Errorf("%s: details %v do not name %s", tt.query, details, tt.field)
		}
	}
	wantRefused(t, "a student", s.do(req{Path: "/api/library/reports/app-reading-not-held", Token: readers[0]}), 403, "forbidden")
	wantRefused(t, "another school", s.do(req{Path: "/api/library/reports/app-reading-not-held?schoolId=" + w.schoolB, Token: w.libA}), 403, "forbidden")
}

// TestReportNeverBorrowedOutsideGrades: a school of grade 2 and grade 3
// students (levels 0.0 to 5.9) with never-borrowed books at 3.0 and 9.5, a
// borrowed 9.5 and a book without a level lists only the never-borrowed
// 9.5, saying why; a student without a readable grade changes nothing.
// The page and limit work as the never-borrowed report's; the CSV has
// every row.
func TestReportNeverBorrowedOutsideGrades(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	student := func(name, grade string) string {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB, Body: fmt.Sprintf(`{"name":%q,"grade":%q}`, name, grade)})
		if r.Status != 201 {
			t.Fatalf("student %s: %d %s", name, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	second := student("Second Grader", "2")
	student("Third Grader", "Grade 3")
	student("Unknown Grader", "Nursery")
	w.addBook(t, w.libB, `{"title":"Level Three","author":"Tia Author","reading_level":"3.0","copies":1}`)
	nine, _ := w.addBook(t, w.libB, `{"title":"Level Nine","author":"Nia Author","isbn":"9780061120084","reading_level":"9.5","copies":2}`)
	lent, lc := w.addBook(t, w.libB, `{"title":"Lent Nine","author":"Len Author","reading_level":"9.5","copies":1}`)
	w.addBook(t, w.libB, `{"title":"No Level","author":"Nol Author","copies":1}`)
	r := w.lend(w.libB, lent, lc[0]["id"].(string), second)
	if r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	if r := w.act(w.libB, r.json(t)["loan"].(map[string]any)["id"].(string), "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}

	get := func(tok, query string) map[string]any {
		t.Helper()
		r := s.do(req{Path: "/api/library/reports/never-borrowed-outside-grades" + query, Token: tok})
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", query, r.Status, r.Body)
		}
		return r.json(t)
	}
	reason := "reading level 9.5; outside the reading range of grades 2 and 3 (levels 0.0 to 5.9)"
	nineRow := fmt.Sprintf(`{"age_max":0,"age_min":0,"author":"Nia Author","book_id":%q,"copies":2,"isbn":"9780061120084","reading_level":"9.5","reason":%q,"title":"Level Nine"}`, nine, reason)
	body := get(w.libB, "")
	if got, want := jsonOf(t, body["books"]), "["+nineRow+"]"; got != want {
		t.Errorf("books =\n%s\nwant\n%s", got, want)
	}
	if got := jsonOf(t, body["grades"]); got != `["2","3"]` {
		t.Errorf("grades = %s, want [\"2\",\"3\"]", got)
	}
	if got := jsonOf(t, body["pagination"]); got != `{"limit":50,"page":1,"total":1,"total_pages":1}` {
		t.Errorf("pagination = %s", got)
	}

	// A second such book, by its ages alone: paged by title.
	ages, _ := w.addBook(t, w.libB, `{"title":"Ages Fourteen","author":"Ada Author","age_min":14,"copies":1}`)
	page2 := get(w.admin, "?page=2&limit=1&schoolId="+w.schoolB)
	if got, want := jsonOf(t, page2["books"]), "["+nineRow+"]"; got != want {
		t.Errorf("page 2 of 1 =\n%s\nwant\n%s", got, want)
	}
	if got := jsonOf(t, page2["pagination"]); got != `{"limit":1,"page":2,"total":2,"total_pages":2}` {
		t.Errorf("page 2 pagination = %s", got)
	}

	r = s.do(req{Path: "/api/library/reports/never-borrowed-outside-grades?format=csv&limit=1", Token: w.libB})
	if r.Status != 200 || r.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		r.Header.Get("Content-Disposition") != `attachment; filename="never-borrowed-outside-grades.csv"` {
		t.Fatalf("CSV: %d %v %s", r.Status, r.Header, r.Body)
	}
	want := fmt.Sprintf("title,author,isbn,reading_level,age_min,age_max,copies,reason,book_id\n"+
		"Ages Fourteen,Ada Author,,,14,,1,\"ages 14 and up; outside the reading range of grades 2 and 3 (levels 0.0 to 5.9)\",%s\n"+
		"Level Nine,Nia Author,9780061120084,9.5,,,2,\"%s\",%s\n", ages, reason, nine)
	if string(r.Body) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", r.Body, want)
	}
	// School A's own report never names school B's books.
	if strings.Contains(jsonOf(t, get(w.libA, "?limit=100")["books"]), nine) {
		t.Error("school A's report lists school B's book")
	}

	for _, tt := range []struct {
		query  string
		status int
		code   string
		field  string
	}{
		{"page=0", 422, "validation_failed", "page"},
		{"limit=0", 422, "validation_failed", "limit"},
		{"limit=101", 422, "validation_failed", "limit"},
		{"limit=ten", 400, "malformed_query", "limit"},
		{"page=0&format=csv", 422, "validation_failed", "page"},
		{"format=xml", 422, "validation_failed", "format"},
	} {
		details := wantRefused(t, tt.query, s.do(req{Path: "/api/library/reports/never-borrowed-outside-grades?" + tt.query, Token: w.libB}), tt.status, tt.code)
		if f, _ := details["fields"].(map[string]any); f[tt.field] == nil {
			t.Errorf("%s: details %v do not name %s", tt.query, details, tt.field)
		}
	}
	wantRefused(t, "a student", s.do(req{Path: "/api/library/reports/never-borrowed-outside-grades", Token: w.studentA}), 403, "forbidden")
	wantRefused(t, "another school", s.do(req{Path: "/api/library/reports/never-borrowed-outside-grades?schoolId=" + w.schoolB, Token: w.libA}), 403, "forbidden")
}
