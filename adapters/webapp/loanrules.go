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
// lines that could not be read.
func parseRuleLines(text string) ([]library.LoanRule, []int, []string) {
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
			problems = append(problems, fmt.Sprintf("line %d: must be patron; category; loan days; renewals; items at once", i+1))
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
func ruleErrors(fields map[string]string, lines []int) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	msgs := make([]string, 0, len(keys))
	for _, k := range keys {
		if m := ruleField.FindStringSubmatch(k); m != nil {
			if i, _ := strconv.Atoi(m[1]); i < len(lines) {
				msgs = append(msgs, fmt.Sprintf("line %d: %s %s", lines[i], strings.ReplaceAll(m[2], "_", " "), fields[k]))
				continue
			}
		}
		msgs = append(msgs, fields[k])
	}
	return strings.Join(msgs, "; ")
}

func (a *App) saveLoanRules(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	rules, lines, problems := parseRuleLines(form.Get("rules"))
	var err error
	if len(problems) > 0 {
		err = errs.InvalidField("rules", strings.Join(problems, "; "))
	} else {
		_, err = a.deps.Library.Schools.PutLoanRules(r.Context(), school.ID, rules)
	}
	if err != nil {
		st := a.refused(r, err, form, "rules")
		st.Fields = map[string]string{"rules": ruleErrors(st.Fields, lines)}
		a.renderLoanRules(w, r, school, a.statusFor(err), st)
		return
	}
	a.succeeded(w, r, schoolPath(school)+"/loan-rules", "Loan rules saved. New loans and renewals follow them.")
}

func (a *App) setBookCategory(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/books"
	b, err := a.deps.Library.Holdings.SetBookCategory(r.Context(), school.ID, form.Get("book_id"), form.Get("loan_category"))
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, fmt.Sprintf("%s is now %s.", quote(b.Title), categoryLabel(b.LoanCategory)))
}

// categoryLabel names a loan category for the desk.
func categoryLabel(c string) string {
	switch c {
	case library.CategoryShort:
		return "a short loan"
	case library.CategoryReference:
		return "reference only (not for loan)"
	}
	return "a standard loan"
}
