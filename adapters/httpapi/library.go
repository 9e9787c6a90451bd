package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
)

// ----- response bodies (openapi.json's schemas) -----

type settingsBody struct {
	SchoolID           string `json:"school_id"`
	DefaultLoanDays    int    `json:"default_loan_days"`
	MaxRenewals        int    `json:"max_renewals"`
	RenewalDays        int    `json:"renewal_days"`
	AllowPublicCatalog bool   `json:"allow_public_catalog"`
	MaxCopiesPerBook   int    `json:"max_copies_per_book"`
	MaxCopiesPerSchool int    `json:"max_copies_per_school"`
	LoanHistoryDays    int    `json:"loan_history_days"`
	Timezone           string `json:"timezone"`
	HoldPickupDays     int    `json:"hold_pickup_days"`
	ReadingLevelCheck  string `json:"reading_level_check"`
	chargeSettingsBody
}

func toSettingsBody(s library.School) settingsBody {
	set := s.Settings.WithCapDefaults()
	return settingsBody{SchoolID: s.ID, DefaultLoanDays: set.DefaultLoanDays, MaxRenewals: set.MaxRenewals,
		RenewalDays: set.RenewalDays, AllowPublicCatalog: set.AllowPublicCatalog,
		MaxCopiesPerBook: set.MaxCopiesPerBook, MaxCopiesPerSchool: set.MaxCopiesPerSchool, LoanHistoryDays: set.LoanHistoryDays,
		Timezone: set.Zone(), HoldPickupDays: set.HoldPickupDays, ReadingLevelCheck: set.ReadingCheck(), chargeSettingsBody: toChargeSettingsBody(set.ChargeSettings)}
}

type calendarBody struct {
	SchoolID       string        `json:"school_id"`
	ClosedWeekdays []string      `json:"closed_weekdays"`
	Closures       []closureBody `json:"closures"`
	TermEnds       []string      `json:"term_ends"`
}

type closureBody struct {
	From string `json:"from"`
	To   string `json:"to"`
	Name string `json:"name"`
}

func toCalendarBody(s library.School) calendarBody {
	c := s.Calendar
	b := calendarBody{SchoolID: s.ID, ClosedWeekdays: c.ClosedWeekdayNames(), Closures: []closureBody{}, TermEnds: []string{}}
	for _, cl := range c.Closures {
		b.Closures = append(b.Closures, closureBody(cl))
	}
	b.TermEnds = append(b.TermEnds, c.TermEnds...)
	return b
}

type schoolBody struct {
	ID        string       `json:"id"`
	Name      string       `json:"name"`
	Domain    string       `json:"domain"`
	Settings  settingsBody `json:"settings"`
	CreatedAt string       `json:"created_at"`
}

func toSchoolBody(s library.School) schoolBody {
	return schoolBody{ID: s.ID, Name: s.Name, Domain: s.Domain, Settings: toSettingsBody(s), CreatedAt: timestamp(s.CreatedAt)}
}

type accountBody struct {
	AccountID string `json:"account_id"`
	Email     string `json:"email"`
	Name      string `json:"name"`
	SchoolID  string `json:"school_id"`
	Role      string `json:"role"`
	Tier      string `json:"tier"`
	Suspended bool   `json:"suspended"`
	CreatedAt string `json:"created_at"`
}

func toAccountBody(a user.Account) accountBody {
	return accountBody{AccountID: a.ID, Email: a.Email, Name: a.Name, SchoolID: a.SchoolID, Role: string(a.Role),
		Tier: string(a.Tier), Suspended: a.Suspended, CreatedAt: timestamp(a.CreatedAt)}
}

type studentBody struct {
	StudentID     string `json:"student_id"`
	Name          string `json:"name"`
	Email         string `json:"email"`
	StudentNumber string `json:"student_number"`
	Grade         string `json:"grade"`
	Homeroom      string `json:"homeroom"`
	SchoolID      string `json:"school_id"`
	CreatedAt     string `json:"created_at"`
}

