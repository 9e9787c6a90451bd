package webapp

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// TestLoanRulesFormSavesAndRefuses saves a school's loan rules from the
// Loan rules page, one a line, shows a refused list with the problem and
// the line it is on, and saves nothing then; staff read the rules but
// cannot save them, and students cannot open the page.
func TestLoanRulesFormSavesAndRefuses(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	const path = "/library/maple.example.org/loan-rules"
	rules := func() []library.LoanRule {
		s, err := f.lib.Schools.LoanRules(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.LoanRules
	}
	rec := f.do(&f.librarian, http.MethodPost, path, url.Values{"rules": {"grade:7; standard; 14; 2; 5\r\n\r\n students ; short ; 3 ; 0 ; 0"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("save the rules: %d %s", rec.Code, rec.Body)
	}
	want := []library.LoanRule{
		{Patron: "grade:7", Category: "standard", LoanDays: 14, Renewals: 2, MaxItems: 5},
		{Patron: "students", Category: "short", LoanDays: 3},
	}
	if got := rules(); !reflect.DeepEqual(got, want) {
		t.Fatalf("saved rules = %+v, want %+v", got, want)
	}
	doc := parse(t, f.do(&f.librarian, http.MethodGet, path, nil).Body.String())
	if got := textOf(byID(doc, "loan-rules")); !strings.Contains(got, "grade:7; standard; 14; 2; 5 students; short; 3; 0; 0") {
		t.Errorf("rules box = %q", got)
	}

	for _, tc := range []struct{ name, rules, says string }{
		{"a line with four values", "students; standard; 14; 2", "line 1"},
		{"a line that is no number", "students; standard; 14; two; 5", "line 1"},
		{"loan days out of range", "students; standard; 14; 2; 5\n\ngrade:8; short; 0; 0; 0", "line 3: loan days"},
		{"an unknown category", "students; overnight; 1; 0; 0", "line 1: category"},
	} {
		rec := f.do(&f.librarian, http.MethodPost, path, url.Values{"rules": {tc.rules}})
		if rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d, want 422", tc.name, rec.Code)
		}
		doc := parse(t, rec.Body.String())
		if el := byID(doc, "loan-rules"); el == nil || attr(el, "aria-invalid") != "true" {
			t.Errorf("%s: the rules box is not marked invalid", tc.name)
		}
		if got := textOf(byID(doc, "loan-rules-field-error")); !strings.Contains(got, tc.says) {
			t.Errorf("%s: the page says %q, want %q", tc.name, got, tc.says)
		}
		if got := rules(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: a refused form changed the rules: %+v", tc.name, got)
		}
	}
	if rec := f.do(&f.staff, http.MethodGet, path, nil); rec.Code != http.StatusOK || byID(parse(t, rec.Body.String()), "loan-rules-form") != nil {
		t.Errorf("staff reading the rules: %d, with the form shown: %v", rec.Code, rec.Code == http.StatusOK)
	}
	if rec := f.do(&f.student, http.MethodGet, path, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a student opening the rules: %d, want 403", rec.Code)
	}
	if rec := f.do(&f.staff, http.MethodPost, path, url.Values{"rules": {""}}); rec.Code != http.StatusForbidden {
		t.Errorf("staff saving the rules: %d, want 403", rec.Code)
	}
	if got := rules(); !reflect.DeepEqual(got, want) {
		t.Fatalf("refused callers changed the rules: %+v", got)
	}
}
