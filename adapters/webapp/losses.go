package webapp

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// Lost, claimed and damaged copies at the desk, and the school's charges.

// endLoan ends a loan from the desk's table as lost or claims returned:
// the same use case as PATCH /api/library/loans with those actions.
func (a *App) endLoan(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school)
	outcome := form.Get("outcome")
	v, err := a.deps.Library.Circulation.EndLoan(r.Context(), school.ID, form.Get("loan_id"), outcome)
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "%s (%s) is marked lost.", quote(v.Loan.BookTitle), v.Loan.CopyCode)
	if outcome == library.OutcomeClaimsReturned {
		msg = tr(r, "%s (%s): the student says it was returned. The loan is closed and the copy marked as claimed returned.", quote(v.Loan.BookTitle), v.Loan.CopyCode)
	}
	a.succeeded(w, r, back, msg)
}

// checkInFound puts a lost or claimed copy scanned at the Return form back
// on the shelf, reversing its open charge, and points a damaged one to the
// Repaired form. It reports false for a copy on the shelf (the caller says
// there is nothing to return).
func (a *App) checkInFound(w http.ResponseWriter, r *http.Request, scan deskScan) bool {
	c := scan.found.Copy.Condition.Condition
	if c == library.ConditionDamaged {
		a.redirect(w, r, scan.back, flash{Kind: "info", Focus: "repaired",
			Message: tr(r, "%s (%s) is marked damaged and not on loan. Once it is mended, scan it at Repaired.", quote(scan.found.Book.Title), scan.found.Copy.Code)})
		return true
	}
	if c != library.ConditionLost && c != library.ConditionClaimsReturned {
		return false
	}
	_, reversed, err := a.deps.Library.Circulation.CheckIn(r.Context(), scan.school.ID, scan.found.Copy.ID)
	if err != nil {
		scan.fail(a.messageOf(r, err))
		return true
	}
	msg := tr(r, "%s (%s) was marked lost and is back on the shelf.", quote(scan.found.Book.Title), scan.found.Copy.Code)
	if c == library.ConditionClaimsReturned {
		msg = tr(r, "%s (%s) was marked claimed returned and is back on the shelf.", quote(scan.found.Book.Title), scan.found.Copy.Code)
	}
	if reversed != nil {
		msg += " " + tr(r, "Its charge of %s is reversed.", money(r, reversed.Charge.AmountCents, reversed.Charge.Currency))
	}
	a.redirect(w, r, scan.back, flash{Kind: "success", Focus: "return", Message: msg})
	return true
}

// returnDamaged returns the scanned copy's loan with the Return form's
// damage note and charge.
func (a *App) returnDamaged(w http.ResponseWriter, r *http.Request, scan deskScan, note, charge string) {
	cents, ok := parseMoney(charge)
	if !ok {
		scan.fail(tr(r, "Charge must be an amount such as 4.50, or empty for no charge."))
		return
	}
	if _, err := a.deps.Library.Circulation.ReturnDamaged(r.Context(), scan.found.Loan.Loan.ID, circulation.DamageInput{Note: note, ChargeCents: cents}); err != nil {
		scan.fail(a.messageOf(r, err))
		return
	}
	msg := tr(r, "Returned %s (%s) as damaged. The copy stays off the shelf until it is marked repaired.", quote(scan.found.Book.Title), scan.found.Copy.Code)
	if cents > 0 {
		msg += " " + tr(r, "The student is charged %s.", money(r, cents, scan.school.Settings.CurrencyCode()))
	}
	a.redirect(w, r, scan.back, flash{Kind: "success", Focus: "return", Message: msg})
}

// repaired puts the scanned damaged copy back on the shelf.
func (a *App) repaired(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school)
	fail := func(msg string) { a.redirect(w, r, back, flash{Kind: "error", Message: msg, Focus: "repaired"}) }
	found, ok := a.scanned(r, school, strings.TrimSpace(form.Get("code")), fail)
	if !ok {
		return
	}
	if _, err := a.deps.Library.Circulation.Repair(r.Context(), school.ID, found.Copy.ID); err != nil {
		if errs.CodeOf(err) == errs.CodeCopyNotOut {
			fail(tr(r, "%s (%s) is not marked damaged.", quote(found.Book.Title), found.Copy.Code))
			return
		}
		fail(a.messageOf(r, err))
		return
	}
	a.redirect(w, r, back, flash{Kind: "success", Focus: "repaired",
		Message: tr(r, "%s (%s) is repaired and back on the shelf.", quote(found.Book.Title), found.Copy.Code)})
}

