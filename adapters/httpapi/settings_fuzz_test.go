package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// The calendar and loan-rules bodies are what a school's IT person pastes
// from another system or a script; the seeds are the bodies the end-to-end
// tests and the desk send, and their usual mistakes.
var calendarSeeds = []string{
	`{"closed_weekdays":[],"closures":[],"term_ends":[]}`,
	`{"closed_weekdays":["sunday","saturday"],"closures":[{"from":"2026-12-21","to":"2027-01-03","name":"Winter break"}],"term_ends":["2027-03-26","2026-12-18"]}`,
	`{"closed_weekdays":["monday","tuesday","wednesday","thursday","friday","saturday","sunday"],"closures":[],"term_ends":[]}`,
	`{"closed_weekdays":["Sunday"],"closures":[],"term_ends":[]}`,
	`{"closed_weekdays":["sunday","sunday"],"closures":[],"term_ends":[]}`,
	`{"closed_weekdays":[],"closures":[{"from":"2027-01-03","to":"2026-12-21","name":""}],"term_ends":[]}`,
	`{"closed_weekdays":[],"closures":[{"from":"1999-12-31","to":"3000-01-01","name":"\u0007"}],"term_ends":["2026-02-30","2026-12-18","2026-12-18"]}`,
	`{"closed_weekdays":[],"closures":[{"from":"2026-12-21","to":"2027-01-03","name":"  Winter break  "},{"from":"2026-10-01","to":"2026-10-01"}],"term_ends":[]}`,
	`{"closed_weekdays":null,"closures":[],"term_ends":[]}`,
	`{"closed_weekdays":[],"closures":[],"term_ends":[],"school_id":"x"}`,
}

var loanRulesSeeds = []string{
	`{"rules":[]}`,
	`{"rules":[{"patron":"staff","category":"standard","loan_days":28,"renewals":3,"max_items":0}]}`,
	`{"rules":[{"patron":"staff","category":"standard","loan_days":30,"renewals":1,"max_items":1},{"patron":"students","category":"short","loan_days":7,"renewals":0,"max_items":2}]}`,
	`{"rules":[{"patron":"grade: 5B ","category":"Reference","loan_days":1,"renewals":0,"max_items":0}]}`,
	`{"rules":[{"patron":"grade:5b","category":"standard","loan_days":14,"renewals":1,"max_items":3},{"patron":"GRADE:5B","category":"standard","loan_days":14,"renewals":1,"max_items":3}]}`,
	`{"rules":[{"patron":"teachers","category":"","loan_days":0,"renewals":-1,"max_items":101}]}`,
	`{"rules":[{"patron":"staff","category":"standard","loan_days":366,"renewals":21,"max_items":100}]}`,
	`{"rules":[{"patron":"staff","category":"standard","loan_days":1.5,"renewals":0,"max_items":0}]}`,
	`{"rules":null}`,
}

// settingsKindOK fails unless err is nil or an Invalid *errs.Error: a bad
// calendar or rule list is the client's mistake, never a server error.
func settingsKindOK(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid {
		t.Fatalf("%s: got %T %v, want an Invalid *errs.Error", what, err, err)
	}
}

