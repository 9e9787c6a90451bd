package webapp

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// formState is a form shown again after the service refused it: what was
// typed, the message and the per-field problems.
type formState struct {
	Values map[string]string
	Error  string
	Fields map[string]string
}

// V returns a typed value; templates call it for value attributes.
func (f *formState) V(key string) string {
	if f == nil {
		return ""
	}
	return f.Values[key]
}

// F returns the problem of one field, if any.
func (f *formState) F(key string) string {
	if f == nil {
		return ""
	}
	return f.Fields[key]
}

func (a *App) refused(r *http.Request, err error, values url.Values, keys ...string) *formState {
	s := &formState{Values: map[string]string{}, Fields: fieldErrors(r, err), Error: a.messageOf(r, err)}
	for _, k := range keys {
		s.Values[k] = values.Get(k)
	}
	return s
}

// statusFor is the status of a page shown again with a refused form.
func (a *App) statusFor(err error) int {
	if s, ok := httpedge.StatusOf(errs.KindOf(err)); ok {
		return s
	}
	return http.StatusInternalServerError
}

// atoi reads a whole number typed in a form; a blank or non-number is an
// Invalid error for field.
func atoi(values url.Values, field string, blank int) (int, error) {
	v := strings.TrimSpace(values.Get(field))
	if v == "" {
		return blank, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errs.InvalidField(field, "must be a whole number")
	}
	return n, nil
}

// ----- books -----

type bookRow struct {
	ID, Title, Author, ISBN string
	Total, Available        int
	Price                   string // the replacement price as typed ("12.99"); "" without one
	Category                string // standard, short or reference
	Details                 detailsRow
	// Cover is where the title's cover is served, "" without one.
	Cover string
	// InApp is the reading app's book of the same work ("" for none), and
	// InAppWhy why.
	InApp, InAppWhy string
}

// labelPage is one PDF of a book's labels: the copies it prints, First to
// Last in code order.
type labelPage struct {
	Page, First, Last int
}

// LabelPages are the label PDFs of the book: one per
// service.DefaultLabelsPerPage copies, as the labels route pages them.
func (b bookRow) LabelPages() []labelPage {
	per := collection.DefaultLabelsPerPage
	var out []labelPage
	for first := 1; first <= b.Total; first += per {
		out = append(out, labelPage{Page: len(out) + 1, First: first, Last: min(first+per-1, b.Total)})
	}
	return out
}

type booksView struct {
	base
	Base         string
	Search       string
	Books        []bookRow
	Pages        pager
	CanAddBook   bool
	CanAddCopies bool
	CanSeeHolds  bool
	CanPrice     bool   // may set a book's replacement price
	Currency     string // of the prices
	// CanChangeCategory shows each book's loan category as a form.
	CanChangeCategory bool
	// CanSeeAppLinks shows each book's link to the reading app.
	CanSeeAppLinks bool
	Categories     []string
	Form           *formState // the add-book form after a refusal, or prefilled by a lookup
	// CanLookUp shows the ISBN lookup; Lookup is its outcome.
	CanLookUp bool
	Lookup    *isbnLookup
}

func (a *App) books(w http.ResponseWriter, r *http.Request, school library.School) {
	// A lookup's outcome, found or not, is shown on a page that is itself
	// fine (200): the librarian reads the message and types the book in.
	lookup, form := a.lookUpISBN(r, school)
	a.renderBooksWith(w, r, school, http.StatusOK, form, lookup)
}

func (a *App) renderBooks(w http.ResponseWriter, r *http.Request, school library.School, status int, form *formState) {
	a.renderBooksWith(w, r, school, status, form, nil)
}