func toStudentBody(a user.Account) studentBody {
	return studentBody{StudentID: a.ID, Name: a.Name, Email: a.Email, StudentNumber: a.StudentNumber, Grade: a.Grade,
		Homeroom: a.Homeroom, SchoolID: a.SchoolID, CreatedAt: timestamp(a.CreatedAt)}
}

type libraryBookBody struct {
	ID              string `json:"id"`
	SchoolID        string `json:"school_id"`
	ISBN            string `json:"isbn"`
	Title           string `json:"title"`
	Author          string `json:"author"`
	CoverURL        string `json:"cover_url"`
	TotalCopies     int    `json:"total_copies"`
	AvailableCopies int    `json:"available_copies"`
	PriceCents      int64  `json:"price_cents"`
	LoanCategory    string `json:"loan_category"`
	bookDetailsBody
}

type copyBody struct {
	ID     string `json:"id"`
	BookID string `json:"book_id"`
	Code   string `json:"code"`
	Status string `json:"status"`
	// Note is the librarian's note on a damaged copy ("" otherwise).
	Note string `json:"note"`
}

func toCopyBodies(cs []library.Copy) []copyBody {
	out := make([]copyBody, 0, len(cs))
	for _, c := range cs {
		out = append(out, toCopyBody(c, false))
	}
	return out
}

type loanBody struct {
	ID         string   `json:"id"`
	SchoolID   string   `json:"school_id"`
	BookID     string   `json:"book_id"`
	CopyID     string   `json:"copy_id"`
	CopyCode   string   `json:"copy_code"`
	StudentID  *string  `json:"student_id"` // null once the student deleted their account
	Deleted    bool     `json:"student_deleted"`
	LoanedAt   string   `json:"loaned_at"`
	DueAt      string   `json:"due_at"`
	ReturnedAt *string  `json:"returned_at"`
	Renewals   int      `json:"renewals"`
	Status     string   `json:"status"`
	Book       loanBook `json:"book"`
	// Student is the borrower as the loans list shows it (that list only).
	Student *loanStudent `json:"student,omitempty"`
	// PutAsideFor is set on a return whose copy went to a hold: the desk
	// must put the copy aside for that student.
	PutAsideFor *putAsideBody `json:"put_aside_for"`
}

type putAsideBody struct {
	HoldID      string `json:"hold_id"`
	StudentID   string `json:"student_id"`
	StudentName string `json:"student_name"`
	// StudentHomeroom is where to find the student ("" when none is set).
	StudentHomeroom string `json:"student_homeroom"`
	Until           string `json:"until"`
}

type loanBook struct {
	Title  string `json:"title"`
	Author string `json:"author"`
}

// loanStudent is the borrower of a loan in the school's loans list: whom
// and which class to chase.
type loanStudent struct {
	Name          string `json:"name"`
	StudentNumber string `json:"student_number"`
	Grade         string `json:"grade"`
	Homeroom      string `json:"homeroom"`
}

func toLoanBody(v service.LoanView) loanBody {
	l := v.Loan
	b := loanBody{ID: l.ID, SchoolID: l.SchoolID, BookID: l.BookID, CopyID: l.CopyID, CopyCode: l.CopyCode, Deleted: l.StudentDeleted(),
		LoanedAt: timestamp(l.LoanedAt), DueAt: v.DueAt, Renewals: v.Renewals, Status: v.Status, Book: loanBook{Title: l.BookTitle, Author: l.BookAuthor}}
	if !l.StudentDeleted() {
		b.StudentID = &l.StudentID
	}
	if l.Returned() {
		t := timestamp(l.ReturnedAt)
		b.ReturnedAt = &t
	}
	if pa := v.PutAside; pa != nil {
		b.PutAsideFor = &putAsideBody{HoldID: pa.HoldID, StudentID: pa.StudentID, StudentName: pa.StudentName, StudentHomeroom: pa.Homeroom,
			Until: timestamp(pa.ExpiresAt)}
	}
	return b
}

func toLoanBodies(vs []service.LoanView) []loanBody {
	out := make([]loanBody, 0, len(vs))
	for _, v := range vs {
		out = append(out, toLoanBody(v))
	}
	return out
}

