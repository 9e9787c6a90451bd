package library_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// fieldsOf returns the field names of an Invalid error, or fails.
func fieldsOf(tb testing.TB, err error) map[string]any {
	tb.Helper()
	e, ok := errs.As(err)
	if !ok || e.Kind != errs.Invalid {
		tb.Fatalf("error = %v, want an Invalid *errs.Error", err)
	}
	fields, _ := e.Details["fields"].(map[string]any)
	return fields
}

// sameFieldSet reports whether fields has exactly the names in want.
func sameFieldSet(fields map[string]any, want []string) bool {
	if len(fields) != len(want) {
		return false
	}
	for _, w := range want {
		if _, ok := fields[w]; !ok {
			return false
		}
	}
	return true
}

func TestNormalizeISBN(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "Hyphens", in: "978-0-306-40615-7", want: "9780306406157"},
		{name: "Spaces", in: "0 8044 2957 x", want: "080442957X"},
		{name: "Plain", in: "0306406152", want: "0306406152"},
		{name: "OtherCharactersKept", in: "0.306.40615.2", want: "0.306.40615.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.NormalizeISBN(tt.in); got != tt.want {
				t.Errorf("NormalizeISBN(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidISBN(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "ISBN10", in: "0-306-40615-2", want: true},
		{name: "ISBN13", in: "978-0-306-40615-7", want: true},
		{name: "ISBN10CheckX", in: "0-8044-2957-X", want: true},
		{name: "ISBN10CheckLowercaseX", in: "0-8044-2957-x", want: true},
		{name: "ISBN13Plain", in: "9780306406157", want: true},
		{name: "ISBN13Prefix979", in: "979-10-90636-07-1", want: true},
		{name: "ISBN10WithSpaces", in: "0 306 40615 2", want: true},
		{name: "ISBN10ChangedDigit", in: "0-306-40616-2", want: false},
		{name: "ISBN13ChangedDigit", in: "978-0-306-40625-7", want: false},
		{name: "ISBN10WrongCheck", in: "0-306-40615-3", want: false},
		{name: "ISBN10XCheckWrong", in: "0-306-40615-X", want: false},
		{name: "ISBN10SwappedDigits", in: "0-306-46015-2", want: false},
		{name: "XNotLast", in: "X-306-40615-2", want: false},
		{name: "XInISBN13", in: "978-0-306-4061X-7", want: false},
		{name: "Letters", in: "ABCDEFGHIJ", want: false},
		{name: "NineDigits", in: "030640615", want: false},
		{name: "ElevenDigits", in: "03064061520", want: false},
		{name: "Empty", in: "", want: false},
		{name: "Dots", in: "0.306.40615.2", want: false},
		// EAN-13 with a right check digit but another prefix: a DVD's
		// barcode, not a book's ISBN.
		{name: "EANOfADVD", in: "5051889004295", want: false},
		{name: "EANPrefix977ISSN", in: "9770317847001", want: false},
		{name: "UPCA", in: "012345678905", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.ValidISBN(tt.in); got != tt.want {
				t.Errorf("ValidISBN(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidateSettings(t *testing.T) {
	// Cases without copy caps get the default caps (rawCaps keeps them as
	// written).
	tests := []struct {
		name       string
		settings   library.Settings
		wantFields []string
		rawCaps    bool
	}{
		{name: "Defaults", settings: library.DefaultSettings()},
		{name: "Minimums", settings: library.Settings{DefaultLoanDays: 1, RenewalDays: 1, MaxRenewals: 0}},
		{name: "Maximums", settings: library.Settings{DefaultLoanDays: 365, RenewalDays: 365, MaxRenewals: 20}},
		{name: "LoanDaysZero", settings: library.Settings{DefaultLoanDays: 0, RenewalDays: 7, MaxRenewals: 2}, wantFields: []string{"default_loan_days"}},
		{name: "LoanDays366", settings: library.Settings{DefaultLoanDays: 366, RenewalDays: 7, MaxRenewals: 2}, wantFields: []string{"default_loan_days"}},
		{name: "RenewalDaysZero", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 0, MaxRenewals: 2}, wantFields: []string{"renewal_days"}},
		{name: "RenewalDays366", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 366, MaxRenewals: 2}, wantFields: []string{"renewal_days"}},
		{name: "RenewalsNegative", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxRenewals: -1}, wantFields: []string{"max_renewals"}},
		{name: "Renewals21", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxRenewals: 21}, wantFields: []string{"max_renewals"}},
		{name: "AllBad", settings: library.Settings{DefaultLoanDays: -5, RenewalDays: 1000, MaxRenewals: 99}, wantFields: []string{"default_loan_days", "renewal_days", "max_renewals"}},
		{name: "CapsAtTheirBounds", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxCopiesPerBook: 1, MaxCopiesPerSchool: 1, HoldPickupDays: 1}, rawCaps: true},
		{name: "CapsAtTheirMaximums", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxCopiesPerBook: 5000, MaxCopiesPerSchool: 1_000_000, HoldPickupDays: 60}, rawCaps: true},
		{name: "CapsZero", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, HoldPickupDays: 7}, rawCaps: true, wantFields: []string{"max_copies_per_book", "max_copies_per_school"}},
		{name: "PickupDaysZero", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxCopiesPerBook: 1, MaxCopiesPerSchool: 1}, rawCaps: true, wantFields: []string{"hold_pickup_days"}},
		{name: "PickupDays61", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxCopiesPerBook: 1, MaxCopiesPerSchool: 1, HoldPickupDays: 61}, rawCaps: true, wantFields: []string{"hold_pickup_days"}},
		{name: "CapsOver", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, MaxCopiesPerBook: 5001, MaxCopiesPerSchool: 1_000_001, HoldPickupDays: 7}, rawCaps: true,
			wantFields: []string{"max_copies_per_book", "max_copies_per_school"}},
		{name: "HistoryKeptForGood", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, LoanHistoryDays: 0}},
		{name: "HistoryTenYears", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, LoanHistoryDays: 3650}},
		{name: "HistoryNegative", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, LoanHistoryDays: -1}, wantFields: []string{"loan_history_days"}},
		{name: "HistoryOverTenYears", settings: library.Settings{DefaultLoanDays: 14, RenewalDays: 7, LoanHistoryDays: 3651}, wantFields: []string{"loan_history_days"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.rawCaps {
				tt.settings = tt.settings.WithCapDefaults()
			}
			err := library.ValidateSettings(tt.settings)
			if len(tt.wantFields) == 0 {
				if err != nil {
					t.Fatalf("ValidateSettings(%+v) = %v, want nil", tt.settings, err)
				}
				return
			}
			if fields := fieldsOf(t, err); !sameFieldSet(fields, tt.wantFields) {
				t.Errorf("ValidateSettings(%+v) fields = %v, want %v", tt.settings, fields, tt.wantFields)
			}
		})
	}
}