func (a *App) renderBooksWith(w http.ResponseWriter, r *http.Request, school library.School, status int, form *formState, lookup *isbnLookup) {
	search := strings.TrimSpace(r.URL.Query().Get("search"))
	res, err := a.deps.Library.Holdings.Books(r.Context(), school.ID, usecase.ListQuery{Page: pageParam(r), Limit: pageSize, Search: search})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := booksView{base: a.schoolBase(r, school, "Books", "books"), Base: schoolPath(school), Form: form, Search: search,
		Pages:      newPager("books", tr(r, "Pages of books"), schoolPath(school)+"/books", search, res.Page, res.Limit, res.Total),
		CanAddBook: a.allowed(r, "create", "library:books"), CanAddCopies: a.allowed(r, "create", "library:copies"),
		CanSeeHolds: a.allowed(r, "read", "library:holds"),
		CanPrice:    a.allowed(r, "update", "library:books"), Currency: school.Settings.CurrencyCode(),
		CanChangeCategory: a.allowed(r, "update", "library:books"), Categories: library.LoanCategories,
		CanLookUp: a.allowed(r, "read", "library:cataloguing"), Lookup: lookup}
	if form == nil || lookup != nil {
		v.Flash = a.takeFlash(w, r)
	}
	covers, err := a.coverPaths(r, school, res.Entries)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	links, err := a.deps.Library.AppLinks.ForBooks(r.Context(), school.ID, bookOf(res.Entries))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v.CanSeeAppLinks = a.allowed(r, "read", "library:books")
	for _, e := range res.Entries {
		row := bookRow{ID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author, ISBN: e.Book.ISBN, Total: e.Total, Available: e.Available,
			Category: library.BookCategory(e.Book), Details: toDetailsRow(r, e.Book.BookDetails)}
		if e.Book.PriceCents > 0 {
			row.Price = moneyValue(e.Book.PriceCents)
		}
		row.Cover = covers[e.Book.ID]
		if l, ok := links[e.Book.ID]; ok {
			row.InApp, row.InAppWhy = l.AppBook.Title, linkedByText(r, l.Reason)
		}
		v.Books = append(v.Books, row)
	}
	a.render(w, r, status, "books", v)
}

// bookOf is the books of catalogue entries.
func bookOf(entries []collection.CatalogEntry) []library.Book {
	out := make([]library.Book, len(entries))
	for i, e := range entries {
		out[i] = e.Book
	}
	return out
}

// codesSentence lists new copy codes for the flash message (the labels
// link prints them all).
func codesSentence(r *http.Request, copies []library.Copy) string {
	const shown = 10
	codes := make([]string, 0, shown)
	for i, c := range copies {
		if i == shown {
			break
		}
		codes = append(codes, c.Code)
	}
	s := strings.Join(codes, ", ")
	if len(copies) > shown {
		s = tr(r, "%s and %d more", s, len(copies)-shown)
	}
	return s
}

func (a *App) addBook(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	keys := append([]string{"title", "author", "isbn", "copies", "price_cents", "loan_category", "subjects"}, detailKeys...)
	n, err := atoi(form, "copies", 1)
	price, priced := parseMoney(form.Get("price_cents"))
	if err == nil && !priced {
		err = errs.InvalidField("price_cents", "must be an amount such as 12.99")
	}
	var details func(library.BookDetails) library.BookDetails
	if err == nil {
		details, err = detailsFromForm(form)
	}
	if err == nil {
		var b library.Book
		var copies []library.Copy
		b, copies, err = a.deps.Library.Holdings.AddBook(r.Context(), school.ID, library.BookDraft{
			Title: form.Get("title"), Author: form.Get("author"), ISBN: form.Get("isbn"), Copies: n, PriceCents: price,
			LoanCategory: form.Get("loan_category"), BookDetails: withLookedUpSubjects(details(library.BookDetails{}), form),
		})
		if err == nil {
			msg := tr(r, "Added %s with %d copies.", quote(b.Title), len(copies))
			switch len(copies) {
			case 0:
			case 1:
				msg = tr(r, "Added %s with 1 copy: %s.", quote(b.Title), codesSentence(r, copies))
			default:
				msg = tr(r, "Added %s with %d copies: %s.", quote(b.Title), len(copies), codesSentence(r, copies))
			}
			a.succeeded(w, r, schoolPath(school)+"/books", msg)
			return
		}
	}
	a.renderBooks(w, r, school, a.statusFor(err), a.refused(r, err, form, keys...))
}

