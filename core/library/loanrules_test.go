package library

import (
	"errors"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
)

func TestStudentLoanTerms(t *testing.T) {
	set := DefaultSettings() // 14 days, 2 renewals
	rules := []LoanRule{
		{Patron: "students", Category: CategoryStandard, LoanDays: 21, Renewals: 1, MaxItems: 4},
		{Patron: "grade:year 7", Category: CategoryStandard, LoanDays: 7, Renewals: 0, MaxItems: 1},
		{Patron: "grade:7", Category: CategoryShort, LoanDays: 2, Renewals: 1, MaxItems: 2},
		{Patron: "staff", Category: CategoryStandard, LoanDays: 60, Renewals: 5},
		{Patron: "students", Category: CategoryReference, LoanDays: 3, Renewals: 1, MaxItems: 1},
	}
	cases := []struct {
		name            string
		rules           []LoanRule
		grade, category string
		want            LoanTerms
	}{
		{"no rules: the settings, no limit", nil, "7", CategoryStandard, LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"no rules: short loans keep the settings too", nil, "7", CategoryShort, LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"empty category is standard", nil, "", "", LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"no rules: reference is never lent", nil, "7", CategoryReference, LoanTerms{}},
		{"students row", rules, "8", CategoryStandard, LoanTerms{Lendable: true, LoanDays: 21, Renewals: 1, MaxItems: 4}},
		{"student without a grade", rules, "", CategoryStandard, LoanTerms{Lendable: true, LoanDays: 21, Renewals: 1, MaxItems: 4}},
		{"grade row wins, compared trimmed and case-insensitive", rules, "  YEAR   7 ", CategoryStandard, LoanTerms{Lendable: true, LoanDays: 7, Renewals: 0, MaxItems: 1}},
		{"grade row of another category", rules, "7", CategoryShort, LoanTerms{Lendable: true, LoanDays: 2, Renewals: 1, MaxItems: 2}},
		{"category without a row for the student keeps the settings", rules, "8", CategoryShort, LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"reference rows have no effect", rules, "8", CategoryReference, LoanTerms{}},
		{"staff rows do not apply to students", []LoanRule{{Patron: "staff", Category: CategoryStandard, LoanDays: 60, Renewals: 5}}, "7", CategoryStandard,
			LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := StudentLoanTerms(c.rules, set, c.grade, c.category); got != c.want {
				t.Errorf("StudentLoanTerms(%q, %q) = %+v, want %+v", c.grade, c.category, got, c.want)
			}
		})
	}
}

func TestStaffLoanTerms(t *testing.T) {
	set := DefaultSettings() // 14 days, 2 renewals
	rules := []LoanRule{
		{Patron: "students", Category: CategoryStandard, LoanDays: 21, Renewals: 1, MaxItems: 4},
		{Patron: "staff", Category: CategoryStandard, LoanDays: 60, Renewals: 5, MaxItems: 10},
		{Patron: "staff", Category: CategoryReference, LoanDays: 3, Renewals: 1, MaxItems: 1},
	}
	cases := []struct {
		name     string
		rules    []LoanRule
		category string
		want     LoanTerms
	}{
		{"no rules: the settings, no limit", nil, CategoryStandard, LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"the staff row", rules, CategoryStandard, LoanTerms{Lendable: true, LoanDays: 60, Renewals: 5, MaxItems: 10}},
		{"students rows do not apply to staff", rules[:1], CategoryStandard, LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"a category without a staff row keeps the settings", rules, CategoryShort, LoanTerms{Lendable: true, LoanDays: 14, Renewals: 2}},
		{"reference is never lent", rules, CategoryReference, LoanTerms{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := StaffLoanTerms(c.rules, set, c.category); got != c.want {
				t.Errorf("StaffLoanTerms(%q) = %+v, want %+v", c.category, got, c.want)
			}
		})
	}
}

