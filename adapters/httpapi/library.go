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
	chargeSettingsBody
}

func toSettingsBody(s library.School) settingsBody {
	set := s.Settings.WithCapDefaults()
	return settingsBody{SchoolID: s.ID, DefaultLoanDays: set.DefaultLoanDays, MaxRenewals: set.MaxRenewals,
		RenewalDays: set.RenewalDays, AllowPublicCatalog: set.AllowPublicCatalog,
		MaxCopiesPerBook: set.MaxCopiesPerBook, MaxCopiesPerSchool: set.MaxCopiesPerSchool, LoanHistoryDays: set.LoanHistoryDays,
		chargeSettingsBody: toChargeSettingsBody(set.ChargeSettings)}
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
	SchoolID      string `json:"school_id"`
	CreatedAt     string `json:"created_at"`
}

func toStudentBody(a user.Account) studentBody {
	return studentBody{StudentID: a.ID, Name: a.Name, Email: a.Email, StudentNumber: a.StudentNumber, SchoolID: a.SchoolID, CreatedAt: timestamp(a.CreatedAt)}
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
}

type loanBook struct {
	Title  string `json:"title"`
	Author string `json:"author"`
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
}

func (h *handler) createStudent(w http.ResponseWriter, r *http.Request) {
	var req studentRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	a, err := h.deps.Library.Students.Create(r.Context(), req.SchoolID, service.StudentInput{
		Name: req.Name, Email: req.Email, Password: deref(req.Password), StudentNumber: req.StudentNumber,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"student": toStudentBody(a)})
}

func (h *handler) listStudents(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId", "search", "page", "limit")
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, service.DefaultListLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Students.Search(r.Context(), p["schoolId"], service.ListQuery{Page: page, Limit: limit, Search: p["search"]})
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

// importStudents takes a text/csv body (name, email, student_number).
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
}

func (h *handler) addLibraryBook(w http.ResponseWriter, r *http.Request) {
	var req libraryBookRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	b, copies, err := h.deps.Library.Holdings.AddBook(r.Context(), req.SchoolID, library.BookDraft{
		Title: req.Title, Author: req.Author, ISBN: req.ISBN, CoverURL: req.CoverURL, Copies: req.Copies, PriceCents: req.PriceCents,
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"book": libraryBookBody{ID: b.ID, SchoolID: b.SchoolID, ISBN: b.ISBN, Title: b.Title, Author: b.Author, CoverURL: b.CoverURL,
			TotalCopies: len(copies), AvailableCopies: len(copies), PriceCents: b.PriceCents},
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
	writeJSON(w, http.StatusCreated, map[string]any{"loan": toLoanBody(v)})
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

func (h *handler) listLoans(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId", "status", "student_id", "book_id", "page", "limit")
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, service.DefaultListLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Circulation.LoansPage(r.Context(), p["schoolId"],
		service.LoanFilter{Status: p["status"], StudentID: p["student_id"], BookID: p["book_id"]}, service.ListQuery{Page: page, Limit: limit})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"loans":      toLoanBodies(res.Loans),
		"pagination": pagination{Page: res.Page, Limit: res.Limit, Total: int64(res.Total), TotalPages: catalog.TotalPages(int64(res.Total), res.Limit)},
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

type catalogBook struct {
	ID              string `json:"id"`
	ISBN            string `json:"isbn"`
	Title           string `json:"title"`
	Author          string `json:"author"`
	CoverURL        string `json:"cover_url"`
	TotalCopies     int    `json:"total_copies"`
	AvailableCopies int    `json:"available_copies"`
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
			TotalCopies: e.Total, AvailableCopies: e.Available})
	}
	school := res.School
	writeJSON(w, http.StatusOK, map[string]any{
		"school":     map[string]string{"id": school.ID, "name": school.Name, "domain": school.Domain},
		"settings":   map[string]int{"default_loan_days": school.Settings.DefaultLoanDays, "max_renewals": school.Settings.MaxRenewals, "renewal_days": school.Settings.RenewalDays},
		"books":      books,
		"pagination": pagination{Page: res.Page, Limit: res.Limit, Total: int64(res.Total), TotalPages: catalog.TotalPages(int64(res.Total), res.Limit)},
	})
}