func (a *App) addCopies(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/books"
	n, err := atoi(form, "count", 1)
	if err == nil {
		var b library.Book
		var copies []library.Copy
		b, copies, err = a.deps.Library.Holdings.AddCopies(r.Context(), school.ID, form.Get("book_id"), n)
		if err == nil {
			msg := tr(r, "Added %d copies of %s: %s.", len(copies), quote(b.Title), codesSentence(r, copies))
			if len(copies) == 1 {
				msg = tr(r, "Added 1 copy of %s: %s.", quote(b.Title), codesSentence(r, copies))
			}
			a.redirect(w, r, back, flash{Kind: "success", Message: msg})
			return
		}
	}
	a.redirect(w, r, back, flash{Kind: "error", Message: a.messageOf(r, err)})
}

// ----- students -----

type studentRow struct {
	ID, Name, Email, Number, Grade, Homeroom string
	Inactive                                 bool
	Guardians                                []user.Guardian
}

type lineProblem struct {
	Line                 int
	File, Field, Message string
}

type studentsView struct {
	base
	Base       string
	Search     string
	Students   []studentRow
	Pages      pager
	CanAdd     bool
	CanImport  bool
	CanUnlock  bool       // lift a student's sign-in lock
	CanEdit    bool       // change a student's grade and homeroom
	CanCharges bool       // open a student's charges
	Form       *formState // add one student, after a refusal
	ImportCSV  string
	ImportErr  string
	ImportRows []lineProblem
}

func (a *App) students(w http.ResponseWriter, r *http.Request, school library.School) {
	v := studentsView{Search: strings.TrimSpace(r.URL.Query().Get("search"))}
	v.Flash = a.takeFlash(w, r)
	a.renderStudents(w, r, school, http.StatusOK, v)
}

func (a *App) renderStudents(w http.ResponseWriter, r *http.Request, school library.School, status int, v studentsView) {
	res, err := a.deps.Library.Students.Search(r.Context(), school.ID, "", usecase.ListQuery{Page: pageParam(r), Limit: pageSize, Search: v.Search})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v.Pages = newPager("students", tr(r, "Pages of students"), schoolPath(school)+"/students", v.Search, res.Page, res.Limit, res.Total)
	fl := v.Flash
	v.base = a.schoolBase(r, school, "Students", "students")
	v.Flash = fl
	v.Base = schoolPath(school)
	v.CanAdd, v.CanImport = a.allowed(r, "create", "library:students"), a.allowed(r, "import", "library:students")
	v.CanUnlock = a.allowed(r, "unlock", "library:accounts")
	v.CanEdit = a.allowed(r, "update", "library:students")
	v.CanCharges = a.allowed(r, "read", "library:charges")
	for _, s := range res.Students {
		v.Students = append(v.Students, studentRow{ID: s.ID, Name: s.Name, Email: s.Email, Number: s.StudentNumber,
			Grade: s.Grade, Homeroom: s.Homeroom, Inactive: s.Inactive, Guardians: s.Guardians})
	}
	a.render(w, r, status, "students", v)
}

func (a *App) addStudent(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	s, err := a.deps.Library.Students.Create(r.Context(), school.ID, students.StudentInput{
		Name: form.Get("name"), Email: form.Get("email"), Password: form.Get("password"), StudentNumber: form.Get("student_number"),
		Grade: form.Get("grade"), Homeroom: form.Get("homeroom"),
	})
	if err != nil {
		// The password is never sent back into the page.
		a.renderStudents(w, r, school, a.statusFor(err), studentsView{Form: a.refused(r, err, form, "name", "email", "student_number", "grade", "homeroom")})
		return
	}
	a.succeeded(w, r, schoolPath(school)+"/students", tr(r, "Added %s.", s.Name))
}