// FuzzCalendarBody checks the PUT /api/library/calendar body as the handler
// reads it (strict decoding, then library.NewCalendar): errors are the
// client's, never Internal; an accepted calendar keeps the caps and the
// stored order; and what GET answers for it can be PUT back unchanged.
func FuzzCalendarBody(f *testing.F) {
	for _, s := range calendarSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req calendarRequest
		err := decodeStrict(body, &req)
		decodeKindOK(t, "calendarRequest", err)
		if err != nil {
			return
		}
		closures := mapSlice(req.Closures, func(c closureBody) library.Closure { return library.Closure(c) })
		cal, err := library.NewCalendar(req.ClosedWeekdays, closures, req.TermEnds)
		settingsKindOK(t, "NewCalendar", err)
		if err != nil {
			return
		}
		if len(cal.Closures) > library.MaxClosures || len(cal.TermEnds) > library.MaxTermEnds || len(cal.ClosedWeekdays) > 6 {
			t.Fatalf("accepted a calendar over its caps: %d closures, %d term ends, %d closed days", len(cal.Closures), len(cal.TermEnds), len(cal.ClosedWeekdays))
		}
		for i, c := range cal.Closures {
			if c.To < c.From {
				t.Fatalf("closure %d ends before it starts: %+v", i, c)
			}
			if i > 0 && cal.Closures[i-1].From > c.From {
				t.Fatalf("closures are not in date order: %+v", cal.Closures)
			}
		}

		// The GET body of the stored calendar, PUT back, stores the same calendar.
		answer, merr := json.Marshal(toCalendarBody(library.School{Calendar: cal}))
		if merr != nil {
			t.Fatalf("encoding the calendar: %v", merr)
		}
		var again calendarRequest
		if err := json.Unmarshal(answer, &again); err != nil {
			t.Fatalf("decoding the answer %s: %v", answer, err)
		}
		resent, _ := json.Marshal(again)
		var back calendarRequest
		if err := decodeStrict(resent, &back); err != nil {
			t.Fatalf("the calendar GET answers (%s) is refused when PUT back: %v", resent, err)
		}
		cal2, err := library.NewCalendar(back.ClosedWeekdays, mapSlice(back.Closures, func(c closureBody) library.Closure { return library.Closure(c) }), back.TermEnds)
		if err != nil {
			t.Fatalf("the calendar GET answers (%s) is refused when PUT back: %v", resent, err)
		}
		if !reflect.DeepEqual(normalCalendar(cal), normalCalendar(cal2)) {
			t.Fatalf("PUT back changed the calendar:\nfirst %+v\nagain %+v", cal, cal2)
		}
	})
}

// normalCalendar makes empty and nil lists compare equal.
func normalCalendar(c library.Calendar) library.Calendar {
	if len(c.ClosedWeekdays) == 0 {
		c.ClosedWeekdays = nil
	}
	if len(c.Closures) == 0 {
		c.Closures = nil
	}
	if len(c.TermEnds) == 0 {
		c.TermEnds = nil
	}
	return c
}

// FuzzLoanRulesBody checks the PUT /api/library/loan-rules body as the
// handler reads it (strict decoding, then library.NewLoanRules): errors are
// the client's, never Internal; accepted rules keep their bounds, name each
// patron and category once, and come back unchanged when PUT again.
func FuzzLoanRulesBody(f *testing.F) {
	for _, s := range loanRulesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req loanRulesRequest
		err := decodeStrict(body, &req)
		decodeKindOK(t, "loanRulesRequest", err)
		if err != nil {
			return
		}
		rules, err := library.NewLoanRules(mapSlice(req.Rules, func(r loanRuleBody) library.LoanRule { return library.LoanRule(r) }))
		settingsKindOK(t, "NewLoanRules", err)
		if err != nil {
			return
		}
		if len(rules) > library.MaxLoanRules {
			t.Fatalf("accepted %d rules, over the cap of %d", len(rules), library.MaxLoanRules)
		}
		seen := map[[2]string]bool{}
		for _, r := range rules {
			if r.LoanDays < 1 || r.LoanDays > library.MaxRuleLoanDays || r.Renewals < 0 || r.Renewals > library.MaxRuleRenewals ||
				r.MaxItems < 0 || r.MaxItems > library.MaxRuleItems {
				t.Fatalf("accepted a rule out of bounds: %+v", r)
			}
			key := [2]string{r.Patron, r.Category}
			if seen[key] {
				t.Fatalf("accepted two rules for %v: %+v", key, rules)
			}
			seen[key] = true
		}
		again, err := library.NewLoanRules(rules)
		if err != nil {
			t.Fatalf("the stored rules %+v are refused when PUT back: %v", rules, err)
		}
		if !reflect.DeepEqual(again, rules) {
			t.Fatalf("PUT back changed the rules:\nfirst %+v\nagain %+v", rules, again)
		}
	})
}