func TestDefaultDueDate(t *testing.T) {
	// 23:30 in Auckland is still the previous day in UTC: the caller's
	// location decides the date.
	auckland := time.FixedZone("NZDT", 13*3600)
	tests := []struct {
		name  string
		today time.Time
		days  int
		want  string
	}{
		{name: "SameMonth", today: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), days: 14, want: "2026-11-16"},
		{name: "AcrossMonthEnd", today: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), days: 14, want: "2026-12-04"},
		{name: "AcrossYearEnd", today: time.Date(2026, 12, 25, 23, 59, 0, 0, time.UTC), days: 14, want: "2027-01-08"},
		{name: "OntoLeapDay", today: time.Date(2028, 2, 15, 8, 0, 0, 0, time.UTC), days: 14, want: "2028-02-29"},
		{name: "AcrossLeapDay", today: time.Date(2028, 2, 28, 8, 0, 0, 0, time.UTC), days: 2, want: "2028-03-01"},
		{name: "NoLeapDay", today: time.Date(2027, 2, 28, 8, 0, 0, 0, time.UTC), days: 1, want: "2027-03-01"},
		{name: "CallersLocation", today: time.Date(2026, 11, 21, 0, 30, 0, 0, auckland), days: 1, want: "2026-11-22"},
		{name: "FullYear", today: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), days: 365, want: "2027-03-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := library.DefaultSettings()
			s.DefaultLoanDays = tt.days
			if got := library.DefaultDueDate(tt.today, s); got != tt.want {
				t.Errorf("DefaultDueDate(%v, %d days) = %q, want %q", tt.today, tt.days, got, tt.want)
			}
		})
	}
}

func TestDefaultDueDateAcrossDaylightSaving(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	// Clocks go back on 2026-10-25; a day is then 25 hours long.
	today := time.Date(2026, 10, 24, 23, 30, 0, 0, berlin)
	if got, want := library.DefaultDueDate(today, library.Settings{DefaultLoanDays: 1}), "2026-10-25"; got != want {
		t.Errorf("DefaultDueDate() = %q, want %q", got, want)
	}
}