// updateStudent changes a student's grade and homeroom from the row of the
// students list (the same use case as PATCH /api/library/students/{id}),
// and goes back to the same page of the list.
func (a *App) updateStudent(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := url.Values{}
	if q := strings.TrimSpace(form.Get("search")); q != "" {
		back.Set("search", q)
	}
	if p := form.Get("page"); p != "" && p != "1" {
		back.Set("page", p)
	}
	to := schoolPath(school) + "/students"
	if len(back) > 0 {
		to += "?" + back.Encode()
	}
	grade, homeroom := form.Get("grade"), form.Get("homeroom")
	s, err := a.deps.Library.Students.Update(r.Context(), school.ID, form.Get("student_id"),
		students.StudentChanges{Grade: &grade, Homeroom: &homeroom})
	if err != nil {
		msg := a.messageOf(r, err)
		if m, ok := fieldErrors(r, err)["grade"]; ok {
			msg = tr(r, "Grade %s.", m)
		} else if m, ok := fieldErrors(r, err)["homeroom"]; ok {
			msg = tr(r, "Homeroom %s.", m)
		}
		a.redirect(w, r, to, flash{Kind: "error", Message: msg})
		return
	}
	class := s.Homeroom
	if class == "" {
		class = tr(r, "no homeroom")
	}
	a.succeeded(w, r, to, tr(r, "Saved %s: %s.", s.Name, class))
}

// importStudents adds the students of a pasted CSV file (name, email,
// student_number, grade, homeroom), all or none; every refused line is
// listed.
func (a *App) importStudents(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	text := form.Get("csv")
	var err error
	var added []user.Account
	if strings.TrimSpace(text) == "" {
		err = errs.InvalidField("csv", "is empty: paste the CSV file or choose it")
	} else {
		added, err = a.deps.Library.Students.Import(r.Context(), school.ID, library.BytesUpload([]byte(text)))
	}
	if err != nil {
		v := studentsView{ImportCSV: text, ImportErr: a.messageOf(r, err), ImportRows: lineProblems(err)}
		if len(fieldErrors(r, err)) > 0 {
			v.ImportErr = tr(r, "Paste the CSV file or choose it first.")
		}
		a.renderStudents(w, r, school, a.statusFor(err), v)
		return
	}
	msg := tr(r, "Imported %d students.", len(added))
	if len(added) == 1 {
		msg = tr(r, "Imported 1 student.")
	}
	a.succeeded(w, r, schoolPath(school)+"/students", msg)
}

// lineProblems reads the per-line problems of a refused CSV file
// (details.lines of the service's error).
func lineProblems(err error) []lineProblem {
	e, ok := errs.As(err)
	if !ok {
		return nil
	}
	var out []lineProblem
	switch lines := e.Details["lines"].(type) {
	case []map[string]any:
		for _, l := range lines {
			out = append(out, toLineProblem(l))
		}
	case []any:
		for _, raw := range lines {
			if l, ok := raw.(map[string]any); ok {
				out = append(out, toLineProblem(l))
			}
		}
	}
	return out
}

func toLineProblem(l map[string]any) lineProblem {
	p := lineProblem{}
	switch n := l["line"].(type) {
	case int:
		p.Line = n
	case float64:
		p.Line = int(n)
	}
	p.Field, _ = l["field"].(string)
	p.File, _ = l["file"].(string)
	p.Message, _ = l["message"].(string)
	return p
}

// ----- settings -----

type settingsView struct {
	base
	Base     string
	Settings library.Settings
	CanEdit  bool
	Form     *formState
	// ReadingChecks are the choices of the reading-level check.
	ReadingChecks []string
	// Languages are the choices of the school's language.
	Languages []i18n.Lang
}

func (a *App) settings(w http.ResponseWriter, r *http.Request, school library.School) {
	a.renderSettings(w, r, school, http.StatusOK, nil)
}