// ----- schools and accounts (admins) -----

type createSchoolRequest struct {
	Name   string `json:"name" validate:"required"`
	Domain string `json:"domain" validate:"required"`
}

func (h *handler) createSchool(w http.ResponseWriter, r *http.Request) {
	var req createSchoolRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	s, err := h.deps.Library.Schools.Create(r.Context(), req.Name, req.Domain)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"school": toSchoolBody(s)})
}

func (h *handler) listSchools(w http.ResponseWriter, r *http.Request) {
	schools, err := h.deps.Library.Schools.List(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]schoolBody, 0, len(schools))
	for _, s := range schools {
		out = append(out, toSchoolBody(s))
	}
	writeJSON(w, http.StatusOK, map[string]any{"schools": out})
}

type updateUserRequest struct {
	Tier *string `json:"tier" validate:"omitnil,oneof=standard premium"`
	Role *string `json:"role" validate:"omitnil,oneof=admin staff librarian student reader"`
}

func (h *handler) updateUser(w http.ResponseWriter, r *http.Request) {
	var req updateUserRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	var tier *user.Tier
	var role *user.Role
	if req.Tier != nil {
		t := user.Tier(*req.Tier)
		tier = &t
	}
	if req.Role != nil {
		ro := user.Role(*req.Role)
		role = &ro
	}
	a, err := h.deps.Library.Staff.UpdateUser(r.Context(), mux.Vars(r)["id"], tier, role)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("account changed by an admin", "account_id", a.ID, "role", a.Role, "tier", a.Tier)
	writeJSON(w, http.StatusOK, map[string]any{"account": toAccountBody(a)})
}

func (h *handler) listAccounts(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	accts, err := h.deps.Library.Staff.Accounts(r.Context(), p["schoolId"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]accountBody, 0, len(accts))
	for _, a := range accts {
		out = append(out, toAccountBody(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"accounts": out})
}

type inviteRequest struct {
	Email    string  `json:"email" validate:"required"`
	SchoolID string  `json:"school_id" validate:"required"`
	Password *string `json:"password" validate:"omitnil,min=1"` // left out: the account gets an invitation token
	Role     *string `json:"role" validate:"omitnil,oneof=librarian staff"`
}

func (h *handler) invite(w http.ResponseWriter, r *http.Request) {
	var req inviteRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	a, token, err := h.deps.Library.Staff.Invite(r.Context(), req.Email, req.SchoolID, deref(req.Password), user.Role(deref(req.Role)))
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("staff account invited", "account_id", a.ID, "school_id", a.SchoolID, "role", a.Role)
	body := map[string]any{"account": toAccountBody(a)}
	if token != "" {
		body["invite_token"] = token
		body["invite_expires_in"] = int(service.InviteTTL.Seconds())
	}
	writeJSON(w, http.StatusCreated, body)
}

type acceptInviteRequest struct {
	Token    string `json:"token" validate:"required"`
	Password string `json:"password" validate:"required"`
}

func (h *handler) acceptInvite(w http.ResponseWriter, r *http.Request) {
	var req acceptInviteRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	a, err := h.deps.Library.Staff.AcceptInvite(r.Context(), req.Token, req.Password)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"account": toAccountBody(a)})
}

type manageRequest struct {
	AccountID string `json:"account_id" validate:"required"`
	Suspended *bool  `json:"suspended" validate:"required"`
}

func (h *handler) manageAccount(w http.ResponseWriter, r *http.Request) {
	var req manageRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	a, err := h.deps.Library.Staff.ManageAccount(r.Context(), req.AccountID, *req.Suspended)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("account suspension changed", "account_id", a.ID, "suspended", a.Suspended)
	writeJSON(w, http.StatusOK, map[string]any{"account": toAccountBody(a)})
}

