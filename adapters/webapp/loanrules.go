package webapp

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// ----- loan rules and books' loan categories -----

// The rules form types one rule a line, "grade:7; standard; 14; 2; 5"
// (patron; category; loan days; renewals; items at once, 0 for no limit),
// so the whole matrix is edited in one box without JavaScript.

type loanRulesView struct {
	base
	Base    string
	Rules   []library.LoanRule
	CanEdit bool
	Form    *formState
}

func (a *App) loanRules(w http.ResponseWriter, r *http.Request, school library.School) {
	a.renderLoanRules(w, r, school, http.StatusOK, nil)
}

func (a *App) renderLoanRules(w http.ResponseWriter, r *http.Request, school library.School, status int, form *formState) {
	s, err := a.deps.Library.Schools.LoanRules(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := loanRulesView{base: a.schoolBase(r, school, "Loan rules", "loanrules"), Base: schoolPath(school), Rules: s.LoanRules,
		CanEdit: a.allowed(r, "update", "library:loanrules"), Form: form}
	if form == nil {
		v.Flash = a.takeFlash(w, r)
		v.Form = &formState{Values: map[string]string{"rules": ruleLines(s.LoanRules)}}
	}
	a.render(w, r, status, "loanrules", v)
}

// ruleLines writes rules in the form's format, one a line.
func ruleLines(rules []library.LoanRule) string {
	lines := make([]string, 0, len(rules))
	for _, r := range rules {
		lines = append(lines, fmt.Sprintf("%s; %s; %d; %d; %d", r.Patron, r.Category, r.LoanDays, r.Renewals, r.MaxItems))
	}
	return strings.Join(lines, "\n")
}

// parseRuleLines reads the rules box: on each non-blank line five values
// separated by semicolons. It returns the rules, the line of each, and the
// lines that could not be read (in the page's language).
func parseRuleLines(r *http.Request, text string) ([]library.LoanRule, []int, []string) {
	var rules []library.LoanRule
	var lines []int
	var problems []string
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, ";")
		nums := make([]int, 0, 3)
		if len(parts) == 5 {
			for _, p := range parts[2:] {
				if n, err := strconv.Atoi(strings.TrimSpace(p)); err == nil {
					nums = append(nums, n)
				}
			}
		}
		if len(nums) != 3 {
			problems = append(problems, tr(r, "line %s: must be patron; category; loan days; renewals; items at once", strconv.Itoa(i+1)))
			continue
		}
		rules = append(rules, library.LoanRule{Patron: parts[0], Category: parts[1], LoanDays: nums[0], Renewals: nums[1], MaxItems: nums[2]})
		lines = append(lines, i+1)
	}
	return rules, lines, problems
}

// ruleField matches the service's names of one rule's field: "rules[2].loan_days".
var ruleField = regexp.MustCompile(`^rules\[([0-9]+)\]\.([a-z_]+)$`)

// ruleErrors puts the service's per-rule field errors under the box, each
// naming the line it was typed on.
func ruleErrors(r *http.Request, fields map[string]string, lines []int) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	msgs := make([]string, 0, len(keys))
	for _, k := range keys {
		if m := ruleField.FindStringSubmatch(k); m != nil {
			if i, _ := strconv.Atoi(m[1]); i < len(lines) {
				msgs = append(msgs, tr(r, "line %s: %s %s", strconv.Itoa(lines[i]), ruleFieldName(r, m[2]), fields[k]))
				continue
			}
		}
		msgs = append(msgs, fields[k])
	}
	return strings.Join(msgs, "; ")
}

// ruleFieldName names a field of a rule as the box's hint does, in the
// page's language.
func ruleFieldName(r *http.Request, field string) string {
	switch field {
	case "patron":
		return tr(r, "patron")
	case "category":
		return tr(r, "category")
	case "loan_days":
		return tr(r, "loan days")
	case "renewals":
		return tr(r, "renewals")
	case "max_items":
		return tr(r, "max items")
	}
	return strings.ReplaceAll(field, "_", " ")
}

func (a *App) saveLoanRules(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	rules, lines, problems := parseRuleLines(r, form.Get("rules"))
	var err error
	if len(problems) > 0 {
		err = errs.InvalidField("rules", strings.Join(problems, "; "))
	} else {
		_, err = a.deps.Library.Schools.PutLoanRules(r.Context(), school.ID, rules)
	}
	if err != nil {
		st := a.refused(r, err, form, "rules")
		st.Fields = map[string]string{"rules": ruleErrors(r, st.Fields, lines)}
		a.renderLoanRules(w, r, school, a.statusFor(err), st)
		return
	}
	a.succeeded(w, r, schoolPath(school)+"/loan-rules", tr(r, "Loan rules saved. New loans and renewals follow them."))
}

func (a *App) setBookCategory(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/books"
	b, err := a.deps.Library.Holdings.SetBookCategory(r.Context(), school.ID, form.Get("book_id"), form.Get("loan_category"))
	if a.refusedTo(w, r, back, err) {
		return
	}
	// The books page says which category the book is in now.
	msg := tr(r, "%s is now a standard loan.", quote(b.Title))
	switch b.LoanCategory {
	case library.CategoryShort:
		msg = tr(r, "%s is now a short loan.", quote(b.Title))
	case library.CategoryReference:
		msg = tr(r, "%s is now reference only (not for loan).", quote(b.Title))
	}
	a.succeeded(w, r, back, msg)
}
