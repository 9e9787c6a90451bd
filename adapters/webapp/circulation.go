package webapp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// The circulation desk: the school's page, where staff lend, take back and
// renew copies by scanning them, and where a student sees their own loans.

// ----- the desk -----

type loanRow struct {
	ID, BookID, Title, Author, Code, Student, StudentNumber, Due, Status string
	Homeroom, Grade                                                      string // the borrower's class
	Renewals                                                             int
}

func (l loanRow) Overdue() bool { return l.Status == library.LoanOverdue }

// Out reports whether the copy is still with the borrower.
func (l loanRow) Out() bool { return l.Status == library.LoanActive || l.Status == library.LoanOverdue }

// StatusIn names the loan's state in the page's language.
func (l loanRow) StatusIn(lang i18n.Lang) string {
	switch l.Status {
	case library.LoanOverdue:
		return lang.T("Overdue")
	case library.LoanReturned:
		return lang.T("Returned")
	case library.LoanLost:
		return lang.T("Lost")
	case library.LoanClaimsReturned:
		return lang.T("Claimed returned")
	}
	return lang.T("On loan")
}

// studentChoice asks which of several matching students borrows the copy.
type studentChoice struct {
	Query, Code, Title, Due string
	Students                []studentOption
	More                    bool
}

type studentOption struct {
	ID, Name, Number string
}

// maxChoices bounds the choice list; a longer list means "type more".
const maxChoices = 20

type deskView struct {
	base
	Base          string // the school's page, where the forms post
	Today         string
	DueDefault    string
	MaxRenewals   int
	Loans         []loanRow
	ActiveCount   int
	OverdueCount  int
	CanLend       bool
	CanSeeNotices bool // each loan links the reminders sent about it
	// OfflineConflicts counts the offline scans that wait for a librarian.
	OfflineConflicts int
	Pages            pager  // the loans' pages
	Currency         string // of the damage charge typed at Return
	LookupSchoolID   string // admins: the schoolId the student lookup sends
	Focus            string // checkout, return, renew or choice
	Checkout         struct{ Code, Student, Due string }
	Choice           *studentChoice
	Filter           loanFilterForm
	PutAside         *putAside // the copy just returned goes to a hold
	Receipt          *receiptLinks
	// Finished asks, after a return, whether the student read the book.
	Finished *finishedOffer
}

// receiptLinks print the receipt of the borrower a copy was just lent to.
type receiptLinks struct {
	Name, A4, Roll string
}

// putAside is the banner the desk shows when a returned copy must be set
// aside for the student whose hold it fills.
type putAside struct {
	Name, Number, Homeroom, Title, Code, Until string
}

// loanFilterForm narrows the desk's loans list to one homeroom's, or to
// the overdue ones, and links the overdue slips that list stands for.
type loanFilterForm struct {
	Homeroom    string
	OverdueOnly bool
	Active      bool   // a filter is on
	SlipsURL    string // GET /api/library/loans/overdue-slips, with the homeroom
	LettersURL  string // the homeroom's take-home letters; empty without a homeroom
	CanPrint    bool
}

// deskFilter reads the loans list's filter from the desk's URL.
func (a *App) deskFilter(r *http.Request, school library.School) (loanFilterForm, circulation.LoanFilter, url.Values) {
	q := r.URL.Query()
	f := loanFilterForm{Homeroom: library.NormalizeClassField(q.Get("homeroom")), OverdueOnly: q.Get("status") == library.LoanOverdue}
	keep := url.Values{}
	lf := circulation.LoanFilter{Homeroom: f.Homeroom}
	if f.Homeroom != "" {
		keep.Set("homeroom", f.Homeroom)
	}
	if f.OverdueOnly {
		lf.Status = library.LoanOverdue
		keep.Set("status", library.LoanOverdue)
	}
	f.Active = len(keep) > 0
	slips := url.Values{}
	if f.Homeroom != "" {
		slips.Set("homeroom", f.Homeroom)
	}
	if user.PrincipalFrom(r.Context()).Role == user.RoleAdmin {
		slips.Set("schoolId", school.ID)
	}
	f.SlipsURL = "/api/library/loans/overdue-slips"
	if len(slips) > 0 {
		f.SlipsURL += "?" + slips.Encode()
	}
	// Letters go home a class at a time.
	if f.Homeroom != "" {
		f.LettersURL = "/api/library/loans/overdue-letters?" + slips.Encode()
	}
	f.CanPrint = a.allowed(r, "print", "library:loans")
	return f, lf, keep
}

