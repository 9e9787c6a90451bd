package webapp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/user"
)

// An amount of money is written as the page's language writes one (CLDR):
// "USD 12.50" in English as before, "12,50 US$" in Spanish (a no-break
// space before the symbol), and in Arabic with Arabic digits and decimal
// separator after a right-to-left mark. The charges page and the
// student's own page show it alike.
func TestAmountsOnThePagesFollowTheLanguage(t *testing.T) {
	f := newFixture(t)
	const school = "/library/maple.example.org"
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	b, copies, err := f.lib.Holdings.AddBook(ctx, "", library.BookDraft{Title: "Torn Pages", Author: "D. Amage", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	loan, err := f.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: f.student.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.lib.Circulation.ReturnDamaged(ctx, loan.Loan.ID, circulation.DamageInput{Note: "water", ChargeCents: 1250}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ lang, want string }{
		{"", "USD 12.50"},
		{"es", "12,50\u00a0US$"},
		{"ar", "\u200f١٢٫٥٠\u00a0US$"},
	} {
		rec := f.inLang(&f.librarian, "GET", school+"/charges", tt.lang, nil)
		if rec.Code != 200 {
			t.Fatalf("%q: GET charges: %d", tt.lang, rec.Code)
		}
		if !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("%q: the charges page does not write %q", tt.lang, tt.want)
		}
		cells := byTestID(parse(t, rec.Body.String()), "charge-amount")
		if want := strings.Join(strings.Fields(tt.want), " "); len(cells) != 1 || textOf(cells[0]) != want {
			t.Errorf("%q: the charge's amount cells are %d, want one reading %q", tt.lang, len(cells), want)
		}
		mine := f.inLang(&f.student, "GET", school, tt.lang, nil)
		if mine.Code != 200 || !strings.Contains(mine.Body.String(), tt.want) {
			t.Errorf("%q: the student's own page (%d) does not write their charge as %q", tt.lang, mine.Code, tt.want)
		}
	}
}

// The months of the loans-per-month report are named as the language
// names a month, in the chart and in its table, where a <time> keeps
// YYYY-MM; English keeps 2026-12.
func TestMonthsOfTheLoansReportFollowTheLanguage(t *testing.T) {
	f := newFixture(t)
	f.heldBook(t, "Counted Loans", f.student)
	now := time.Now()
	iso := now.Format("2006-01")
	spanish := [12]string{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"}
	arabic := [12]string{"يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر"}
	arabicDigits := strings.NewReplacer("0", "٠", "1", "١", "2", "٢", "3", "٣", "4", "٤", "5", "٥", "6", "٦", "7", "٧", "8", "٨", "9", "٩")
	year := now.Format("2006")
	for _, tt := range []struct{ lang, want string }{
		{"", iso},
		{"es", spanish[now.Month()-1] + " " + year},
		{"ar", arabic[now.Month()-1] + " " + arabicDigits.Replace(year)},
	} {
		doc := f.pageIn(t, &f.librarian, "/library/maple.example.org/reports", tt.lang)
		table := byID(doc, "chart-loans-per-month-table")
		var found bool
		for _, tm := range all(table, "time") {
			if attr(tm, "datetime") != iso {
				continue
			}
			found = true
			if got := textOf(tm); got != tt.want {
				t.Errorf("%q: this month's row reads %q, want %q", tt.lang, got, tt.want)
			}
		}
		if !found {
			t.Fatalf("%q: no row of the table is <time datetime=%q>: %s", tt.lang, iso, render(table))
		}
		var labelled bool
		for _, text := range all(byID(doc, "chart-loans-per-month"), "text") {
			labelled = labelled || textOf(text) == tt.want
		}
		if !labelled {
			t.Errorf("%q: no bar of the chart is labelled %q", tt.lang, tt.want)
		}
	}
}
