package test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// loanRulesOf reads a school's loan rules as tok.
func (w *libraryWorld) loanRulesOf(t *testing.T, tok string) []any {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/loan-rules?schoolId=" + w.schoolA, Token: tok})
	if r.Status != 200 {
		t.Fatalf("GET loan-rules: %d %s", r.Status, r.Body)
	}
	return r.json(t)["rules"].([]any)
}

func (w *libraryWorld) putLoanRules(tok, rules string) response {
	return w.s.do(req{Method: http.MethodPut, Path: "/api/library/loan-rules?schoolId=" + w.schoolA, Token: tok, Body: `{"rules":` + rules + `}`})
}

// gradedStudent adds a student of school A in grade and returns its id.
func (w *libraryWorld) gradedStudent(t *testing.T, name, number, grade string) string {
	t.Helper()
	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: fmt.Sprintf(`{"name":%q,"student_number":%q,"grade":%q}`, name, number, grade)})
	if r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	return r.json(t)["student"].(map[string]any)["student_id"].(string)
}

// lendOK lends the book's copy and returns the loan.
func (w *libraryWorld) lendOK(t *testing.T, bookID string, copy map[string]any, studentID string) map[string]any {
	t.Helper()
	r := w.lend(w.libA, bookID, copy["id"].(string), studentID)
	if r.Status != 201 {
		t.Fatalf("lend %s: %d %s", copy["code"], r.Status, r.Body)
	}
	return r.json(t)["loan"].(map[string]any)
}

func dueIn(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly) }