func (h *handler) unlockAccount(w http.ResponseWriter, r *http.Request) {
	a, err := h.deps.Library.Staff.UnlockSignIn(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("sign-in lock lifted", "account_id", a.ID)
	writeJSON(w, http.StatusOK, map[string]any{"account": toAccountBody(a)})
}

// ----- students -----

type studentRequest struct {
	SchoolID      string  `json:"school_id"`
	Name          string  `json:"name" validate:"required"`
	Email         string  `json:"email"`
	Password      *string `json:"password" validate:"omitnil,min=1"` // left out: a student without a sign-in
	StudentNumber string  `json:"student_number"`
	Grade         string  `json:"grade"`
	Homeroom      string  `json:"homeroom"`
}

func (h *handler) createStudent(w http.ResponseWriter, r *http.Request) {
	var req studentRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	a, err := h.deps.Library.Students.Create(r.Context(), req.SchoolID, service.StudentInput{
		Name: req.Name, Email: req.Email, Password: deref(req.Password), StudentNumber: req.StudentNumber,
		Grade: req.Grade, Homeroom: req.Homeroom,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"student": toStudentBody(a)})
}

func (h *handler) listStudents(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId", "search", "homeroom", "page", "limit")
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, service.DefaultListLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Students.Search(r.Context(), p["schoolId"], p["homeroom"], service.ListQuery{Page: page, Limit: limit, Search: p["search"]})
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]studentBody, 0, len(res.Students))
	for _, a := range res.Students {
		out = append(out, toStudentBody(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"students":   out,
		"pagination": pagination{Page: res.Page, Limit: res.Limit, Total: int64(res.Total), TotalPages: catalog.TotalPages(int64(res.Total), res.Limit)},
	})
}

// studentChangeRequest changes a student: a field left out stays as it
// is; an empty grade or homeroom removes it.
type studentChangeRequest struct {
	SchoolID string  `json:"school_id"`
	Name     *string `json:"name"`
	Grade    *string `json:"grade"`
	Homeroom *string `json:"homeroom"`
}

func (h *handler) updateStudent(w http.ResponseWriter, r *http.Request) {
	var req studentChangeRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	a, err := h.deps.Library.Students.Update(r.Context(), req.SchoolID, mux.Vars(r)["id"],
		service.StudentChanges{Name: req.Name, Grade: req.Grade, Homeroom: req.Homeroom})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"student": toStudentBody(a)})
}

// importStudents takes a text/csv body (name, email, student_number,
// grade, homeroom).
func (h *handler) importStudents(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	students, err := h.deps.Library.Students.Import(r.Context(), p["schoolId"], body)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]studentBody, 0, len(students))
	for _, a := range students {
		out = append(out, toStudentBody(a))
	}
	writeJSON(w, http.StatusCreated, map[string]any{"imported": len(out), "students": out})
}

// ----- books and copies -----

type libraryBookRequest struct {
	SchoolID string `json:"school_id"`
	ISBN     string `json:"isbn"`
	Title    string `json:"title"`
	Author   string `json:"author"`
	CoverURL string `json:"cover_url"`
	Copies   int    `json:"copies" validate:"min=0"`
	// PriceCents is the replacement price; 0 or left out: the school's
	// default.
	PriceCents int64 `json:"price_cents" validate:"min=0,max=100000000"`
	// LoanCategory is standard (when absent), short or reference.
	LoanCategory *string `json:"loan_category"`
	bookDetailsRequest
}

func (h *handler) addLibraryBook(w http.ResponseWriter, r *http.Request) {
	var req libraryBookRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	category, err := optionalCategory(req.LoanCategory)
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, copies, err := h.deps.Library.Holdings.AddBook(r.Context(), req.SchoolID, library.BookDraft{
		Title: req.Title, Author: req.Author, ISBN: req.ISBN, CoverURL: req.CoverURL, Copies: req.Copies, PriceCents: req.PriceCents,
		LoanCategory: category, BookDetails: req.bookDetailsRequest.apply(library.BookDetails{}),
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"book":   toLibraryBookBody(service.CatalogEntry{Book: b, Total: len(copies), Available: len(copies)}),
		"copies": toCopyBodies(copies),
	})
}

type copiesRequest struct {
	SchoolID string `json:"school_id"`
	BookID   string `json:"book_id" validate:"required"`
	Count    int    `json:"count" validate:"min=1"`
}