// parseMoney reads an amount typed at the desk ("4", "4.5", "4.50") as
// minor units; empty is 0.
func parseMoney(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, true
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 2 || strings.HasPrefix(whole, "-") || strings.HasPrefix(whole, "+") {
		return 0, false
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > library.MaxChargeCents/100 {
		return 0, false
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return w*100 + f, true
}

// money writes an amount in hundredths as the request's language writes
// it: "EUR 12.50" in English, "12,50 €" in Spanish (i18n's Money).
func money(r *http.Request, cents int64, currency string) string {
	return i18n.From(r.Context()).Money(cents, currency)
}

// ----- the charges page -----

type chargeRow struct {
	ID, Student, StudentID, Title, Kind, Amount, Note, Created, Status string
}

func (c chargeRow) Open() bool { return c.Status == library.ChargeOpen }

// StatusIn names the charge's state in the page's language.
func (c chargeRow) StatusIn(lang i18n.Lang) string { return chargeStatus(lang, c.Status) }

// chargeStatus names a charge's state (open, paid, waived, reversed) in
// lang; another state is shown as it is.
func chargeStatus(lang i18n.Lang, status string) string {
	switch status {
	case library.ChargeOpen:
		return lang.T("open")
	case library.ChargePaid:
		return lang.T("paid")
	case library.ChargeWaived:
		return lang.T("waived")
	case library.ChargeReversed:
		return lang.T("reversed")
	}
	return status
}

type chargesView struct {
	base
	Base      string
	Charges   []chargeRow
	StudentID string
	Status    string
	CanSettle bool
	Pages     pager
}

// chargesPage lists the school's charges (a student's with ?student_id=),
// open ones first by default, with Paid and Waived buttons for librarians.
func (a *App) chargesPage(w http.ResponseWriter, r *http.Request, school library.School) {
	q := r.URL.Query()
	v := chargesView{Base: schoolPath(school), StudentID: q.Get("student_id"), Status: q.Get("status")}
	ctx := r.Context()
	res, err := a.deps.Library.Circulation.ChargesPage(ctx, school.ID, circulation.ChargeFilter{StudentID: v.StudentID, Status: v.Status},
		usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	ids := make([]string, 0, len(res.Charges))
	for _, c := range res.Charges {
		ids = append(ids, c.Charge.StudentID)
	}
	names := map[string]string{}
	if a.allowed(r, "read", "library:students") {
		students, err := a.deps.Library.Students.ByIDs(ctx, school.ID, ids)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		for _, s := range students {
			names[s.ID] = s.Name
		}
	}
	filter := url.Values{}
	for k, val := range map[string]string{"student_id": v.StudentID, "status": v.Status} {
		if val != "" {
			filter.Set(k, val)
		}
	}
	fl := a.takeFlash(w, r)
	v.base = a.schoolBase(r, school, "Charges", "charges")
	v.Flash = fl
	v.CanSettle = a.allowed(r, "update", "library:charges")
	v.Pages = newPager("charges", tr(r, "Pages of charges"), schoolPath(school)+"/charges", "", res.Page, res.Limit, res.Total)
	for _, c := range res.Charges {
		name := names[c.Charge.StudentID]
		if name == "" {
			name = tr(r, "Student")
		}
		v.Charges = append(v.Charges, toChargeRow(r, c, name))
	}
	a.render(w, r, http.StatusOK, "charges", v)
}

func toChargeRow(r *http.Request, c circulation.ChargeView, student string) chargeRow {
	kind := tr(r, "Replacement")
	if c.Charge.Kind == library.ChargeDamage {
		kind = tr(r, "Damage")
	}
	return chargeRow{ID: c.Charge.ID, Student: student, StudentID: c.Charge.StudentID, Title: c.Charge.BookTitle, Kind: kind,
		Amount: money(r, c.Charge.AmountCents, c.Charge.Currency), Note: c.Charge.Note,
		Created: c.Charge.CreatedAt.UTC().Format("2006-01-02"), Status: c.Status}
}

// settleCharge records a charge as paid or waived: the same use case as
// PATCH /api/library/charges/{id}.
func (a *App) settleCharge(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/charges"
	if sid := form.Get("student_id"); sid != "" {
		back += "?student_id=" + url.QueryEscape(sid)
	}
	v, err := a.deps.Library.Circulation.SettleCharge(r.Context(), school.ID, form.Get("charge_id"), form.Get("action"), form.Get("note"))
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, tr(r, "The charge of %s for %s is %s.", money(r, v.Charge.AmountCents, v.Charge.Currency), quote(v.Charge.BookTitle),
		chargeStatus(i18n.From(r.Context()), v.Status)))
}

// ownCharges are a student's own charges for their page.
func (a *App) ownCharges(r *http.Request) []chargeRow {
	if !a.allowed(r, "read", "library:owncharges") {
		return nil
	}
	cs, err := a.deps.Library.Circulation.StudentCharges(r.Context())
	if err != nil {
		return nil
	}
	name := user.PrincipalFrom(r.Context()).AccountID
	rows := make([]chargeRow, 0, len(cs))
	for _, c := range cs {
		rows = append(rows, toChargeRow(r, c, name))
	}
	return rows
}

// ----- the charge settings on the settings page -----

// chargeSettingsValues fills a settings form's charge fields; amounts are
// shown in the currency's major unit ("15.00").
func chargeSettingsValues(c library.ChargeSettings, v map[string]string) {
	v["currency"] = c.CurrencyCode()
	v["replacement_cost_cents"] = moneyValue(c.ReplacementCostCents)
	v["block_overdue_items"] = strconv.Itoa(c.BlockOverdueItems)
	v["block_charges_cents"] = moneyValue(c.BlockChargesCents)
}

func moneyValue(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// moneyField reads an amount such as 15.00 in minor units; blank is nil
// (the school keeps its value).
func moneyField(form url.Values, field string, fields errs.FieldErrors) *int64 {
	if strings.TrimSpace(form.Get(field)) == "" {
		return nil
	}
	cents, ok := parseMoney(form.Get(field))
	if !ok {
		fields.Add(field, "must be an amount such as 15.00")
	}
	return &cents
}

// setBookPrice sets a book's replacement price from the books page: the
// same use case as PATCH /api/library/books/{id}.
func (a *App) setBookPrice(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/books"
	cents, ok := parseMoney(form.Get("price_cents"))
	if !ok {
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Replacement price must be an amount such as 12.99, or empty for none.")})
		return
	}
	b, err := a.deps.Library.Holdings.SetBookPrice(r.Context(), school.ID, form.Get("book_id"), cents)
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "%s now costs %s to replace.", quote(b.Title), money(r, cents, school.Settings.CurrencyCode()))
	if cents == 0 {
		msg = tr(r, "%s has no price of its own: a lost copy costs the school's default.", quote(b.Title))
	}
	a.succeeded(w, r, back, msg)
}