// desk is the school's page: the desk for staff, the own loans for a
// student. A teacher lands here after signing in, like everyone of the
// school, and has no desk: their page is their classes.
func (a *App) desk(w http.ResponseWriter, r *http.Request, school library.School) {
	switch user.PrincipalFrom(r.Context()).Role {
	case user.RoleStudent:
		a.studentLoans(w, r, school)
		return
	case user.RoleTeacher:
		http.Redirect(w, r, schoolPath(school)+"/classes", http.StatusSeeOther)
		return
	}
	a.renderDesk(w, r, school, a.takeFlash(w, r), nil)
}

func (a *App) renderDesk(w http.ResponseWriter, r *http.Request, school library.School, fl *flash, choice *studentChoice) {
	ctx := r.Context()
	filter, lf, keep := a.deskFilter(r, school)
	res, err := a.deps.Library.Circulation.LoansPage(ctx, school.ID, lf, usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	// Names and classes of the borrowers on the desk: only the students
	// this page of loans names, whatever the school's size.
	names := map[string]user.Account{}
	if a.allowed(r, "read", "library:students") {
		names = res.Borrowers
	}
	// The school's own date, and its default due date moved by its calendar:
	// the date the desk prefills is one the check-out accepts.
	today := school.Today(a.Now())
	v := deskView{
		base: a.schoolBase(r, school, "Desk", "desk"), Base: schoolPath(school),
		Today: today.Format("2006-01-02"), DueDefault: school.DefaultDue(today),
		MaxRenewals: school.Settings.MaxRenewals, CanLend: a.allowed(r, "create", "library:loans"),
		CanSeeNotices: a.allowed(r, "read", "library:notices"),
		Currency:      school.Settings.CurrencyCode(),
		Focus:         "checkout", Choice: choice,
		// Overdue first, then by due date: what the desk must chase on top.
		ActiveCount: res.Total - res.Overdue, OverdueCount: res.Overdue,
		Pages:  newFilteredPager("loans", tr(r, "Pages of loans"), schoolPath(school), keep, res.Page, res.Limit, res.Total),
		Filter: filter,
	}
	v.Flash = fl
	if user.PrincipalFrom(ctx).Role == user.RoleAdmin {
		v.LookupSchoolID = school.ID
	}
	if v.CanLend && a.allowed(r, "read", "library:offline") {
		if _, _, n, err := a.deps.Library.SelfCheck.OfflineConflicts(ctx, school.ID, usecase.ListQuery{Page: 1, Limit: 1}); err == nil {
			v.OfflineConflicts = n
		}
	}
	for _, l := range res.Loans {
		row := toLoanRow(l)
		if s, ok := names[l.Loan.StudentID]; ok {
			row.Student, row.StudentNumber, row.Homeroom, row.Grade = s.Name, s.StudentNumber, s.Homeroom, s.Grade
		} else if l.Loan.StudentDeleted() {
			row.Student = tr(r, "Deleted student")
		} else {
			row.Student = tr(r, "Student")
		}
		v.Loans = append(v.Loans, row)
	}
	if fl != nil {
		if fl.Focus != "" {
			v.Focus = fl.Focus
		}
		v.Checkout.Code, v.Checkout.Student, v.Checkout.Due = fl.Values["code"], fl.Values["student"], fl.Values["due_at"]
		if id := fl.Values["receipt_id"]; id != "" && v.Filter.CanPrint {
			base := "/api/library/students/" + url.PathEscape(id) + "/receipt"
			if user.PrincipalFrom(r.Context()).Role == user.RoleAdmin {
				base += "?schoolId=" + url.QueryEscape(school.ID) + "&"
			} else {
				base += "?"
			}
			v.Receipt = &receiptLinks{Name: fl.Values["receipt_name"], A4: base + "paper=a4", Roll: base + "paper=80mm"}
		}
		if id := fl.Values["finished_loan"]; id != "" && v.CanLend {
			v.Finished = &finishedOffer{LoanID: id, Title: fl.Values["finished_title"]}
		}
		if name, ok := fl.Values["aside_name"]; ok {
			v.PutAside = &putAside{Name: name, Number: fl.Values["aside_number"], Homeroom: fl.Values["aside_homeroom"], Title: fl.Values["aside_title"],
				Code: fl.Values["aside_code"], Until: fl.Values["aside_until"]}
		}
	}
	if v.Checkout.Due == "" {
		v.Checkout.Due = v.DueDefault
	}
	if choice != nil {
		v.Focus = "choice"
	}
	if !v.CanLend {
		v.Focus = ""
	}
	a.render(w, r, http.StatusOK, "desk", v)
}

func toLoanRow(l circulation.LoanView) loanRow {
	return loanRow{ID: l.Loan.ID, BookID: l.Loan.BookID, Title: l.Loan.BookTitle, Author: l.Loan.BookAuthor, Code: l.Loan.CopyCode,
		Due: l.DueAt, Status: l.Status, Renewals: l.Renewals}
}

type studentView struct {
	base
	Base  string
	Loans []loanRow
	// CanRenew shows a Renew button on each loan still out.
	CanRenew bool
	Active   int
	// HasHistory links the history page.
	HasHistory bool
	// CanReview links each loan to the student's review of its title.
	CanReview bool
	// Wants is the student's want-to-read list; CanWant shows it.
	Wants   []wantRow
	CanWant bool
	Holds   []holdRow
	Charges []chargeRow
	// ListHolds is the student's choice that titles added to the list
	// place holds; CanChooseListHolds shows its form.
	ListHolds, CanChooseListHolds bool
}

// studentLoans shows a student the books they have out, and nobody
// else's: the same use case as GET /api/library/student/loans.
func (a *App) studentLoans(w http.ResponseWriter, r *http.Request, school library.School) {
	loans, err := a.deps.Library.Circulation.StudentLoans(r.Context())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := studentView{base: a.schoolBase(r, school, "My loans", "desk"), Base: schoolPath(school), Charges: a.ownCharges(r),
		CanRenew: a.allowed(r, "renew", "library:ownloans")}
	v.Flash = a.takeFlash(w, r)
	if a.allowed(r, "read", "library:ownholds") {
		holds, err := a.deps.Library.Holds.StudentHolds(r.Context())
		if err != nil {
			a.fail(w, r, err)
			return
		}
		for _, h := range holds {
			v.Holds = append(v.Holds, toHoldRow(h))
		}
	}
	// The books out; the returned ones are the history page's, a page at a
	// time.
	for _, l := range loans {
		if row := toLoanRow(l); row.Out() {
			v.Loans = append(v.Loans, row)
		}
	}
	v.Active = len(v.Loans)
	v.HasHistory = a.allowed(r, "read", "library:ownhistory")
	v.CanReview = a.allowed(r, "write", "library:ownreviews")
	held := map[string]bool{}
	for _, h := range v.Holds {
		if h.Open() {
			held[h.BookID] = true
		}
	}
	if v.Wants, v.CanWant, err = a.ownWants(r, held); err != nil {
		a.fail(w, r, err)
		return
	}
	if v.CanChooseListHolds = v.CanWant && a.allowed(r, "update", "library:ownholds"); v.CanChooseListHolds {
		if v.ListHolds, err = a.deps.Library.Holds.ReadingListHolds(r.Context()); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	a.render(w, r, http.StatusOK, "student", v)
}

// renewOwnLoan renews a loan of the signed-in student: the same use case
// as POST /api/library/student/loans/{id}/renew.
func (a *App) renewOwnLoan(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school)
	v, err := a.deps.Library.Circulation.RenewOwnLoan(r.Context(), strings.TrimSpace(r.PostForm.Get("loan_id")))
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, tr(r, "Renewed %s: it is now due %s.", quote(v.Loan.BookTitle), shortDate(r, v.DueAt)))
}