func TestNewLoanRules(t *testing.T) {
	ok := LoanRule{Patron: "students", Category: "standard", LoanDays: 14, Renewals: 2, MaxItems: 5}
	with := func(f func(*LoanRule)) []LoanRule {
		r := ok
		f(&r)
		return []LoanRule{r}
	}
	bad := []struct {
		name  string
		rules []LoanRule
		field string
	}{
		{"unknown patron", with(func(r *LoanRule) { r.Patron = "teachers" }), "rules[0].patron"},
		{"empty patron", with(func(r *LoanRule) { r.Patron = "" }), "rules[0].patron"},
		{"grade without a grade", with(func(r *LoanRule) { r.Patron = "grade:  " }), "rules[0].patron"},
		{"grade too long", with(func(r *LoanRule) { r.Patron = "grade:" + strings.Repeat("x", MaxGrade+1) }), "rules[0].patron"},
		{"unknown category", with(func(r *LoanRule) { r.Category = "overnight" }), "rules[0].category"},
		{"empty category", with(func(r *LoanRule) { r.Category = "" }), "rules[0].category"},
		{"loan days 0", with(func(r *LoanRule) { r.LoanDays = 0 }), "rules[0].loan_days"},
		{"loan days 366", with(func(r *LoanRule) { r.LoanDays = 366 }), "rules[0].loan_days"},
		{"renewals -1", with(func(r *LoanRule) { r.Renewals = -1 }), "rules[0].renewals"},
		{"renewals 21", with(func(r *LoanRule) { r.Renewals = 21 }), "rules[0].renewals"},
		{"max items -1", with(func(r *LoanRule) { r.MaxItems = -1 }), "rules[0].max_items"},
		{"max items 101", with(func(r *LoanRule) { r.MaxItems = 101 }), "rules[0].max_items"},
		{"duplicate patron and category", []LoanRule{ok, {Patron: " Students ", Category: "STANDARD", LoanDays: 7}}, "rules[1].patron"},
		{"duplicate grade differing in case and spaces", []LoanRule{
			{Patron: "grade:Year 7", Category: "short", LoanDays: 3},
			{Patron: "grade: year  7 ", Category: "short", LoanDays: 4}}, "rules[1].patron"},
		{"too many rules", make([]LoanRule, MaxLoanRules+1), "rules"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewLoanRules(c.rules)
			var e *errs.Error
			if !errors.As(err, &e) || e.Kind != errs.Invalid {
				t.Fatalf("NewLoanRules = %v, want Invalid", err)
			}
			if fields, _ := e.Details["fields"].(map[string]any); fields[c.field] == nil {
				t.Errorf("error %+v does not name %s", e.Details, c.field)
			}
		})
	}
	got, err := NewLoanRules([]LoanRule{
		{Patron: " Grade:Year  7 ", Category: " Short ", LoanDays: 1, Renewals: 0, MaxItems: 0},
		{Patron: "STAFF", Category: "reference", LoanDays: 365, Renewals: 20, MaxItems: 100},
		{Patron: "grade:8", Category: "short", LoanDays: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []LoanRule{
		{Patron: "grade:year 7", Category: "short", LoanDays: 1},
		{Patron: "staff", Category: "reference", LoanDays: 365, Renewals: 20, MaxItems: 100},
		{Patron: "grade:8", Category: "short", LoanDays: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rule %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if rules, err := NewLoanRules(make([]LoanRule, 0)); err != nil || len(rules) != 0 {
		t.Errorf("no rules: %v, %v", rules, err)
	}
}

func TestBookDraftLoanCategory(t *testing.T) {
	d := BookDraft{Title: "T", Author: "A"}
	if err := ValidateBookDraft(d); err != nil || d.Normalized().LoanCategory != CategoryStandard {
		t.Errorf("no category: %v, %q", err, d.Normalized().LoanCategory)
	}
	d.LoanCategory = " Reference "
	if err := ValidateBookDraft(d); err != nil || d.Normalized().LoanCategory != CategoryReference {
		t.Errorf("reference: %v, %q", err, d.Normalized().LoanCategory)
	}
	d.LoanCategory = "rare"
	if err := ValidateBookDraft(d); err == nil {
		t.Error("an unknown category is accepted")
	}
}