func (a *App) renderSettings(w http.ResponseWriter, r *http.Request, school library.School, status int, form *formState) {
	s, err := a.deps.Library.Schools.Settings(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := settingsView{base: a.schoolBase(r, school, "Settings", "settings"), Base: schoolPath(school), Settings: s.Settings,
		CanEdit: a.allowed(r, "update", "library:settings"), Form: form, ReadingChecks: library.ReadingChecks,
		Languages: i18n.Langs()}
	if form == nil {
		v.Flash = a.takeFlash(w, r)
		v.Form = &formState{Values: map[string]string{
			"default_loan_days": strconv.Itoa(s.Settings.DefaultLoanDays), "max_renewals": strconv.Itoa(s.Settings.MaxRenewals),
			"renewal_days": strconv.Itoa(s.Settings.RenewalDays), "allow_public_catalog": strconv.FormatBool(s.Settings.AllowPublicCatalog),
			"max_copies_per_book":   strconv.Itoa(s.Settings.WithCapDefaults().MaxCopiesPerBook),
			"max_copies_per_school": strconv.Itoa(s.Settings.WithCapDefaults().MaxCopiesPerSchool),
			"loan_history_days":     strconv.Itoa(s.Settings.LoanHistoryDays),
			"history_choice":        strconv.FormatBool(s.Settings.HistoryChoice),
			"timezone":              s.Settings.Zone(),
			"hold_pickup_days":      strconv.Itoa(s.Settings.PickupDays()),
			"sru_endpoint":          s.Settings.CatalogEndpoint,
			"reading_level_check":   s.Settings.ReadingCheck(),
			"label_prefix":          s.Settings.LabelPrefix,
			"language":              string(s.Settings.Lang()),
		}}
		chargeSettingsValues(s.Settings.ChargeSettings, v.Form.Values)
	}
	a.render(w, r, status, "settings", v)
}

func (a *App) saveSettings(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	fields := errs.FieldErrors{}
	blank := func(field string) bool { return strings.TrimSpace(form.Get(field)) == "" }
	num := func(field string) *int {
		n, err := atoi(form, field, -1)
		if err != nil || blank(field) {
			fields.Add(field, "must be a whole number")
		}
		return &n
	}
	// The optional fields: left blank, or missing from a form older than
	// the setting, they keep the school's value.
	optional := func(field string) *int {
		if blank(field) {
			return nil
		}
		return num(field)
	}
	atLeastOne := func(field string) *int {
		n := optional(field)
		if n != nil && *n < 1 {
			fields.Add(field, "must be a whole number of at least 1")
		}
		return n
	}
	text := func(field string) *string {
		if blank(field) {
			return nil
		}
		v := strings.TrimSpace(form.Get(field))
		return &v
	}
	// A checkbox is sent only when ticked.
	public := form.Get("allow_public_catalog") == "true"
	choice := form.Get("history_choice") == "true"
	change := library.SettingsChange{
		DefaultLoanDays: num("default_loan_days"), MaxRenewals: num("max_renewals"), RenewalDays: num("renewal_days"),
		AllowPublicCatalog: &public, HistoryChoice: &choice,
		MaxCopiesPerBook: atLeastOne("max_copies_per_book"), MaxCopiesPerSchool: atLeastOne("max_copies_per_school"),
		HoldPickupDays: atLeastOne("hold_pickup_days"), Timezone: text("timezone"), ReadingLevelCheck: text("reading_level_check"),
		// 0 is a choice of its own: keep loan history for good.
		LoanHistoryDays: optional("loan_history_days"),
	}
	// An emptied catalogue server turns lookups off.
	if _, sent := form["sru_endpoint"]; sent {
		change.CatalogEndpoint = text("sru_endpoint")
		if change.CatalogEndpoint == nil {
			change.CatalogEndpoint = new(string)
		}
	}
	// An emptied prefix prints none.
	if _, sent := form["label_prefix"]; sent {
		prefix := form.Get("label_prefix")
		change.LabelPrefix = &prefix
	}
	// The list always sends a language; English sent for a school that
	// never chose one is the default it shows, so the school keeps none
	// chosen until a librarian picks another.
	if lang := form.Get("language"); lang != "" && lang != string(school.Settings.Lang()) {
		change.Language = &lang
	}
	if v := text("currency"); v != nil {
		upper := strings.ToUpper(*v)
		change.Currency = &upper
	}
	change.ReplacementCostCents = moneyField(form, "replacement_cost_cents", fields)
	change.BlockChargesCents = moneyField(form, "block_charges_cents", fields)
	change.BlockOverdueItems = optional("block_overdue_items")
	err := fields.Err()
	if err == nil {
		_, err = a.deps.Library.Schools.ChangeSettings(r.Context(), school.ID, change)
	}
	if err != nil {
		st := a.refused(r, err, form, "default_loan_days", "max_renewals", "renewal_days", "max_copies_per_book", "max_copies_per_school", "loan_history_days",
			"timezone", "hold_pickup_days", "sru_endpoint", "reading_level_check", "label_prefix", "language", "currency", "replacement_cost_cents", "block_overdue_items", "block_charges_cents")
		st.Values["allow_public_catalog"] = strconv.FormatBool(public)
		st.Values["history_choice"] = strconv.FormatBool(choice)
		a.renderSettings(w, r, school, a.statusFor(err), st)
		return
	}
	a.succeeded(w, r, schoolPath(school)+"/settings", tr(r, "Settings saved."))
}

// ----- staff accounts -----

type accountRow struct {
	ID, Email, Name, Role, Created string
	Suspended, Self                bool
	Unlockable                     bool // the viewer may lift its sign-in lock
}

type accountsView struct {
	base
	Base        string
	Accounts    []accountRow
	CanInvite   bool
	CanManage   bool
	Form        *formState
	InviteEmail string
	InviteToken string // shown once, right after an invitation without password
}

func (a *App) accounts(w http.ResponseWriter, r *http.Request, school library.School) {
	v := accountsView{}
	v.Flash = a.takeFlash(w, r)
	a.renderAccounts(w, r, school, http.StatusOK, v)
}

func (a *App) renderAccounts(w http.ResponseWriter, r *http.Request, school library.School, status int, v accountsView) {
	list, err := a.deps.Library.Staff.Accounts(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	fl := v.Flash
	v.base = a.schoolBase(r, school, "Accounts", "accounts")
	v.Flash = fl
	v.Base = schoolPath(school)
	v.CanInvite, v.CanManage = a.allowed(r, "invite", "library:accounts"), a.allowed(r, "manage", "library:accounts")
	p := user.PrincipalFrom(r.Context())
	unlock := a.allowed(r, "unlock", "library:accounts")
	for _, acct := range list {
		// Librarians unlock staff; an admin any account.
		v.Accounts = append(v.Accounts, accountRow{ID: acct.ID, Email: acct.Email, Name: acct.Name, Role: roleName(r, acct.Role),
			Created: acct.CreatedAt.UTC().Format("2006-01-02"), Suspended: acct.Suspended, Self: acct.ID == p.AccountID,
			Unlockable: unlock && acct.ID != p.AccountID && (acct.Role == user.RoleStaff || acct.Role == user.RoleTeacher || p.Role == user.RoleAdmin)})
	}
	a.render(w, r, status, "accounts", v)
}

func (a *App) invite(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	acct, token, err := a.deps.Library.Staff.Invite(r.Context(), form.Get("email"), school.ID, form.Get("password"), user.Role(form.Get("role")))
	if err != nil {
		a.renderAccounts(w, r, school, a.statusFor(err), accountsView{Form: a.refused(r, err, form, "email", "role")})
		return
	}
	if token != "" {
		// The one-time token is a secret: shown in this response only,
		// never put in a URL or a cookie.
		v := accountsView{InviteEmail: acct.Email, InviteToken: token}
		v.Flash = &flash{Kind: "success", Message: tr(r, "Invited %s as %s.", acct.Email, roleName(r, acct.Role))}
		a.renderAccounts(w, r, school, http.StatusCreated, v)
		return
	}
	a.succeeded(w, r, schoolPath(school)+"/accounts", tr(r, "Added %s as %s.", acct.Email, roleName(r, acct.Role)))
}

// manage suspends or unsuspends a staff account of this school.
func (a *App) manage(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/accounts"
	id := form.Get("account_id")
	list, err := a.deps.Library.Staff.Accounts(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	found := false
	for _, acct := range list {
		found = found || acct.ID == id
	}
	if !found {
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "This school has no such staff account.")})
		return
	}
	suspend := form.Get("suspended") == "true"
	acct, err := a.deps.Library.Staff.ManageAccount(r.Context(), school.ID, id, suspend)
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "Unsuspended %s.", acct.Email)
	if acct.Suspended {
		msg = tr(r, "Suspended %s.", acct.Email)
	}
	a.succeeded(w, r, back, msg)
}