// ----- check-out, return, renew -----

// checkout lends the copy with the scanned code to the student typed as a
// number or a name. Several students matching a name get a choice first.
func (a *App) checkout(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	ctx := r.Context()
	code := strings.TrimSpace(form.Get("code"))
	query := strings.TrimSpace(form.Get("student"))
	chosen := strings.TrimSpace(form.Get("student_id"))
	due := strings.TrimSpace(form.Get("due_at"))
	back := schoolPath(school)
	fail := func(msg string) {
		a.redirect(w, r, back, flash{Kind: "error", Message: msg, Focus: "checkout",
			Values: map[string]string{"code": code, "student": query, "due_at": due}})
	}
	if code == "" {
		fail(tr(r, "Scan or type the copy code."))
		return
	}
	if query == "" {
		fail(tr(r, "Type the student's number or name."))
		return
	}
	found, err := a.deps.Library.Holdings.CopyByCode(ctx, school.ID, code)
	if errs.Is(err, errs.NotFound) {
		fail(tr(r, "No copy of this library has the code %s.", code))
		return
	} else if err != nil {
		fail(a.messageOf(r, err))
		return
	}
	if found.Loan != nil {
		fail(tr(r, "%s (%s) is already on loan, due %s. Return it first.", quote(found.Book.Title), found.Copy.Code, shortDate(r, found.Loan.DueAt)))
		return
	}
	// One page of matches is plenty: a longer list asks the librarian to
	// type more, and an exact number or email is on it.
	res, err := a.deps.Library.Students.Search(ctx, school.ID, "", usecase.ListQuery{Page: 1, Limit: usecase.MaxListLimit, Search: query})
	if err != nil {
		fail(a.messageOf(r, err))
		return
	}
	matches := res.Students
	var student *user.Account
	if chosen != "" {
		for i := range matches {
			if matches[i].ID == chosen {
				student = &matches[i]
			}
		}
		if student == nil {
			fail(tr(r, "Choose the student again."))
			return
		}
	} else {
		student = pickStudent(matches, query)
	}
	// Staff borrow too, found by their email (they have no student number).
	if student == nil && len(matches) == 0 && strings.Contains(query, "@") {
		if staff, err := a.deps.Library.Circulation.StaffBorrower(ctx, school.ID, query); err == nil {
			student = &staff
		}
	}
	if student == nil {
		if len(matches) == 0 {
			fail(tr(r, "No student or member of staff matches %s.", quote(query)))
			return
		}
		c := &studentChoice{Query: query, Code: found.Copy.Code, Title: found.Book.Title, Due: due}
		for i, m := range matches {
			if i == maxChoices {
				c.More = true
				break
			}
			c.Students = append(c.Students, studentOption{ID: m.ID, Name: m.Name, Number: m.StudentNumber})
		}
		a.renderDesk(w, r, school, nil, c)
		return
	}
	// The desk prefills the settings' due date; left as it is, it asks for
	// the default, which the loan rule for this student and book decides.
	asked := due
	if asked == school.DefaultDue(school.Today(a.Now())) {
		asked = ""
	}
	loan, err := a.deps.Library.Circulation.CreateLoan(ctx, circulation.LoanInput{
		SchoolID: school.ID, BookID: found.Book.ID, CopyID: found.Copy.ID, StudentID: student.ID, DueAt: asked,
	})
	if err != nil {
		fail(a.messageOf(r, err))
		return
	}
	done := flash{Kind: "success", Focus: "checkout",
		Message: tr(r, "Checked out %s (%s) to %s, due %s.", quote(found.Book.Title), found.Copy.Code, student.Name, shortDate(r, loan.DueAt)),
		Values:  map[string]string{"receipt_id": student.ID, "receipt_name": student.Name}}
	// A loan made with a warning (a book outside the student's reading
	// range) says so where the librarian looks: the loan stands.
	for _, w := range loan.Warnings {
		done.Kind = "warning"
		done.Message += " " + tr(r, "Note: %s", w.Message)
	}
	a.redirect(w, r, back, done)
}