func (h *handler) addCopies(w http.ResponseWriter, r *http.Request) {
	var req copiesRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	b, copies, err := h.deps.Library.Holdings.AddCopies(r.Context(), req.SchoolID, req.BookID, req.Count)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"book_id": b.ID, "copies": toCopyBodies(copies)})
}

func (h *handler) copyByCode(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "code", "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	if p["code"] == "" {
		writeError(w, r, errs.InvalidField("code", "is required"))
		return
	}
	found, err := h.deps.Library.Holdings.CopyByCode(r.Context(), p["schoolId"], p["code"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	var loan *loanBody
	if found.Loan != nil {
		lb := toLoanBody(*found.Loan)
		loan = &lb
	}
	b := found.Book
	writeJSON(w, http.StatusOK, map[string]any{
		"copy": toCopyBody(found.Copy, found.Loan != nil),
		"book": map[string]any{"id": b.ID, "isbn": b.ISBN, "title": b.Title, "author": b.Author, "cover_url": b.CoverURL},
		"loan": loan,
	})
}

// ----- loans -----

type loanRequest struct {
	SchoolID  string  `json:"school_id"`
	BookID    string  `json:"book_id" validate:"required"`
	CopyID    string  `json:"copy_id" validate:"required"`
	StudentID string  `json:"student_id" validate:"required"`
	DueAt     *string `json:"due_at" validate:"omitnil,datetime=2006-01-02"`
}

func (h *handler) createLoan(w http.ResponseWriter, r *http.Request) {
	var req loanRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	v, err := h.deps.Library.Circulation.CreateLoan(r.Context(), service.LoanInput{
		SchoolID: req.SchoolID, BookID: req.BookID, CopyID: req.CopyID, StudentID: req.StudentID, DueAt: deref(req.DueAt),
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	if len(v.Warnings) > 0 {
		loggerFrom(r).Info("loan made with warnings", "loan_id", v.Loan.ID, "warning", v.Warnings[0].Code)
	}
	writeJSON(w, http.StatusCreated, map[string]any{"loan": toLoanBody(v), "warnings": toWarningBodies(v.Warnings)})
}

// warningBody is a note on a request that succeeded (a check-out outside
// the student's reading range); warnings is [] when there are none.
type warningBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func toWarningBodies(ws []service.Warning) []warningBody {
	out := make([]warningBody, 0, len(ws))
	for _, w := range ws {
		out = append(out, warningBody{Code: w.Code, Message: w.Message})
	}
	return out
}

type loanActionRequest struct {
	LoanID string `json:"loan_id" validate:"required"`
	Action string `json:"action" validate:"required,oneof=renew return lost claims_returned"`
	// ExpectedRenewals makes a renewal safe to retry (see RenewLoan).
	ExpectedRenewals *int `json:"expected_renewals" validate:"omitnil,min=0"`
	// Damaged, with return: the copy came back damaged (ReturnDamaged).
	Damaged *damagedRequest `json:"damaged"`
}

type damagedRequest struct {
	Note        string `json:"note" validate:"max=500"`
	ChargeCents int64  `json:"charge_cents" validate:"min=0,max=100000000"`
}

func (h *handler) changeLoan(w http.ResponseWriter, r *http.Request) {
	var req loanActionRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	if req.Damaged != nil && req.Action != "return" {
		writeError(w, r, errs.InvalidField("damaged", "is only for the return action"))
		return
	}
	var v service.LoanView
	var err error
	c := h.deps.Library.Circulation
	switch {
	case req.Action == "renew":
		v, err = c.RenewLoan(r.Context(), req.LoanID, req.ExpectedRenewals)
	case req.Action == "return" && req.Damaged != nil:
		v, err = c.ReturnDamaged(r.Context(), req.LoanID, service.DamageInput{Note: req.Damaged.Note, ChargeCents: req.Damaged.ChargeCents})
	case req.Action == "return":
		v, err = c.ReturnLoan(r.Context(), req.LoanID)
	default:
		v, err = c.EndLoan(r.Context(), req.LoanID, req.Action)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"loan": toLoanBody(v)})
}

// pagedList reads the query of a paged list of the school's objects (the
// filters named, schoolId, page and limit) and, when list answers, writes
// its items under key with the pagination.
func pagedList(w http.ResponseWriter, r *http.Request, key string, filters []string,
	list func(p map[string]string, q service.ListQuery) (items any, page, limit, total int, err error)) {
	p, err := queryParams(r, append([]string{"schoolId", "page", "limit"}, filters...)...)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, service.DefaultListLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	items, page, limit, total, err := list(p, service.ListQuery{Page: page, Limit: limit})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		key:          items,
		"pagination": pagination{Page: page, Limit: limit, Total: int64(total), TotalPages: catalog.TotalPages(int64(total), limit)},
	})
}