// unlock lifts the sign-in lock of a student or staff account of the
// school (the same use case as POST /api/library/accounts/{id}/unlock) and
// goes back to the page the button was on, with the outcome.
func (a *App) unlock(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	back := schoolPath(school) + "/students"
	if form.Get("from") == "accounts" {
		back = schoolPath(school) + "/accounts"
	} else if q := strings.TrimSpace(form.Get("search")); q != "" {
		back += "?search=" + url.QueryEscape(q)
	}
	// An admin may unlock anyone, but this page acts on its school only.
	acct, err := a.deps.Library.Staff.UnlockSignIn(r.Context(), school.ID, form.Get("account_id"))
	if a.refusedTo(w, r, back, err) {
		return
	}
	who := acct.Name
	if who == "" {
		who = acct.Email
	}
	a.succeeded(w, r, back, tr(r, "Sign-in unlocked for %s: they can sign in again now.", who))
}

// ----- accepting an invitation -----

type inviteView struct {
	base
	Form *formState
}

// acceptInvitePage shows the form an invited librarian or staff member uses
// to choose a password. The code travels only in the form's body.
func (a *App) acceptInvitePage(w http.ResponseWriter, r *http.Request) {
	a.render(w, r, http.StatusOK, "invite", inviteView{base: a.newBase(r, "Accept an invitation", "invite")})
}

