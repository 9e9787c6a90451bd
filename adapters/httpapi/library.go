package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
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
	SRUEndpoint        string `json:"sru_endpoint"`
	ReadingLevelCheck  string `json:"reading_level_check"`
	chargeSettingsBody
}

func toSettingsBody(s library.School) settingsBody {
	set := s.Settings.WithCapDefaults()
	return settingsBody{SchoolID: s.ID, DefaultLoanDays: set.DefaultLoanDays, MaxRenewals: set.MaxRenewals,
		RenewalDays: set.RenewalDays, AllowPublicCatalog: set.AllowPublicCatalog,
		MaxCopiesPerBook: set.MaxCopiesPerBook, MaxCopiesPerSchool: set.MaxCopiesPerSchool, LoanHistoryDays: set.LoanHistoryDays,
		Timezone: set.Zone(), HoldPickupDays: set.HoldPickupDays, SRUEndpoint: set.CatalogEndpoint, ReadingLevelCheck: set.ReadingCheck(),
		chargeSettingsBody: toChargeSettingsBody(set.ChargeSettings)}
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
	return calendarBody{SchoolID: s.ID, ClosedWeekdays: c.ClosedWeekdayNames(),
		Closures: mapSlice(c.Closures, func(cl library.Closure) closureBody { return closureBody(cl) }),
		TermEnds: append([]string{}, c.TermEnds...)}
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
	ExternalID    string `json:"external_id"`
	Inactive      bool   `json:"inactive"`
	SchoolID      string `json:"school_id"`
	CreatedAt     string `json:"created_at"`
}

func toStudentBody(a user.Account) studentBody {
	return studentBody{StudentID: a.ID, Name: a.Name, Email: a.Email, StudentNumber: a.StudentNumber, Grade: a.Grade,
		Homeroom: a.Homeroom, ExternalID: a.ExternalID, Inactive: a.Inactive, SchoolID: a.SchoolID, CreatedAt: timestamp(a.CreatedAt)}
}

type libraryBookBody struct {
	ID       string `json:"id"`
	SchoolID string `json:"school_id"`
	bookCopiesBody
	PriceCents   int64  `json:"price_cents"`
	LoanCategory string `json:"loan_category"`
	bookDetailsBody
}

// bookCopiesBody is a book with its copy counts, in the staff's and the
// public catalog's books alike.
type bookCopiesBody struct {
	ISBN            string `json:"isbn"`
	Title           string `json:"title"`
	Author          string `json:"author"`
	CoverURL        string `json:"cover_url"`
	TotalCopies     int    `json:"total_copies"`
	AvailableCopies int    `json:"available_copies"`
}