func (h *handler) listLoans(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, "loans", []string{"status", "student_id", "book_id", "homeroom"}, func(p map[string]string, q service.ListQuery) (any, int, int, int, error) {
		res, err := h.deps.Library.Circulation.LoansPage(r.Context(), p["schoolId"],
			service.LoanFilter{Status: p["status"], StudentID: p["student_id"], BookID: p["book_id"], Homeroom: p["homeroom"]}, q)
		loans := toLoanBodies(res.Loans)
		for i, v := range res.Loans {
			if st, ok := res.Borrowers[v.Loan.StudentID]; ok {
				loans[i].Student = &loanStudent{Name: st.Name, StudentNumber: st.StudentNumber, Grade: st.Grade, Homeroom: st.Homeroom}
			}
		}
		return loans, res.Page, res.Limit, res.Total, err
	})
}

func (h *handler) studentLoans(w http.ResponseWriter, r *http.Request) {
	loans, err := h.deps.Library.Circulation.StudentLoans(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"loans": toLoanBodies(loans)})
}

// ----- holds -----

type holdBody struct {
	ID          string   `json:"id"`
	SchoolID    string   `json:"school_id"`
	BookID      string   `json:"book_id"`
	StudentID   string   `json:"student_id"`
	StudentName string   `json:"student_name"`
	Status      string   `json:"status"`
	PlacedAt    string   `json:"placed_at"`
	ReadyUntil  *string  `json:"ready_until"` // when a copy is put aside
	CopyID      *string  `json:"copy_id"`
	CopyCode    *string  `json:"copy_code"`
	EndedAt     *string  `json:"ended_at"`
	Book        loanBook `json:"book"`
}

func toHoldBodies(vs []service.HoldView) []holdBody {
	out := make([]holdBody, 0, len(vs))
	for _, v := range vs {
		h := v.Hold
		b := holdBody{ID: h.ID, SchoolID: h.SchoolID, BookID: h.BookID, StudentID: h.StudentID, StudentName: v.StudentName,
			Status: v.Status, PlacedAt: timestamp(h.PlacedAt), Book: loanBook{Title: v.Book.Title, Author: v.Book.Author}}
		if t := v.Trap; t != nil {
			until, copyID, code := timestamp(t.ExpiresAt), t.CopyID, v.CopyCode
			b.ReadyUntil, b.CopyID, b.CopyCode = &until, &copyID, &code
		}
		if !v.EndedAt.IsZero() {
			ended := timestamp(v.EndedAt)
			b.EndedAt = &ended
		}
		out = append(out, b)
	}
	return out
}

type holdRequest struct {
	SchoolID  string `json:"school_id"`
	BookID    string `json:"book_id" validate:"required"`
	StudentID string `json:"student_id"`
}

func (h *handler) placeHold(w http.ResponseWriter, r *http.Request) {
	var req holdRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	v, err := h.deps.Library.Holds.Place(r.Context(), service.HoldInput{SchoolID: req.SchoolID, BookID: req.BookID, StudentID: req.StudentID})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"hold": toHoldBodies([]service.HoldView{v})[0]})
}

func (h *handler) cancelHold(w http.ResponseWriter, r *http.Request) {
	v, err := h.deps.Library.Holds.Cancel(r.Context(), mux.Vars(r)["hold_id"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"hold": toHoldBodies([]service.HoldView{v})[0]})
}