// acceptInvite redeems the code (the same use case as POST
// /api/auth/accept-invite) and sends the new member to sign in. A refused
// code or password shows the form again, empty: the code is a secret and is
// never written back into the page.
func (a *App) acceptInvite(w http.ResponseWriter, r *http.Request) {
	form := r.PostForm
	again := func(status int, st *formState) {
		a.render(w, r, status, "invite", inviteView{base: a.newBase(r, "Accept an invitation", "invite"), Form: st})
	}
	token, password := strings.TrimSpace(form.Get("token")), form.Get("password")
	if password != form.Get("password_again") {
		again(http.StatusUnprocessableEntity, &formState{Error: tr(r, "The two passwords are not the same."),
			Fields: map[string]string{"password_again": tr(r, "The two passwords are not the same")}})
		return
	}
	if _, err := a.deps.Library.Staff.AcceptInvite(r.Context(), token, password); err != nil {
		st := &formState{Fields: fieldErrors(r, err), Error: a.messageOf(r, err)}
		if errs.Is(err, errs.NotFound) || errs.Is(err, errs.Conflict) {
			st.Fields = map[string]string{"token": tr(r, "is not valid, has expired or was used already")}
		}
		again(a.statusFor(err), st)
		return
	}
	http.Redirect(w, r, signInPath+"?accepted=1", http.StatusSeeOther)
}

// studentGuardiansView is the page that records a student's parents and
// guardians: one row each, as many rows as a student may have.
type studentGuardiansView struct {
	base
	Base          string
	Student       studentRow
	Rows          []guardianRow
	Relationships []string // the choices, "" (not said) first
	Error         string
	Students      string // the students page, found at the student
}

// guardianRow is one row of the form, with its errors.
type guardianRow struct {
	N                         int // 1-based, for labels and ids
	Name, Email, Relationship string
	NameErr, EmailErr, RelErr string
	Invalid                   bool
}

// guardianRelationships are the form's choices, "" first (not said).
var guardianRelationships = []string{"", user.RelationshipParent, user.RelationshipGuardian, user.RelationshipRelative}