func toBookCopiesBody(e service.CatalogEntry) bookCopiesBody {
	b := e.Book
	return bookCopiesBody{ISBN: b.ISBN, Title: b.Title, Author: b.Author, CoverURL: b.CoverURL, TotalCopies: e.Total, AvailableCopies: e.Available}
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
	return mapSlice(cs, func(c library.Copy) copyBody { return toCopyBody(c, false) })
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

// ----- schools and accounts (admins) -----

type createSchoolRequest struct {
	Name   string `json:"name" validate:"required"`
	Domain string `json:"domain" validate:"required"`
}

func (h *handler) createSchool(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[createSchoolRequest](w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.Create(r.Context(), req.Name, req.Domain)
	respond(w, r, http.StatusCreated, schoolReply{School: toSchoolBody(s)}, err)
}

func (h *handler) listSchools(w http.ResponseWriter, r *http.Request) {
	schools, err := h.deps.Library.Schools.List(r.Context())
	respond(w, r, http.StatusOK, schoolsReply{Schools: mapSlice(schools, toSchoolBody)}, err)
}

type updateUserRequest struct {
	Tier *string `json:"tier" validate:"omitnil,oneof=standard premium"`
	Role *string `json:"role" validate:"omitnil,oneof=admin staff librarian student reader"`
}

func (h *handler) updateUser(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[updateUserRequest](w, r)
	if !ok {
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
	a, err := h.deps.Library.Staff.UpdateUser(r.Context(), pathID(r), tier, role)
	if err == nil {
		httpedge.Logger(r).Info("account changed by an admin", "account_id", a.ID, "role", a.Role, "tier", a.Tier)
	}
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}

func (h *handler) listAccounts(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	accts, err := h.deps.Library.Staff.Accounts(r.Context(), school)
	respond(w, r, http.StatusOK, accountsReply{Accounts: mapSlice(accts, toAccountBody)}, err)
}

type inviteRequest struct {
	Email    string  `json:"email" validate:"required"`
	SchoolID string  `json:"school_id" validate:"required"`
	Password *string `json:"password" validate:"omitnil,min=1"` // left out: the account gets an invitation token
	Role     *string `json:"role" validate:"omitnil,oneof=librarian staff"`
}

func (h *handler) invite(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[inviteRequest](w, r)
	if !ok {
		return
	}
	a, token, err := h.deps.Library.Staff.Invite(r.Context(), req.Email, req.SchoolID, deref(req.Password), user.Role(deref(req.Role)))
	if err == nil {
		httpedge.Logger(r).Info("staff account invited", "account_id", a.ID, "school_id", a.SchoolID, "role", a.Role)
	}
	body := inviteReply{Account: toAccountBody(a)}
	if token != "" {
		body.InviteToken, body.InviteExpiresIn = token, int(service.InviteTTL.Seconds())
	}
	respond(w, r, http.StatusCreated, body, err)
}

type acceptInviteRequest struct {
	Token    string `json:"token" validate:"required"`
	Password string `json:"password" validate:"required"`
}

func (h *handler) acceptInvite(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[acceptInviteRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Staff.AcceptInvite(r.Context(), req.Token, req.Password)
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}

type manageRequest struct {
	AccountID string `json:"account_id" validate:"required"`
	Suspended *bool  `json:"suspended" validate:"required"`
}

func (h *handler) manageAccount(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[manageRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Staff.ManageAccount(r.Context(), "", req.AccountID, *req.Suspended)
	if err == nil {
		httpedge.Logger(r).Info("account suspension changed", "account_id", a.ID, "suspended", a.Suspended)
	}
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}

func (h *handler) unlockAccount(w http.ResponseWriter, r *http.Request) {
	a, err := h.deps.Library.Staff.UnlockSignIn(r.Context(), "", pathID(r))
	if err == nil {
		httpedge.Logger(r).Info("sign-in lock lifted", "account_id", a.ID)
	}
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
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
	req, ok := decodeBody[studentRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Students.Create(r.Context(), req.SchoolID, service.StudentInput{
		Name: req.Name, Email: req.Email, Password: deref(req.Password), StudentNumber: req.StudentNumber,
		Grade: req.Grade, Homeroom: req.Homeroom,
	})
	respond(w, r, http.StatusCreated, studentReply{Student: toStudentBody(a)}, err)
}

func (h *handler) listStudents(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"search", "homeroom"}, func(p map[string]string, q service.ListQuery) (any, error) {
		res, err := h.deps.Library.Students.Search(r.Context(), p["schoolId"], p["homeroom"], q)
		return studentsPageReply{Students: mapSlice(res.Students, toStudentBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
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
	req, ok := decodeBody[studentChangeRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Students.Update(r.Context(), req.SchoolID, pathID(r),
		service.StudentChanges{Name: req.Name, Grade: req.Grade, Homeroom: req.Homeroom})
	respond(w, r, http.StatusOK, studentReply{Student: toStudentBody(a)}, err)
}

// importStudents takes a text/csv body (name, email, student_number,
// grade, homeroom).
func (h *handler) importStudents(w http.ResponseWriter, r *http.Request) {
	school, file, ok := h.schoolAndFile(w, r)
	if !ok {
		return
	}
	defer file.Release()
	students, err := h.deps.Library.Students.Import(r.Context(), school, file)
	respond(w, r, http.StatusCreated, studentsImportedReply{Imported: len(students), Students: mapSlice(students, toStudentBody)}, err)
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
	req, ok := decodeBody[libraryBookRequest](w, r)
	if !ok {
		return
	}
	category, err := optionalCategory(req.LoanCategory)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	// A book with an ISBN but no title or author is filled from the
	// school's catalogue server, as the desk's lookup does.
	b, copies, err := h.deps.Library.Cataloguing.AddBook(r.Context(), req.SchoolID, library.BookDraft{
		Title: req.Title, Author: req.Author, ISBN: req.ISBN, CoverURL: req.CoverURL, Copies: req.Copies, PriceCents: req.PriceCents,
		LoanCategory: category, BookDetails: req.bookDetailsRequest.apply(library.BookDetails{}),
	})
	respond(w, r, http.StatusCreated, bookAddedReply{
		Book:   toLibraryBookBody(service.CatalogEntry{Book: b, Total: len(copies), Available: len(copies)}),
		Copies: toCopyBodies(copies),
	}, err)
}

type copiesRequest struct {
	SchoolID string `json:"school_id"`
	BookID   string `json:"book_id" validate:"required"`
	Count    int    `json:"count" validate:"min=1"`
}

func (h *handler) addCopies(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[copiesRequest](w, r)
	if !ok {
		return
	}
	b, copies, err := h.deps.Library.Holdings.AddCopies(r.Context(), req.SchoolID, req.BookID, req.Count)
	respond(w, r, http.StatusCreated, copiesAddedReply{BookID: b.ID, Copies: toCopyBodies(copies)}, err)
}

func (h *handler) copyByCode(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "code", "schoolId")
	if !ok {
		return
	}
	if p["code"] == "" {
		httpedge.WriteError(w, r, errs.InvalidField("code", "is required"))
		return
	}
	found, err := h.deps.Library.Holdings.CopyByCode(r.Context(), p["schoolId"], p["code"])
	var loan *loanBody
	if found.Loan != nil {
		lb := toLoanBody(*found.Loan)
		loan = &lb
	}
	b := found.Book
	respond(w, r, http.StatusOK, copyFoundReply{
		Copy: toCopyBody(found.Copy, found.Loan != nil),
		Book: copyBookBody{ID: b.ID, ISBN: b.ISBN, Title: b.Title, Author: b.Author, CoverURL: b.CoverURL},
		Loan: loan,
	}, err)
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
	req, ok := decodeBody[loanRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Circulation.CreateLoan(r.Context(), service.LoanInput{
		SchoolID: req.SchoolID, BookID: req.BookID, CopyID: req.CopyID, StudentID: req.StudentID, DueAt: deref(req.DueAt),
	})
	if err == nil && len(v.Warnings) > 0 {
		httpedge.Logger(r).Info("loan made with warnings", "loan_id", v.Loan.ID, "warning", v.Warnings[0].Code)
	}
	respond(w, r, http.StatusCreated, loanMadeReply{Loan: toLoanBody(v), Warnings: mapSlice(v.Warnings, toWarningBody)}, err)
}

// warningBody is a note on a request that succeeded (a check-out outside
// the student's reading range); warnings is [] when there are none.
type warningBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func toWarningBody(w service.Warning) warningBody {
	return warningBody{Code: w.Code, Message: w.Message}
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
	req, ok := decodeBody[loanActionRequest](w, r)
	if !ok {
		return
	}
	if req.Damaged != nil && req.Action != "return" {
		httpedge.WriteError(w, r, errs.InvalidField("damaged", "is only for the return action"))
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
		v, err = c.EndLoan(r.Context(), "", req.LoanID, req.Action)
	}
	respond(w, r, http.StatusOK, loanReply{Loan: toLoanBody(v)}, err)
}

// pagedList reads the query of a paged list of the school's objects (the
// filters named, schoolId, page and limit; search when it is a filter)
// and answers the body list makes of the page.
func pagedList(w http.ResponseWriter, r *http.Request, filters []string,
	list func(p map[string]string, q service.ListQuery) (body any, err error)) {
	p, q, ok := pageQuery(w, r, service.DefaultListLimit, append([]string{"schoolId"}, filters...)...)
	if !ok {
		return
	}
	body, err := list(p, q)
	respond(w, r, http.StatusOK, body, err)
}

func (h *handler) listLoans(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"status", "student_id", "book_id", "homeroom"}, func(p map[string]string, q service.ListQuery) (any, error) {
		res, err := h.deps.Library.Circulation.LoansPage(r.Context(), p["schoolId"],
			service.LoanFilter{Status: p["status"], StudentID: p["student_id"], BookID: p["book_id"], Homeroom: p["homeroom"]}, q)
		loans := mapSlice(res.Loans, toLoanBody)
		for i, v := range res.Loans {
			if st, ok := res.Borrowers[v.Loan.StudentID]; ok {
				loans[i].Student = &loanStudent{Name: st.Name, StudentNumber: st.StudentNumber, Grade: st.Grade, Homeroom: st.Homeroom}
			}
		}
		return loansPageReply{Loans: loans, Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

func (h *handler) studentLoans(w http.ResponseWriter, r *http.Request) {
	loans, err := h.deps.Library.Circulation.StudentLoans(r.Context())
	respond(w, r, http.StatusOK, loansReply{Loans: mapSlice(loans, toLoanBody)}, err)
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

func toHoldBody(v service.HoldView) holdBody {
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
	return b
}

type holdRequest struct {
	SchoolID  string `json:"school_id"`
	BookID    string `json:"book_id" validate:"required"`
	StudentID string `json:"student_id"`
}

func (h *handler) placeHold(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[holdRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Holds.Place(r.Context(), service.HoldInput{SchoolID: req.SchoolID, BookID: req.BookID, StudentID: req.StudentID})
	respond(w, r, http.StatusCreated, holdReply{Hold: toHoldBody(v)}, err)
}

func (h *handler) cancelHold(w http.ResponseWriter, r *http.Request) {
	v, err := h.deps.Library.Holds.Cancel(r.Context(), "", mux.Vars(r)["hold_id"])
	respond(w, r, http.StatusOK, holdReply{Hold: toHoldBody(v)}, err)
}

func (h *handler) listHolds(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"status", "book_id"}, func(p map[string]string, q service.ListQuery) (any, error) {
		res, err := h.deps.Library.Holds.Queue(r.Context(), p["schoolId"], service.HoldFilter{Status: p["status"], BookID: p["book_id"]}, q)
		return holdsPageReply{Holds: mapSlice(res.Holds, toHoldBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

func (h *handler) studentHolds(w http.ResponseWriter, r *http.Request) {
	holds, err := h.deps.Library.Holds.StudentHolds(r.Context())
	respond(w, r, http.StatusOK, holdsReply{Holds: mapSlice(holds, toHoldBody)}, err)
}

// ----- settings and the public catalog -----

func (h *handler) getSettings(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.Settings(r.Context(), school)
	respond(w, r, http.StatusOK, toSettingsBody(s), err)
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
	// Left out, the school keeps its catalogue server; "" turns lookups
	// off.
	SRUEndpoint *string `json:"sru_endpoint"`
	// Left out, the school keeps its reading-level check.
	ReadingLevelCheck *string `json:"reading_level_check"`
	// The charge settings are optional too; left out, each is kept.
	Currency             *string `json:"currency" validate:"omitnil,len=3,alpha,uppercase"`
	ReplacementCostCents *int64  `json:"replacement_cost_cents" validate:"omitnil,min=0,max=100000000"`
	BlockOverdueItems    *int    `json:"block_overdue_items" validate:"omitnil,min=0,max=1000"`
	BlockChargesCents    *int64  `json:"block_charges_cents" validate:"omitnil,min=0,max=100000000"`
}

// change is the request as a settings change: what it leaves out, the
// school keeps.
func (req settingsRequest) change() library.SettingsChange {
	return library.SettingsChange{
		DefaultLoanDays: req.DefaultLoanDays, MaxRenewals: req.MaxRenewals, RenewalDays: req.RenewalDays, AllowPublicCatalog: req.AllowPublicCatalog,
		MaxCopiesPerBook: req.MaxCopiesPerBook, MaxCopiesPerSchool: req.MaxCopiesPerSchool, LoanHistoryDays: req.LoanHistoryDays,
		Timezone: req.Timezone, HoldPickupDays: req.HoldPickupDays, CatalogEndpoint: req.SRUEndpoint, ReadingLevelCheck: req.ReadingLevelCheck,
		Currency: req.Currency, ReplacementCostCents: req.ReplacementCostCents, BlockOverdueItems: req.BlockOverdueItems, BlockChargesCents: req.BlockChargesCents,
	}
}

func (h *handler) putSettings(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[settingsRequest](w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.ChangeSettings(r.Context(), school, req.change())
	if err == nil {
		httpedge.Logger(r).Info("library settings changed", "school_id", s.ID)
	}
	respond(w, r, http.StatusOK, toSettingsBody(s), err)
}

func (h *handler) getCalendar(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.Calendar(r.Context(), school)
	respond(w, r, http.StatusOK, toCalendarBody(s), err)
}

// calendarRequest is a whole calendar: PUT replaces it, so every list must
// be sent (empty to clear it).
type calendarRequest struct {
	ClosedWeekdays []string      `json:"closed_weekdays" validate:"required"`
	Closures       []closureBody `json:"closures" validate:"required"`
	TermEnds       []string      `json:"term_ends" validate:"required"`
}

func (h *handler) putCalendar(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[calendarRequest](w, r)
	if !ok {
		return
	}
	in := service.CalendarInput{ClosedWeekdays: req.ClosedWeekdays, TermEnds: req.TermEnds}
	for _, c := range req.Closures {
		in.Closures = append(in.Closures, library.Closure(c))
	}
	s, err := h.deps.Library.Schools.PutCalendar(r.Context(), school, in)
	if err == nil {
		httpedge.Logger(r).Info("library calendar changed", "school_id", s.ID)
	}
	respond(w, r, http.StatusOK, toCalendarBody(s), err)
}

type catalogBook struct {
	ID string `json:"id"`
	bookCopiesBody
	Holds int `json:"holds"`
	// LoanCategory tells readers a reference book is not lent.
	LoanCategory string `json:"loan_category"`
}

func toCatalogBook(e service.CatalogEntry) catalogBook {
	return catalogBook{ID: e.Book.ID, bookCopiesBody: toBookCopiesBody(e), Holds: e.Holds, LoanCategory: library.BookCategory(e.Book)}
}

func (h *handler) publicCatalog(w http.ResponseWriter, r *http.Request) {
	_, q, ok := pageQuery(w, r, service.DefaultListLimit, "search")
	if !ok {
		return
	}
	res, err := h.deps.Library.Catalog.Page(r.Context(), mux.Vars(r)["domain"], q)
	school := res.School
	respond(w, r, http.StatusOK, publicCatalogReply{
		School: publicSchoolBody{ID: school.ID, Name: school.Name, Domain: school.Domain},
		Settings: publicLoanTermsBody{DefaultLoanDays: school.Settings.DefaultLoanDays, MaxRenewals: school.Settings.MaxRenewals,
			RenewalDays: school.Settings.RenewalDays},
		Books:      mapSlice(res.Entries, toCatalogBook),
		Pagination: pageOf(res.Page, res.Limit, res.Total),
	}, err)
}