func TestParseDueDate(t *testing.T) {
	today := time.Date(2026, 12, 31, 15, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		in     string
		want   string
		wantOK bool
	}{
		{name: "Today", in: "2026-12-31", want: "2026-12-31", wantOK: true},
		{name: "NextYear", in: "2027-01-01", want: "2027-01-01", wantOK: true},
		{name: "LeapDay", in: "2028-02-29", want: "2028-02-29", wantOK: true},
		{name: "Yesterday", in: "2026-12-30", wantOK: false},
		{name: "NoLeapDay", in: "2027-02-29", wantOK: false},
		{name: "Month13", in: "2027-13-01", wantOK: false},
		{name: "OneDigitMonth", in: "2027-1-05", wantOK: false},
		{name: "Timestamp", in: "2027-01-05T00:00:00Z", wantOK: false},
		{name: "Slashes", in: "2027/01/05", wantOK: false},
		{name: "Empty", in: "", wantOK: false},
		{name: "Spaces", in: " 2027-01-05", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := library.ParseDueDate(tt.in, today)
			if gotOK := err == nil; gotOK != tt.wantOK {
				t.Fatalf("ParseDueDate(%q) error = %v, want accepted=%v", tt.in, err, tt.wantOK)
			}
			if err != nil {
				if fields := fieldsOf(t, err); !sameFieldSet(fields, []string{"due_at"}) {
					t.Errorf("fields = %v, want only due_at", fields)
				}
				return
			}
			if got != tt.want {
				t.Errorf("ParseDueDate(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseDueDateTodayInCallersLocation(t *testing.T) {
	// 2027-01-01 00:30 in Auckland is 2026-12-31 in UTC: "today" is the
	// caller's date, so 2026-12-31 is already in the past.
	today := time.Date(2027, 1, 1, 0, 30, 0, 0, time.FixedZone("NZDT", 13*3600))
	if _, err := library.ParseDueDate("2026-12-31", today); err == nil {
		t.Errorf("ParseDueDate(2026-12-31, %v) error = nil, want Invalid", today)
	}
	if got, err := library.ParseDueDate("2027-01-01", today); err != nil || got != "2027-01-01" {
		t.Errorf("ParseDueDate(2027-01-01, %v) = %q, %v, want 2027-01-01, nil", today, got, err)
	}
}

func TestRenewedDueDate(t *testing.T) {
	s := library.DefaultSettings() // 7 renewal days
	tests := []struct {
		name    string
		current string
		today   time.Time
		want    string
	}{
		{name: "FromDueDate", current: "2026-11-25", today: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), want: "2026-12-02"},
		{name: "DueToday", current: "2026-11-20", today: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), want: "2026-11-27"},
		{name: "OverdueStartsFromToday", current: "2026-11-01", today: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), want: "2026-11-27"},
		{name: "AcrossYearEnd", current: "2026-12-28", today: time.Date(2026, 12, 20, 9, 0, 0, 0, time.UTC), want: "2027-01-04"},
		{name: "OverdueAcrossLeapDay", current: "2028-01-10", today: time.Date(2028, 2, 25, 9, 0, 0, 0, time.UTC), want: "2028-03-03"},
		{name: "UnparsableCountsAsToday", current: "", today: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), want: "2026-11-27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.RenewedDueDate(tt.current, tt.today, s); got != tt.want {
				t.Errorf("RenewedDueDate(%q, %v) = %q, want %q", tt.current, tt.today, got, tt.want)
			}
		})
	}
}

func TestEffectiveDue(t *testing.T) {
	loan := library.Loan{ID: "loan-1", DueAt: "2026-12-04"}
	r1 := library.Renewal{LoanID: "loan-1", Number: 1, DueAt: "2026-12-11"}
	r2 := library.Renewal{LoanID: "loan-1", Number: 2, DueAt: "2026-12-18"}
	other := library.Renewal{LoanID: "loan-2", Number: 3, DueAt: "2027-06-01"}
	tests := []struct {
		name      string
		renewals  []library.Renewal
		wantDue   string
		wantCount int
	}{
		{name: "None", renewals: nil, wantDue: "2026-12-04", wantCount: 0},
		{name: "One", renewals: []library.Renewal{r1}, wantDue: "2026-12-11", wantCount: 1},
		{name: "TwoInOrder", renewals: []library.Renewal{r1, r2}, wantDue: "2026-12-18", wantCount: 2},
		{name: "TwoOutOfOrder", renewals: []library.Renewal{r2, r1}, wantDue: "2026-12-18", wantCount: 2},
		{name: "OtherLoansIgnored", renewals: []library.Renewal{other, r1}, wantDue: "2026-12-11", wantCount: 1},
		{name: "OnlyOtherLoans", renewals: []library.Renewal{other}, wantDue: "2026-12-04", wantCount: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			due, count := library.EffectiveDue(loan, tt.renewals)
			if due != tt.wantDue || count != tt.wantCount {
				t.Errorf("EffectiveDue() = %q, %d, want %q, %d", due, count, tt.wantDue, tt.wantCount)
			}
		})
	}
}