func (h *handler) listHolds(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, "holds", []string{"status", "book_id"}, func(p map[string]string, q service.ListQuery) (any, int, int, int, error) {
		res, err := h.deps.Library.Holds.Queue(r.Context(), p["schoolId"], service.HoldFilter{Status: p["status"], BookID: p["book_id"]}, q)
		return toHoldBodies(res.Holds), res.Page, res.Limit, res.Total, err
	})
}

func (h *handler) studentHolds(w http.ResponseWriter, r *http.Request) {
	holds, err := h.deps.Library.Holds.StudentHolds(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"holds": toHoldBodies(holds)})
}

// ----- settings and the public catalog -----

func (h *handler) getSettings(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	s, err := h.deps.Library.Schools.Settings(r.Context(), p["schoolId"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toSettingsBody(s))
}

type settingsRequest struct {
	DefaultLoanDays    *int  `json:"default_loan_days" validate:"required,min=1"`
	MaxRenewals        *int  `json:"max_renewals" validate:"required,min=0"`
	RenewalDays        *int  `json:"renewal_days" validate:"required,min=1"`
	AllowPublicCatalog *bool `json:"allow_public_catalog" validate:"required"`
	// The copy caps are optional: left out, the school keeps its caps.
	MaxCopiesPerBook   *int `json:"max_copies_per_book" validate:"omitnil,min=1"`
	MaxCopiesPerSchool *int `json:"max_copies_per_school" validate:"omitnil,min=1"`
	// Optional too: left out, the school keeps how long it keeps history.
	LoanHistoryDays *int `json:"loan_history_days" validate:"omitnil,min=0,max=3650"`
	// Left out, the school keeps its time zone.
	Timezone *string `json:"timezone" validate:"omitnil,min=1"`
	// Optional too: left out, the school keeps its pickup window.
	HoldPickupDays *int `json:"hold_pickup_days" validate:"omitnil,min=1"`
	// Left out, the school keeps its reading-level check.
	ReadingLevelCheck *string `json:"reading_level_check"`
	// The charge settings are optional too; left out, each is kept.
	Currency             *string `json:"currency" validate:"omitnil,len=3,alpha,uppercase"`
	ReplacementCostCents *int64  `json:"replacement_cost_cents" validate:"omitnil,min=0,max=100000000"`
	BlockOverdueItems    *int    `json:"block_overdue_items" validate:"omitnil,min=0,max=1000"`
	BlockChargesCents    *int64  `json:"block_charges_cents" validate:"omitnil,min=0,max=100000000"`
}

// chargeSettingsPartial reports whether a charge setting was left out.
func (req settingsRequest) chargeSettingsPartial() bool {
	return req.Currency == nil || req.ReplacementCostCents == nil || req.BlockOverdueItems == nil || req.BlockChargesCents == nil
}

// applyChargeSettings sets the charge settings the request names.
func (req settingsRequest) applyChargeSettings(c *library.ChargeSettings) {
	if req.Currency != nil {
		c.Currency = *req.Currency
	}
	if req.ReplacementCostCents != nil {
		c.ReplacementCostCents = *req.ReplacementCostCents
	}
	if req.BlockOverdueItems != nil {
		c.BlockOverdueItems = *req.BlockOverdueItems
	}
	if req.BlockChargesCents != nil {
		c.BlockChargesCents = *req.BlockChargesCents
	}
}

func (h *handler) putSettings(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req settingsRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	set := library.Settings{
		DefaultLoanDays: *req.DefaultLoanDays, MaxRenewals: *req.MaxRenewals, RenewalDays: *req.RenewalDays, AllowPublicCatalog: *req.AllowPublicCatalog,
	}
	if req.MaxCopiesPerBook != nil {
		set.MaxCopiesPerBook = *req.MaxCopiesPerBook
	}
	if req.MaxCopiesPerSchool != nil {
		set.MaxCopiesPerSchool = *req.MaxCopiesPerSchool
	}
	if req.HoldPickupDays != nil {
		set.HoldPickupDays = *req.HoldPickupDays
	}
	if req.Timezone != nil {
		set.Timezone = *req.Timezone
	}
	if req.ReadingLevelCheck != nil {
		if *req.ReadingLevelCheck == "" {
			// "" would keep the current check; one sent must be named.
			writeError(w, r, errs.InvalidField("reading_level_check", "must be warn, block or off"))
			return
		}
		set.ReadingLevelCheck = *req.ReadingLevelCheck
	}
	if req.LoanHistoryDays == nil || req.chargeSettingsPartial() {
		current, err := h.deps.Library.Schools.Settings(r.Context(), p["schoolId"])
		if err != nil {
			writeError(w, r, err)
			return
		}
		set.LoanHistoryDays = current.Settings.LoanHistoryDays
		set.ChargeSettings = current.Settings.ChargeSettings
	}
	if req.LoanHistoryDays != nil {
		set.LoanHistoryDays = *req.LoanHistoryDays
	}
	req.applyChargeSettings(&set.ChargeSettings)
	s, err := h.deps.Library.Schools.PutSettings(r.Context(), p["schoolId"], set)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("library settings changed", "school_id", s.ID)
	writeJSON(w, http.StatusOK, toSettingsBody(s))
}

func (h *handler) getCalendar(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	s, err := h.deps.Library.Schools.Calendar(r.Context(), p["schoolId"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toCalendarBody(s))
}

// calendarRequest is a whole calendar: PUT replaces it, so every list must
// be sent (empty to clear it).
type calendarRequest struct {
	ClosedWeekdays []string      `json:"closed_weekdays" validate:"required"`
	Closures       []closureBody `json:"closures" validate:"required"`
	TermEnds       []string      `json:"term_ends" validate:"required"`
}

func (h *handler) putCalendar(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req calendarRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	in := service.CalendarInput{ClosedWeekdays: req.ClosedWeekdays, TermEnds: req.TermEnds}
	for _, c := range req.Closures {
		in.Closures = append(in.Closures, library.Closure(c))
	}
	s, err := h.deps.Library.Schools.PutCalendar(r.Context(), p["schoolId"], in)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("library calendar changed", "school_id", s.ID)
	writeJSON(w, http.StatusOK, toCalendarBody(s))
}

type catalogBook struct {
	ID              string `json:"id"`
	ISBN            string `json:"isbn"`
	Title           string `json:"title"`
	Author          string `json:"author"`
	CoverURL        string `json:"cover_url"`
	TotalCopies     int    `json:"total_copies"`
	AvailableCopies int    `json:"available_copies"`
	Holds           int    `json:"holds"`
	// LoanCategory tells readers a reference book is not lent.
	LoanCategory string `json:"loan_category"`
}

func (h *handler) publicCatalog(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "page", "limit", "search")
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, service.DefaultListLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Catalog.Page(r.Context(), mux.Vars(r)["domain"], service.ListQuery{Page: page, Limit: limit, Search: p["search"]})
	if err != nil {
		writeError(w, r, err)
		return
	}
	books := make([]catalogBook, 0, len(res.Entries))
	for _, e := range res.Entries {
		b := e.Book
		books = append(books, catalogBook{ID: b.ID, ISBN: b.ISBN, Title: b.Title, Author: b.Author, CoverURL: b.CoverURL,
			TotalCopies: e.Total, AvailableCopies: e.Available, Holds: e.Holds, LoanCategory: library.BookCategory(b)})
	}
	school := res.School
	writeJSON(w, http.StatusOK, map[string]any{
		"school":     map[string]string{"id": school.ID, "name": school.Name, "domain": school.Domain},
		"settings":   map[string]int{"default_loan_days": school.Settings.DefaultLoanDays, "max_renewals": school.Settings.MaxRenewals, "renewal_days": school.Settings.RenewalDays},
		"books":      books,
		"pagination": pagination{Page: res.Page, Limit: res.Limit, Total: int64(res.Total), TotalPages: catalog.TotalPages(int64(res.Total), res.Limit)},
	})
}