// TestLoanRules: a school without rules lends as before; rules set the
// loan days, renewals and items at once by grade and category; reference
// books are never lent; refused changes of the rules change nothing.
func TestLoanRules(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	seventh := w.gradedStudent(t, "Sam Seventh", "R-7", " Year 7 ")
	eighth := w.gradedStudent(t, "Eve Eighth", "R-8", "8")
	_, standardCopies := w.addBook(t, w.libA, `{"title":"Standard Tales","author":"A","copies":4}`)
	standardID := standardCopies[0]["book_id"].(string)
	shortID, shortCopies := w.addBook(t, w.libA, `{"title":"Short Loan Atlas","author":"B","copies":2,"loan_category":"short"}`)

	// No rules: every category lends on the settings (14 days, 2 renewals,
	// no limit), exactly as before rules existed.
	if rules := w.loanRulesOf(t, w.staffA); len(rules) != 0 {
		t.Fatalf("a new school has rules: %v", rules)
	}
	first := w.lendOK(t, standardID, standardCopies[0], seventh)
	second := w.lendOK(t, standardID, standardCopies[1], seventh)
	short := w.lendOK(t, shortID, shortCopies[0], seventh)
	for _, l := range []map[string]any{first, second, short} {
		if l["due_at"] != dueIn(14) {
			t.Fatalf("without rules a loan is due %v, want %s", l["due_at"], dueIn(14))
		}
	}
	for i := 1; i <= 2; i++ {
		if r := w.act(w.libA, short["id"].(string), "renew"); r.Status != 200 {
			t.Fatalf("renewal %d without rules: %d %s", i, r.Status, r.Body)
		}
	}
	wantRefused(t, "a third renewal without rules", w.act(w.libA, short["id"].(string), "renew"), 409, "renewal_limit_reached")
	for _, l := range []map[string]any{first, second, short} {
		if r := w.act(w.libA, l["id"].(string), "return"); r.Status != 200 {
			t.Fatalf("return: %d %s", r.Status, r.Body)
		}
	}

	// Refused changes change nothing.
	valid := `[{"patron":"grade:year 7","category":"standard","loan_days":5,"renewals":1,"max_items":1}]`
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/loan-rules?schoolId=" + w.schoolA, Body: `{"rules":` + valid + `}`}); r.Status != 401 {
		t.Fatalf("PUT without a token: %d", r.Status)
	}
	wantRefused(t, "PUT as staff", w.putLoanRules(w.staffA, valid), 403, "forbidden")
	wantRefused(t, "PUT as another school's librarian", w.putLoanRules(w.libB, valid), 403, "forbidden")
	wantRefused(t, "GET as a student", s.do(req{Path: "/api/library/loan-rules", Token: w.studentA}), 403, "forbidden")
	for _, bad := range []struct{ rules, field string }{
		{`[{"patron":"grade:7","category":"standard","loan_days":0,"renewals":1,"max_items":1}]`, "rules[0].loan_days"},
		{`[{"patron":"teachers","category":"standard","loan_days":5,"renewals":1,"max_items":1}]`, "rules[0].patron"},
		{`[{"patron":"students","category":"overnight","loan_days":5,"renewals":1,"max_items":1}]`, "rules[0].category"},
		{`[{"patron":"students","category":"short","loan_days":5,"renewals":21,"max_items":1}]`, "rules[0].renewals"},
		{`[{"patron":"students","category":"short","loan_days":5,"renewals":0,"max_items":101}]`, "rules[0].max_items"},
		{`[{"patron":"students","category":"short","loan_days":5,"renewals":0,"max_items":1},{"patron":"Students","category":"short","loan_days":6,"renewals":0,"max_items":1}]`, "rules[1].patron"},
	} {
		details := wantRefused(t, "PUT "+bad.rules, w.putLoanRules(w.libA, bad.rules), 422, "validation_failed")
		if fields, _ := details["fields"].(map[string]any); fields[bad.field] == nil {
			t.Errorf("PUT %s: 422 without naming %s: %v", bad.rules, bad.field, details)
		}
	}
	if rules := w.loanRulesOf(t, w.libA); len(rules) != 0 {
		t.Fatalf("refused PUTs stored rules: %v", rules)
	}

	// Grade 7: one standard item for 5 days with one renewal; short loans
	// for 2 days; every other student 21 days without renewals.
	r := w.putLoanRules(w.libA, `[{"patron":"grade: YEAR 7","category":"standard","loan_days":5,"renewals":1,"max_items":1},
		{"patron":"students","category":"standard","loan_days":21,"renewals":0,"max_items":0},
		{"patron":"students","category":"short","loan_days":2,"renewals":0,"max_items":2},
		{"patron":"staff","category":"standard","loan_days":60,"renewals":5,"max_items":0}]`)
	if r.Status != 200 {
		t.Fatalf("PUT loan rules: %d %s", r.Status, r.Body)
	}
	rules := w.loanRulesOf(t, w.staffA)
	if len(rules) != 4 || rules[0].(map[string]any)["patron"] != "grade:year 7" {
		t.Fatalf("stored rules = %v", rules)
	}
	if admin := s.do(req{Path: "/api/library/loan-rules?schoolId=" + w.schoolA, Token: w.admin}).json(t)["rules"].([]any); len(admin) != 4 {
		t.Fatalf("the admin reads %v", admin)
	}

	loan := w.lendOK(t, standardID, standardCopies[0], seventh)
	if loan["due_at"] != dueIn(5) {
		t.Fatalf("grade 7 standard loan due %v, want %s", loan["due_at"], dueIn(5))
	}
	if r := w.act(w.libA, loan["id"].(string), "renew"); r.Status != 200 {
		t.Fatalf("the rule's one renewal: %d %s", r.Status, r.Body)
	}
	wantRefused(t, "a second renewal under the rule", w.act(w.libA, loan["id"].(string), "renew"), 409, "renewal_limit_reached")

	details := wantRefused(t, "a second standard item for grade 7", w.lend(w.libA, standardID, standardCopies[1]["id"].(string), seventh), 409, "loan_limit_reached")
	if details["limit"] != float64(1) || details["have"] != float64(1) || details["category"] != "standard" {
		t.Fatalf("loan_limit_reached details = %v", details)
	}
	// The refused loan left the copy on the shelf: another student takes it.
	other := w.lendOK(t, standardID, standardCopies[1], eighth)
	if other["due_at"] != dueIn(21) {
		t.Fatalf("grade 8 standard loan due %v, want %s (the students rule)", other["due_at"], dueIn(21))
	}
	wantRefused(t, "a renewal the students rule does not allow", w.act(w.libA, other["id"].(string), "renew"), 409, "renewal_limit_reached")
	// Another category is counted on its own.
	shortLoan := w.lendOK(t, shortID, shortCopies[0], seventh)
	if shortLoan["due_at"] != dueIn(2) {
		t.Fatalf("short loan due %v, want %s", shortLoan["due_at"], dueIn(2))
	}
	// Returning frees the place.
	if r := w.act(w.libA, loan["id"].(string), "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	w.lendOK(t, standardID, standardCopies[2], seventh)

	// Reference books are never lent, whatever the rules say.
	refID, refCopies := w.addBook(t, w.libA, `{"title":"Encyclopaedia","author":"C","copies":1,"loan_category":"reference"}`)
	if w.catalogOf(t, "maplegrove.example.org")[refID]["loan_category"] != "reference" {
		t.Fatal("the public catalog does not show the reference book as such")
	}
	wantRefused(t, "lending a reference book", w.lend(w.libA, refID, refCopies[0]["id"].(string), eighth), 409, "not_for_loan")
	wantRefused(t, "a hold on a reference book", s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, refID, eighth)}), 409, "not_for_loan")

	// A book's category changes with PATCH, within its school only.
	patch := func(tok, bookID, body string) response {
		return s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + bookID, Token: tok, Body: body})
	}
	wantRefused(t, "PATCH as staff", patch(w.staffA, shortID, `{"loan_category":"reference"}`), 403, "forbidden")
	wantRefused(t, "PATCH another school's book", patch(w.libB, shortID, `{"loan_category":"reference"}`), 404, "book_not_found")
	wantRefused(t, "PATCH an unknown category", patch(w.libA, shortID, `{"loan_category":"rare"}`), 422, "validation_failed")
	wantRefused(t, "PATCH an unknown book", patch(w.libA, "0b6f1c1e-2f7e-4a43-9d43-8f0e3c7b9a11", `{"loan_category":"reference"}`), 404, "book_not_found")
	if w.catalogOf(t, "maplegrove.example.org")[shortID]["loan_category"] != "short" {
		t.Fatal("a refused PATCH changed the book")
	}
	r = patch(w.libA, shortID, `{"loan_category":"reference"}`)
	if r.Status != 200 || r.json(t)["book"].(map[string]any)["loan_category"] != "reference" {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	wantRefused(t, "lending a book made reference", w.lend(w.libA, shortID, shortCopies[1]["id"].(string), eighth), 409, "not_for_loan")
	wantRefused(t, "renewing a loan of a book made reference", w.act(w.libA, shortLoan["id"].(string), "renew"), 409, "not_for_loan")
	if r := patch(w.admin, shortID, fmt.Sprintf(`{"school_id":%q,"loan_category":"standard"}`, w.schoolA)); r.Status != 200 {
		t.Fatalf("PATCH as admin: %d %s", r.Status, r.Body)
	}
	if l := w.lendOK(t, shortID, shortCopies[1], eighth); l["due_at"] != dueIn(21) {
		t.Fatalf("a book made standard lends on the standard rule: due %v", l["due_at"])
	}

	// Clearing the rules restores the settings.
	if r := w.putLoanRules(w.libA, `[]`); r.Status != 200 {
		t.Fatalf("clear the rules: %d %s", r.Status, r.Body)
	}
	if l := w.lendOK(t, standardID, standardCopies[3], seventh); l["due_at"] != dueIn(14) {
		t.Fatalf("after clearing the rules a loan is due %v, want %s", l["due_at"], dueIn(14))
	}
}