func TestLoanStatus(t *testing.T) {
	today := time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)
	returned := library.Loan{ReturnedAt: time.Date(2026, 11, 19, 10, 0, 0, 0, time.UTC)}
	tests := []struct {
		name  string
		loan  library.Loan
		due   string
		today time.Time
		want  string
	}{
		{name: "Active", due: "2026-11-21", today: today, want: library.LoanActive},
		{name: "DueToday", due: "2026-11-20", today: today, want: library.LoanActive},
		{name: "Overdue", due: "2026-11-19", today: today, want: library.LoanOverdue},
		{name: "OverdueAcrossYear", due: "2026-12-31", today: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), want: library.LoanOverdue},
		{name: "ReturnedWhileOverdue", loan: returned, due: "2026-11-01", today: today, want: library.LoanReturned},
		{name: "ReturnedBeforeDue", loan: returned, due: "2026-12-01", today: today, want: library.LoanReturned},
		// 2026-11-21 01:00 in Auckland: the 20th is over there.
		{name: "CallersLocation", due: "2026-11-20", today: time.Date(2026, 11, 21, 1, 0, 0, 0, time.FixedZone("NZDT", 13*3600)), want: library.LoanOverdue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.LoanStatus(tt.loan, tt.due, tt.today); got != tt.want {
				t.Errorf("LoanStatus(due %q, %v) = %q, want %q", tt.due, tt.today, got, tt.want)
			}
		})
	}
}

func TestValidateBookDraft(t *testing.T) {
	ok := library.BookDraft{Title: "Matilda", Author: "Roald Dahl", ISBN: "978-0-306-40615-7", CoverURL: "https://covers.example.org/m.jpg", Copies: 3}
	with := func(change func(*library.BookDraft)) library.BookDraft {
		d := ok
		change(&d)
		return d
	}
	tests := []struct {
		name       string
		draft      library.BookDraft
		wantFields []string
	}{
		{name: "OK", draft: ok},
		{name: "Minimal", draft: library.BookDraft{Title: "T", Author: "A"}},
		{name: "ISBN10", draft: with(func(d *library.BookDraft) { d.ISBN = "0-8044-2957-X" })},
		{name: "HTTPCover", draft: with(func(d *library.BookDraft) { d.CoverURL = "http://covers.example.org/m.jpg" })},
		{name: "UppercaseScheme", draft: with(func(d *library.BookDraft) { d.CoverURL = "HTTPS://covers.example.org/m.jpg" })},
		{name: "Title300Runes", draft: with(func(d *library.BookDraft) { d.Title = strings.Repeat("é", 300) })},
		{name: "Author200", draft: with(func(d *library.BookDraft) { d.Author = strings.Repeat("a", 200) })},
		{name: "Copies1000", draft: with(func(d *library.BookDraft) { d.Copies = 1000 })},
		{name: "Cover2048", draft: with(func(d *library.BookDraft) { d.CoverURL = "https://e.org/" + strings.Repeat("a", 2048-14) })},
		{name: "BlankTitle", draft: with(func(d *library.BookDraft) { d.Title = "   " }), wantFields: []string{"title"}},
		{name: "Title301", draft: with(func(d *library.BookDraft) { d.Title = strings.Repeat("a", 301) }), wantFields: []string{"title"}},
		{name: "EmptyAuthor", draft: with(func(d *library.BookDraft) { d.Author = "" }), wantFields: []string{"author"}},
		{name: "Author201", draft: with(func(d *library.BookDraft) { d.Author = strings.Repeat("a", 201) }), wantFields: []string{"author"}},
		{name: "BadISBN", draft: with(func(d *library.BookDraft) { d.ISBN = "978-0-306-40615-8" }), wantFields: []string{"isbn"}},
		{name: "JavascriptCover", draft: with(func(d *library.BookDraft) { d.CoverURL = "javascript:alert(1)" }), wantFields: []string{"cover_url"}},
		{name: "DataCover", draft: with(func(d *library.BookDraft) { d.CoverURL = "data:image/png;base64,AAAA" }), wantFields: []string{"cover_url"}},
		{name: "RelativeCover", draft: with(func(d *library.BookDraft) { d.CoverURL = "/covers/m.jpg" }), wantFields: []string{"cover_url"}},
		{name: "NoHostCover", draft: with(func(d *library.BookDraft) { d.CoverURL = "https:///m.jpg" }), wantFields: []string{"cover_url"}},
		{name: "SpaceInCover", draft: with(func(d *library.BookDraft) { d.CoverURL = "https://e.org/a b.jpg" }), wantFields: []string{"cover_url"}},
		{name: "Cover2049", draft: with(func(d *library.BookDraft) { d.CoverURL = "https://e.org/" + strings.Repeat("a", 2049-14) }), wantFields: []string{"cover_url"}},
		{name: "NegativeCopies", draft: with(func(d *library.BookDraft) { d.Copies = -1 }), wantFields: []string{"copies"}},
		{name: "Copies1001", draft: with(func(d *library.BookDraft) { d.Copies = 1001 }), wantFields: []string{"copies"}},
		{name: "AllBad", draft: library.BookDraft{ISBN: "123", CoverURL: "ftp://e.org/x", Copies: -2}, wantFields: []string{"title", "author", "isbn", "cover_url", "copies"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := library.ValidateBookDraft(tt.draft)
			if len(tt.wantFields) == 0 {
				if err != nil {
					t.Fatalf("ValidateBookDraft() = %v, want nil", err)
				}
				return
			}
			if fields := fieldsOf(t, err); !sameFieldSet(fields, tt.wantFields) {
				t.Errorf("ValidateBookDraft() fields = %v, want %v", fields, tt.wantFields)
			}
		})
	}
}