// pickStudent returns the one student the librarian meant: the student
// whose number or email is exactly what was typed, else the only match.
func pickStudent(matches []user.Account, query string) *user.Account {
	var exact []int
	for i, m := range matches {
		if (m.StudentNumber != "" && strings.EqualFold(m.StudentNumber, query)) || (m.Email != "" && strings.EqualFold(m.Email, query)) {
			exact = append(exact, i)
		}
	}
	switch {
	case len(exact) == 1:
		return &matches[exact[0]]
	case len(exact) == 0 && len(matches) == 1:
		return &matches[0]
	}
	return nil
}

// returnCopy ends the loan of the scanned copy. Scanning a copy that is
// not on loan (a double scan) changes nothing and says so.
func (a *App) returnCopy(w http.ResponseWriter, r *http.Request, school library.School) {
	scan, ok := a.scanAtDesk(w, r, school, "return")
	if !ok {
		return
	}
	found, back, fail := scan.found, scan.back, scan.fail
	if found.Loan == nil && a.checkInFound(w, r, scan) {
		return
	}
	if found.Loan == nil {
		a.redirect(w, r, back, flash{Kind: "info", Focus: "return",
			Message: tr(r, "%s (%s) is not on loan; nothing to return.", quote(found.Book.Title), found.Copy.Code)})
		return
	}
	if scan.form.Get("damaged") == "true" {
		a.returnDamaged(w, r, scan, scan.form.Get("damage_note"), scan.form.Get("damage_charge"))
		return
	}
	v, err := a.deps.Library.Circulation.ReturnLoan(r.Context(), found.Loan.Loan.ID)
	if err != nil {
		fail(a.messageOf(r, err))
		return
	}
	if pa := v.PutAside; pa != nil {
		a.redirect(w, r, back, flash{Kind: "info", Focus: "return",
			Message: tr(r, "Returned %s (%s). Put it aside for %s: they hold this book.", quote(found.Book.Title), found.Copy.Code, pa.StudentName),
			Values: a.offerFinished(r, v.Loan, map[string]string{"aside_name": pa.StudentName, "aside_number": pa.StudentNumber, "aside_homeroom": pa.Homeroom,
				"aside_title": found.Book.Title, "aside_code": found.Copy.Code, "aside_until": pa.ExpiresAt.UTC().Format("2006-01-02")})})
		return
	}
	a.redirect(w, r, back, flash{Kind: "success", Focus: "return",
		Message: tr(r, "Returned %s (%s). The copy is available again.", quote(found.Book.Title), found.Copy.Code),
		Values:  a.offerFinished(r, v.Loan, nil)})
}

