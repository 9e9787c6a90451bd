package library

import (
	"fmt"
	"strings"

	"github.com/readinglibrary/service/core/errs"
)

// Loan categories of a book. A book stored before categories existed reads
// as standard, so its loans go on as before.
const (
	CategoryStandard  = "standard"
	CategoryShort     = "short"
	CategoryReference = "reference" // never lent
)

// LoanCategories are the categories in the order clients list them.
var LoanCategories = []string{CategoryStandard, CategoryShort, CategoryReference}

// ParseLoanCategory checks a category a client sends; "" is standard.
// Errors: Invalid for field.
func ParseLoanCategory(field, category string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(category))
	if c == "" {
		return CategoryStandard, nil
	}
	for _, known := range LoanCategories {
		if c == known {
			return c, nil
		}
	}
	return "", errs.InvalidField(field, "must be standard, short or reference")
}

// BookCategory is the category of b, standard when it has none.
func BookCategory(b Book) string {
	if b.LoanCategory == "" {
		return CategoryStandard
	}
	return b.LoanCategory
}

// Patrons a loan rule can name besides "grade:<grade>".
const (
	PatronStudents = "students"
	PatronStaff    = "staff"
	patronGrade    = "grade:"
)

// Bounds of a school's loan rules.
const (
	MaxLoanRules    = 200
	MaxRuleLoanDays = 365
	MaxRuleRenewals = 20
	MaxRuleItems    = 100
)

// LoanRule is one cell of a school's matrix of patron type by loan
// category: how long a loan lasts, how often it renews and how many loans
// of the category the patron may have at once (MaxItems 0: no limit).
type LoanRule struct {
	Patron   string // "students", "staff" or "grade:<grade>"
	Category string
	LoanDays int
	Renewals int
	MaxItems int
}

// LoanTerms are the rule a loan is made under.
type LoanTerms struct {
	Lendable bool
	LoanDays int
	Renewals int
	MaxItems int // 0: no limit
}

// NewLoanRules validates a whole list of rules as a client sends it and
// returns it normalised (patron and category lowercased, a grade trimmed
// like a student's grade). Errors: Invalid naming rules[i].field.
func NewLoanRules(rules []LoanRule) ([]LoanRule, error) {
	fields := errs.FieldErrors{}
	if len(rules) > MaxLoanRules {
		fields.Add("rules", fmt.Sprintf("must have at most %d rules", MaxLoanRules))
		return nil, fields.Err()
	}
	out := make([]LoanRule, 0, len(rules))
	seen := map[[2]string]bool{}
	for i, r := range rules {
		at := func(f string) string { return fmt.Sprintf("rules[%d].%s", i, f) }
		patron, ok := normalizePatron(r.Patron)
		if !ok {
			fields.Add(at("patron"), "must be students, staff or grade:<grade> (a grade of 1 to 16 characters)")
		}
		category, err := ParseLoanCategory(at("category"), r.Category)
		if err != nil || strings.TrimSpace(r.Category) == "" {
			fields.Add(at("category"), "must be standard, short or reference")
		}
		if r.LoanDays < 1 || r.LoanDays > MaxRuleLoanDays {
			fields.Add(at("loan_days"), fmt.Sprintf("must be between 1 and %d", MaxRuleLoanDays))
		}
		if r.Renewals < 0 || r.Renewals > MaxRuleRenewals {
			fields.Add(at("renewals"), fmt.Sprintf("must be between 0 and %d", MaxRuleRenewals))
		}
		if r.MaxItems < 0 || r.MaxItems > MaxRuleItems {
			fields.Add(at("max_items"), fmt.Sprintf("must be between 0 (no limit) and %d", MaxRuleItems))
		}
		if ok && err == nil {
			key := [2]string{patron, category}
			if seen[key] {
				fields.Add(at("patron"), "repeats the patron and category of an earlier rule")
			}
			seen[key] = true
		}
		out = append(out, LoanRule{Patron: patron, Category: category, LoanDays: r.LoanDays, Renewals: r.Renewals, MaxItems: r.MaxItems})
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// normalizePatron returns the stored form of a rule's patron: a grade is
// compared like HomeroomKey (trimmed, case-insensitive).
func normalizePatron(p string) (string, bool) {
	p = strings.TrimSpace(p)
	lower := strings.ToLower(p)
	switch lower {
	case PatronStudents, PatronStaff:
		return lower, true
	}
	if !strings.HasPrefix(lower, patronGrade) {
		return "", false
	}
	grade := NormalizeClassField(p[len(patronGrade):])
	if grade == "" || ValidateGrade(grade) != "" {
		return "", false
	}
	return patronGrade + HomeroomKey(grade), true
}

// StudentLoanTerms are the terms a student of grade borrows a book of
// category under. The most specific rule wins: the student's grade, then
// "students". A category without a rule keeps the school's settings
// (DefaultLoanDays, MaxRenewals, no limit on items), for short loans too,
// so a school that sets no rules lends as it always did. Reference books
// are never lent, whatever the rules say.
func StudentLoanTerms(rules []LoanRule, set Settings, grade, category string) LoanTerms {
	if category == CategoryReference {
		return LoanTerms{}
	}
	if category == "" {
		category = CategoryStandard
	}
	terms := LoanTerms{Lendable: true, LoanDays: set.DefaultLoanDays, Renewals: set.MaxRenewals}
	var byStudents, byGrade *LoanRule
	gradeKey := ""
	if g := NormalizeClassField(grade); g != "" {
		gradeKey = patronGrade + HomeroomKey(g)
	}
	for i := range rules {
		r := &rules[i]
		if r.Category != category {
			continue
		}
		switch {
		case gradeKey != "" && r.Patron == gradeKey:
			byGrade = r
		case r.Patron == PatronStudents:
			byStudents = r
		}
	}
	rule := byGrade
	if rule == nil {
		rule = byStudents
	}
	if rule != nil {
		terms.LoanDays, terms.Renewals, terms.MaxItems = rule.LoanDays, rule.Renewals, rule.MaxItems
	}
	return terms
}

// StaffLoanTerms are the terms a member of staff borrows a book of
// category under: the "staff" rule of the category, else the school's
// settings; reference books are never lent.
func StaffLoanTerms(rules []LoanRule, set Settings, category string) LoanTerms {
	if category == CategoryReference {
		return LoanTerms{}
	}
	if category == "" {
		category = CategoryStandard
	}
	terms := LoanTerms{Lendable: true, LoanDays: set.DefaultLoanDays, Renewals: set.MaxRenewals}
	for _, r := range rules {
		if r.Category == category && r.Patron == PatronStaff {
			terms.LoanDays, terms.Renewals, terms.MaxItems = r.LoanDays, r.Renewals, r.MaxItems
		}
	}
	return terms
}

// ErrNotForLoan is the error for lending a reference book.
func ErrNotForLoan() error {
	return errs.E(errs.Conflict, errs.CodeNotForLoan, "The book is for reference only and is not lent.")
}

// ErrLoanLimitReached is the error for a loan past the items a student may
// have at once of a category.
func ErrLoanLimitReached(limit, have int, category string) error {
	e := errs.E(errs.Conflict, errs.CodeLoanLimitReached,
		"The student already has %d %s loan(s), the most allowed at once (%d).", have, category, limit)
	e.Details = map[string]any{"limit": limit, "have": have, "category": category}
	return e
}