func TestBookDraftNormalized(t *testing.T) {
	got := library.BookDraft{Title: " Matilda ", Author: " Roald Dahl\n", ISBN: " 0-8044-2957-x ", CoverURL: " https://e.org/m.jpg ", Copies: 2,
		LoanCategory: " Short "}.Normalized()
	want := library.BookDraft{Title: "Matilda", Author: "Roald Dahl", ISBN: "080442957X", CoverURL: "https://e.org/m.jpg", Copies: 2,
		LoanCategory: library.CategoryShort}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalized() = %+v, want %+v", got, want)
	}
}

func TestValidateCopyCount(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		wantOK bool
	}{
		{name: "One", n: 1, wantOK: true},
		{name: "Max", n: 500, wantOK: true},
		{name: "Zero", n: 0, wantOK: false},
		{name: "Negative", n: -3, wantOK: false},
		{name: "OverMax", n: 501, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := library.ValidateCopyCount(tt.n)
			if gotOK := err == nil; gotOK != tt.wantOK {
				t.Fatalf("ValidateCopyCount(%d) = %v, want accepted=%v", tt.n, err, tt.wantOK)
			}
			if err != nil {
				if fields := fieldsOf(t, err); !sameFieldSet(fields, []string{"count"}) {
					t.Errorf("fields = %v, want only count", fields)
				}
			}
		})
	}
}

func TestValidProductCode(t *testing.T) {
	for in, want := range map[string]bool{
		"5051889004295":     true,  // EAN-13 of a DVD
		"012345678905":      true,  // UPC-A
		"9780306406157":     false, // an ISBN-13 is an EAN, but a book's
		"0306406152":        false,
		"5051889004298":     false, // wrong check digit
		"5-051889-004295":   true,
		"":                  false,
		"505188900429X":     false,
		"97803064061570000": false,
	} {
		if got := library.ValidProductCode(in); got != want {
			t.Errorf("ValidProductCode(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestISBNForms(t *testing.T) {
	for in, want := range map[string]string{
		"0-306-40615-2":     "0306406152 9780306406157",
		"9780306406157":     "9780306406157 0306406152",
		"080442957x":        "080442957X 9780804429573",
		"9780804429573":     "9780804429573 080442957X",
		"979-10-90636-07-1": "9791090636071", // 979 has no ISBN-10
		"0306406153":        "",              // invalid
		"5051889004295":     "",              // a product code
	} {
		if got := strings.Join(library.ISBNForms(in), " "); got != want {
			t.Errorf("ISBNForms(%q) = %q, want %q", in, got, want)
		}
		if got, first := library.ISBN13(in), strings.Fields(want); (len(first) == 0) != (got == "") ||
			(got != "" && (len(got) != 13 || !strings.Contains(want, got))) {
			t.Errorf("ISBN13(%q) = %q, want the 13-digit form of %q", in, got, want)
		}
	}
}