// renew extends the loan of the scanned copy once. The renewal count seen
// in the lookup goes with the request, so a second scan of the same copy
// before the page reloads does not renew twice.
func (a *App) renew(w http.ResponseWriter, r *http.Request, school library.School) {
	scan, ok := a.scanAtDesk(w, r, school, "renew")
	if !ok {
		return
	}
	found, back, fail := scan.found, scan.back, scan.fail
	if found.Loan == nil {
		fail(tr(r, "%s (%s) is not on loan, so it cannot be renewed.", quote(found.Book.Title), found.Copy.Code))
		return
	}
	seen := found.Loan.Renewals
	v, err := a.deps.Library.Circulation.RenewLoan(r.Context(), found.Loan.Loan.ID, &seen)
	if err != nil {
		if errs.CodeOf(err) == errs.CodeRenewalLimitReached {
			msg := tr(r, "%s (%s) has been renewed %d times already, the most this library allows.", quote(found.Book.Title), found.Copy.Code, seen)
			if seen == 1 {
				msg = tr(r, "%s (%s) has been renewed 1 time already, the most this library allows.", quote(found.Book.Title), found.Copy.Code)
			}
			fail(msg)
			return
		}
		fail(a.messageOf(r, err))
		return
	}
	a.redirect(w, r, back, flash{Kind: "success", Focus: "renew",
		Message: tr(r, "Renewed %s (%s): now due %s (renewal %d of %d).", quote(found.Book.Title), found.Copy.Code, shortDate(r, v.DueAt), v.Renewals, school.Settings.MaxRenewals)})
}

// scanned looks up a scanned code; on failure it has called fail.
// deskScan is a return or renewal form's scanned copy, looked up in the
// school, with where to go back and how to report a refusal there.
type deskScan struct {
	school library.School
	found  collection.CopyLookup
	form   url.Values
	back   string
	fail   func(msg string)
}

// scanAtDesk does what the return and renew forms share: the form, and
// the copy its code names in the school. When it
// reports false, the answer has been written.
func (a *App) scanAtDesk(w http.ResponseWriter, r *http.Request, school library.School, focus string) (deskScan, bool) {
	form := r.PostForm
	scan := deskScan{school: school, form: form, back: schoolPath(school)}
	scan.fail = func(msg string) {
		a.redirect(w, r, scan.back, flash{Kind: "error", Message: msg, Focus: focus})
	}
	found, ok := a.scanned(r, school, strings.TrimSpace(form.Get("code")), scan.fail)
	scan.found = found
	return scan, ok
}

func (a *App) scanned(r *http.Request, school library.School, code string, fail func(string)) (collection.CopyLookup, bool) {
	if code == "" {
		fail(tr(r, "Scan or type the copy code."))
		return collection.CopyLookup{}, false
	}
	found, err := a.deps.Library.Holdings.CopyByCode(r.Context(), school.ID, code)
	if errs.Is(err, errs.NotFound) {
		fail(tr(r, "No copy of this library has the code %s.", code))
		return collection.CopyLookup{}, false
	} else if err != nil {
		fail(a.messageOf(r, err))
		return collection.CopyLookup{}, false
	}
	return found, true
}

func pluralize(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