func (a *App) studentGuardians(w http.ResponseWriter, r *http.Request, school library.School) {
	st, ok := a.oneStudent(w, r, school, r.URL.Query().Get("student_id"))
	if !ok {
		return
	}
	rows := make([]guardianRow, user.MaxGuardians)
	for i := range rows {
		rows[i].N = i + 1
		if i < len(st.Guardians) {
			g := st.Guardians[i]
			rows[i].Name, rows[i].Email, rows[i].Relationship = g.Name, g.Email, g.Relationship
		}
	}
	a.renderGuardians(w, r, school, http.StatusOK, st, rows, "")
}

func (a *App) renderGuardians(w http.ResponseWriter, r *http.Request, school library.School, status int, st user.Account, rows []guardianRow, msg string) {
	v := studentGuardiansView{base: a.schoolBase(r, school, tr(r, "Guardians of %s", st.Name), "students"), Base: schoolPath(school),
		Student: studentRow{ID: st.ID, Name: st.Name}, Rows: rows, Relationships: guardianRelationships, Error: msg,
		Students: schoolPath(school) + "/students?" + url.Values{"search": {st.Name}}.Encode()}
	v.Flash = a.takeFlash(w, r)
	a.render(w, r, status, "student_guardians", v)
}

// oneStudent is the student of the school that id names; otherwise it
// answers the not-found page.
func (a *App) oneStudent(w http.ResponseWriter, r *http.Request, school library.School, id string) (user.Account, bool) {
	found, err := a.deps.Library.Students.ByIDs(r.Context(), school.ID, []string{strings.TrimSpace(id)})
	if err == nil && len(found) == 0 {
		err = library.ErrStudentNotFound()
	}
	if err != nil {
		a.fail(w, r, err)
		return user.Account{}, false
	}
	return found[0], true
}

// saveStudentGuardians replaces the student's guardians with the form's
// rows that have a name or an email; a refused row is shown again with its
// error, and nothing is changed.
func (a *App) saveStudentGuardians(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	st, ok := a.oneStudent(w, r, school, form.Get("student_id"))
	if !ok {
		return
	}
	rows := make([]guardianRow, user.MaxGuardians)
	var given []user.Guardian
	var rowOf []int // the form row of each guardian given
	for i := range rows {
		n := strconv.Itoa(i + 1)
		rows[i] = guardianRow{N: i + 1, Name: form.Get("name_" + n), Email: form.Get("email_" + n), Relationship: form.Get("relationship_" + n)}
		if strings.TrimSpace(rows[i].Name) == "" && strings.TrimSpace(rows[i].Email) == "" {
			continue
		}
		given = append(given, user.Guardian{Name: rows[i].Name, Email: rows[i].Email, Relationship: rows[i].Relationship})
		rowOf = append(rowOf, i)
	}
	if given == nil {
		given = []user.Guardian{}
	}
	saved, err := a.deps.Library.Students.Update(r.Context(), school.ID, st.ID, students.StudentChanges{Guardians: &given})
	if err != nil {
		for field, msg := range fieldErrors(r, err) {
			var i int
			var part string
			if _, scanErr := fmt.Sscanf(field, "guardians[%d].%s", &i, &part); scanErr != nil || i < 0 || i >= len(rowOf) {
				continue
			}
			row := &rows[rowOf[i]]
			switch part {
			case "email":
				row.EmailErr = msg
			case "relationship":
				row.RelErr = msg
			default:
				row.NameErr = msg
			}
		}
		a.renderGuardians(w, r, school, a.statusFor(err), st, rows, a.messageOf(r, err))
		return
	}
	msg := tr(r, "Saved the guardians of %s.", saved.Name)
	if len(saved.Guardians) == 0 {
		msg = tr(r, "%s has no guardians recorded now.", saved.Name)
	}
	a.succeeded(w, r, schoolPath(school)+"/students?"+url.Values{"search": {saved.Name}}.Encode(), msg)
}