// TestLoanLimitRace: check-outs racing for a student's last place never
// pass the limit; the losers are refused with loan_limit_reached and their
// copies stay on the shelf.
func TestLoanLimitRace(t *testing.T) {
	w := newLibraryWorld(t)
	student := w.gradedStudent(t, "Rae Racer", "R-R", "7")
	bookID, copies := w.addBook(t, w.libA, `{"title":"Race Tales","author":"R","copies":8}`)
	if r := w.putLoanRules(w.libA, `[{"patron":"grade:7","category":"standard","loan_days":10,"renewals":0,"max_items":1}]`); r.Status != 200 {
		t.Fatalf("PUT rules: %d %s", r.Status, r.Body)
	}
	results := make([]response, len(copies))
	var wg sync.WaitGroup
	for i, c := range copies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = w.lend(w.libA, bookID, c["id"].(string), student)
		}()
	}
	wg.Wait()
	won := 0
	for _, r := range results {
		switch r.Status {
		case 201:
			won++
		case 409:
			if c, _ := r.apiError(t); c != "loan_limit_reached" {
				t.Fatalf("a losing check-out: %s", r.Body)
			}
		default:
			t.Fatalf("a racing check-out: %d %s", r.Status, r.Body)
		}
	}
	if won > 1 {
		t.Fatalf("%d racing check-outs were made past a limit of 1", won)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]["available_copies"]; got != float64(len(copies)-won) {
		t.Fatalf("available copies = %v after %d loans: refused loans kept their copies", got, won)
	}
	if won == 0 { // all gave way to each other: a retry is made
		w.lendOK(t, bookID, copies[0], student)
	}
}
