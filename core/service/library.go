package service

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Library serves the school library: schools, staff accounts, students,
// the school's books and copies, loans and settings, and the public catalog.
// Which roles may call a method is decided by the route's policy; which
// school's objects a caller reaches is decided here: a school-bound role only
// ever reaches its own school (naming another school is 403, an object of
// another school is 404), an admin names the school explicitly.
type Library struct {
	repo     ports.LibraryRepository
	schools  ports.SchoolRepository
	accounts ports.AccountRepository
	refresh  ports.RefreshTokenRepository
	identity *Identity

	// Now and NewID are replaceable in tests.
	Now   func() time.Time
	NewID func() string
}

// InviteTTL is how long an invitation can be redeemed.
const InviteTTL = 7 * 24 * time.Hour

// NewLibrary builds the library service. It panics on a nil dependency.
func NewLibrary(repos ports.Repositories, identity *Identity) *Library {
	if repos.Library == nil || repos.Schools == nil || repos.Accounts == nil || repos.RefreshTokens == nil || identity == nil {
		panic("service.NewLibrary: nil dependency")
	}
	return &Library{
		repo: repos.Library, schools: repos.Schools, accounts: repos.Accounts, refresh: repos.RefreshTokens,
		identity: identity, Now: time.Now, NewID: uuid.NewString,
	}
}

// today is the calendar day circulation dates are counted in (UTC).
func (s *Library) today() time.Time { return s.Now().UTC() }

// scope returns the school a request acts on. explicit is the school the
// client named (schoolId or school_id), field its name for errors.
// Errors: Forbidden (another school, or a role without one), Invalid (an
// admin without a school), NotFound "school_not_found".
func (s *Library) scope(ctx context.Context, explicit, field string) (library.School, error) {
	p := user.PrincipalFrom(ctx)
	switch {
	case p.Role == user.RoleAdmin:
		if explicit == "" {
			return library.School{}, errs.InvalidField(field, "is required for admins")
		}
		if _, err := uuid.Parse(explicit); err != nil {
			return library.School{}, library.ErrSchoolNotFound()
		}
		return s.schools.Get(ctx, explicit)
	case p.Role.SchoolBound() && p.SchoolID != "":
		if explicit != "" && explicit != p.SchoolID {
			return library.School{}, errs.E(errs.Forbidden, "forbidden", "You can only act on your own school.")
		}
		return s.schools.Get(ctx, p.SchoolID)
	}
	return library.School{}, errs.E(errs.Forbidden, "forbidden", "This account belongs to no school.")
}

// reachable reports whether the caller may reach objects of schoolID
// without naming it: admins reach every school, others their own.
func reachable(ctx context.Context, schoolID string) bool {
	p := user.PrincipalFrom(ctx)
	return p.Role == user.RoleAdmin || (p.SchoolID != "" && p.SchoolID == schoolID)
}

// ----- Schools and accounts (admins) -----

// CreateSchool adds a school with default settings.
// Errors: Invalid (name, domain), Conflict "school_exists".
func (s *Library) CreateSchool(ctx context.Context, name, domain string) (library.School, error) {
	school, err := library.NewSchool(s.NewID(), name, strings.ToLower(strings.TrimSpace(domain)), s.Now())
	if err != nil {
		return library.School{}, err
	}
	if err := s.schools.Create(ctx, school); err != nil {
		return library.School{}, err
	}
	return school, nil
}

// Schools lists every school.
func (s *Library) Schools(ctx context.Context) ([]library.School, error) { return s.schools.List(ctx) }

// targetAccount loads an account by its bare UUID. Errors: NotFound
// "account_not_found".
func (s *Library) targetAccount(ctx context.Context, id string) (user.Account, error) {
	if _, err := uuid.Parse(id); err != nil {
		return user.Account{}, user.ErrNotFound(id)
	}
	a, err := s.accounts.Get(ctx, id)
	if err == nil && a.Deleted {
		return user.Account{}, user.ErrNotFound(id)
	}
	return a, err
}

// UpdateUser changes an account's tier and role (admins). A school-bound
// role needs the account to have a school; admin and reader drop it.
// Errors: NotFound "account_not_found", Invalid, Conflict
// "cannot_change_own_role".
func (s *Library) UpdateUser(ctx context.Context, accountID string, tier *user.Tier, role *user.Role) (user.Account, error) {
	a, err := s.targetAccount(ctx, accountID)
	if err != nil {
		return user.Account{}, err
	}
	fields := errs.FieldErrors{}
	if tier != nil && !tier.Valid() {
		fields.Add("tier", "must be standard or premium")
	}
	if role != nil {
		switch {
		case !role.Valid():
			fields.Add("role", "must be one of admin, staff, librarian, student, reader")
		case role.SchoolBound() && a.SchoolID == "":
			fields.Add("role", "needs an account that belongs to a school")
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	if role != nil && a.ID == user.PrincipalFrom(ctx).AccountID && *role != a.Role {
		return user.Account{}, errs.E(errs.Conflict, "cannot_change_own_role", "You cannot change your own role.")
	}
	if tier != nil {
		a.Tier = *tier
	}
	if role != nil {
		a.Role = *role
		if !a.Role.SchoolBound() {
			a.SchoolID = ""
		}
	}
	a.UpdatedAt = s.Now().UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		return user.Account{}, err
	}
	return a, nil
}

// StaffAccounts lists the librarian and staff accounts of a school.
// Errors: as scope.
func (s *Library) StaffAccounts(ctx context.Context, schoolParam string) ([]user.Account, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	all, err := s.accounts.ListBySchool(ctx, school.ID)
	if err != nil {
		return nil, err
	}
	out := []user.Account{}
	for _, a := range all {
		if !a.Deleted && (a.Role == user.RoleLibrarian || a.Role == user.RoleStaff) {
			out = append(out, a)
		}
	}
	return out, nil
}

// Invite creates a librarian (or staff) account for a school. Without a
// password it also returns a single-use token, valid for InviteTTL, that
// the person redeems with AcceptInvite to choose a password.
// Errors: Invalid, NotFound "school_not_found", Conflict "account_exists".
func (s *Library) Invite(ctx context.Context, email, schoolID, password string, role user.Role) (user.Account, string, error) {
	if role == "" {
		role = user.RoleLibrarian
	}
	fields := errs.FieldErrors{}
	if role != user.RoleLibrarian && role != user.RoleStaff {
		fields.Add("role", "must be librarian or staff")
	}
	if _, err := uuid.Parse(schoolID); err != nil {
		fields.Add("school_id", "must be a UUID")
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, "", err
	}
	if _, err := s.schools.Get(ctx, schoolID); err != nil {
		return user.Account{}, "", err
	}
	name := strings.SplitN(user.NormalizeEmail(email), "@", 2)[0]
	if password != "" {
		a, err := s.identity.CreateAccount(ctx, NewAccountInput{Email: email, Password: password, Name: name, Role: role, SchoolID: schoolID})
		return a, "", err
	}
	a, err := user.NewAccount(user.NewAccountParams{ID: s.NewID(), Email: email, Name: name, Role: role, SchoolID: schoolID, Now: s.Now()})
	if err != nil {
		return user.Account{}, "", err
	}
	token, err := newSecret()
	if err != nil {
		return user.Account{}, "", errs.Wrap(err, "generate invite token")
	}
	// The invitation first: an account without one would be unusable.
	now := s.Now().UTC()
	if err := s.repo.CreateInvite(ctx, library.Invite{TokenHash: auth.HashToken(token), AccountID: a.ID, ExpiresAt: now.Add(InviteTTL), CreatedAt: now}); err != nil {
		return user.Account{}, "", err
	}
	if err := s.accounts.Create(ctx, a); err != nil {
		return user.Account{}, "", err
	}
	return a, token, nil
}

// AcceptInvite sets the password of an invited account; each token works
// once. Errors: Invalid (password), NotFound "invite_not_found" (unknown or
// expired), Conflict "invite_used".
func (s *Library) AcceptInvite(ctx context.Context, token, password string) (user.Account, error) {
	if msg := user.ValidatePassword(password); msg != "" {
		return user.Account{}, errs.InvalidField("password", msg)
	}
	hash := auth.HashToken(token)
	inv, err := s.repo.Invite(ctx, hash)
	if err != nil {
		return user.Account{}, err
	}
	now := s.Now()
	if !now.Before(inv.ExpiresAt) {
		return user.Account{}, errs.E(errs.NotFound, "invite_not_found", "The invitation does not exist or has expired.")
	}
	a, err := s.targetAccount(ctx, inv.AccountID)
	if err != nil {
		return user.Account{}, err
	}
	// Hash before redeeming, so a failure here leaves the token usable.
	h, err := s.identity.hasher.Hash(password)
	if err != nil {
		return user.Account{}, errs.Wrap(err, "hash password")
	}
	if err := s.repo.RedeemInvite(ctx, hash, now); err != nil {
		return user.Account{}, err
	}
	a.PasswordHash = h
	a.UpdatedAt = now.UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		return user.Account{}, err
	}
	return a, nil
}

// ManageAccount suspends or unsuspends an account. Suspending ends its
// refresh tokens; its access token is refused on the next request because
// every request reads the account.
// Errors: NotFound "account_not_found", Conflict "cannot_suspend_self".
func (s *Library) ManageAccount(ctx context.Context, accountID string, suspended bool) (user.Account, error) {
	a, err := s.targetAccount(ctx, accountID)
	if err != nil {
		return user.Account{}, err
	}
	if a.ID == user.PrincipalFrom(ctx).AccountID && suspended {
		return user.Account{}, errs.E(errs.Conflict, "cannot_suspend_self", "You cannot suspend your own account.")
	}
	a.Suspended = suspended
	a.UpdatedAt = s.Now().UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		return user.Account{}, err
	}
	if suspended {
		if err := s.refresh.DeleteByAccount(ctx, a.ID); err != nil {
			return user.Account{}, err
		}
	}
	return a, nil
}

// ----- Students -----

// StudentInput describes a student to add.
type StudentInput struct {
	Name, Email, Password, StudentNumber string
}

// CreateStudent adds a student to the caller's school (admins name it).
// Errors: Invalid, Conflict "account_exists" or "student_number_exists".
func (s *Library) CreateStudent(ctx context.Context, schoolParam string, in StudentInput) (user.Account, error) {
	school, err := s.scope(ctx, schoolParam, "school_id")
	if err != nil {
		return user.Account{}, err
	}
	fields := library.ValidateStudent(library.StudentDraft{Name: in.Name, Email: in.Email, StudentNumber: in.StudentNumber})
	if in.Password != "" {
		if msg := user.ValidatePassword(in.Password); msg != "" {
			fields.Add("password", msg)
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	return s.createStudent(ctx, school.ID, in)
}

func (s *Library) createStudent(ctx context.Context, schoolID string, in StudentInput) (user.Account, error) {
	a, err := user.NewAccount(user.NewAccountParams{ID: s.NewID(), Email: in.Email, Name: in.Name, Role: user.RoleStudent, SchoolID: schoolID, Now: s.Now()})
	if err != nil {
		return user.Account{}, err
	}
	a.StudentNumber = strings.TrimSpace(in.StudentNumber)
	if in.Password != "" {
		if a.PasswordHash, err = s.identity.hasher.Hash(in.Password); err != nil {
			return user.Account{}, errs.Wrap(err, "hash password")
		}
	}
	// The number first: a unique-key insert that makes two students with
	// one number impossible even when they are added at the same moment.
	if a.StudentNumber != "" {
		if err := s.repo.ClaimStudentNumber(ctx, schoolID, a.StudentNumber, a.ID); err != nil {
			return user.Account{}, err
		}
	}
	if err := s.accounts.Create(ctx, a); err != nil {
		if a.StudentNumber != "" {
			// Give the number back: the account it was claimed for does not exist.
			_ = s.repo.ForgetAccount(ctx, a.ID)
		}
		return user.Account{}, err
	}
	return a, nil
}

// Students lists the school's students, filtered by a search text matched
// against the start of a name word, the email or the student number.
func (s *Library) Students(ctx context.Context, schoolParam, search string) ([]user.Account, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	all, err := s.accounts.ListBySchool(ctx, school.ID)
	if err != nil {
		return nil, err
	}
	terms := catalog.QueryTerms(search)
	whole := strings.ToLower(strings.TrimSpace(search)) // numbers like "A-10" are one token
	out := []user.Account{}
	for _, a := range all {
		if a.Role != user.RoleStudent || a.Deleted {
			continue
		}
		byNumber := whole != "" && strings.HasPrefix(strings.ToLower(a.StudentNumber), whole)
		if len(terms) == 0 || byNumber || matchesStudent(a, terms) {
			out = append(out, a)
		}
	}
	return out, nil
}

func matchesStudent(a user.Account, terms []string) bool {
	have := catalog.SearchTerms(a.Name)
	for _, t := range terms {
		if !strings.HasPrefix(strings.ToLower(a.StudentNumber), t) && !strings.HasPrefix(a.Email, t) && !containsTerm(have, t) {
			return false
		}
	}
	return true
}

func containsTerm(have []string, t string) bool {
	for _, h := range have {
		if h == t {
			return true
		}
	}
	return false
}

// ImportStudents adds every student of a CSV file, or none: a file with a
// bad row (including an email that already has an account or a number the
// school already uses) is refused whole, with every problem and its line.
// Errors: Invalid with details.lines.
func (s *Library) ImportStudents(ctx context.Context, schoolParam string, data []byte) ([]user.Account, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	drafts, lineErrs := library.ParseStudentsCSV(data)
	if len(lineErrs) == 0 {
		existing, err := s.accounts.ListBySchool(ctx, school.ID)
		if err != nil {
			return nil, err
		}
		numbers := map[string]bool{}
		for _, a := range existing {
			if a.StudentNumber != "" {
				numbers[strings.ToLower(a.StudentNumber)] = true
			}
		}
		for _, d := range drafts {
			if d.StudentNumber != "" && numbers[strings.ToLower(d.StudentNumber)] {
				lineErrs = append(lineErrs, library.LineError{Line: d.Line, Field: "student_number", Message: "is already used in this school"})
			}
			if d.Email != "" {
				if _, err := s.accounts.GetByEmail(ctx, user.NormalizeEmail(d.Email)); err == nil {
					lineErrs = append(lineErrs, library.LineError{Line: d.Line, Field: "email", Message: "already has an account"})
				} else if !errs.Is(err, errs.NotFound) {
					return nil, err
				}
			}
		}
	}
	if len(lineErrs) > 0 {
		lines := make([]map[string]any, 0, len(lineErrs))
		for _, le := range lineErrs {
			lines = append(lines, map[string]any{"line": le.Line, "field": le.Field, "message": le.Message})
		}
		e := errs.E(errs.Invalid, "validation_failed", "The file has %d problem(s); no student was added.", len(lineErrs))
		e.Details = map[string]any{"lines": lines}
		return nil, e
	}
	out := make([]user.Account, 0, len(drafts))
	for _, d := range drafts {
		a, err := s.createStudent(ctx, school.ID, StudentInput{Name: d.Name, Email: d.Email, StudentNumber: d.StudentNumber})
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
	return out, nil
}

// ----- Settings and the public catalog -----

// Settings returns a school's loan settings.
func (s *Library) Settings(ctx context.Context, schoolParam string) (library.School, error) {
	return s.scope(ctx, schoolParam, "schoolId")
}

// PutSettings replaces a school's loan settings.
// Errors: Invalid (each field), as scope.
func (s *Library) PutSettings(ctx context.Context, schoolParam string, set library.Settings) (library.School, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, err
	}
	if err := library.ValidateSettings(set); err != nil {
		return library.School{}, err
	}
	if err := s.repo.SaveSettings(ctx, school.ID, set); err != nil {
		return library.School{}, err
	}
	school.Settings = set
	return school, nil
}

// CatalogEntry is one book of a public catalog with its availability.
type CatalogEntry struct {
	Book      library.Book
	Total     int
	Available int
}

// CatalogQuery selects a page of a public catalog. Page counts from 1;
// Limit is 1..MaxCatalogLimit (DefaultCatalogLimit when a client names none).
type CatalogQuery struct {
	Page   int
	Limit  int
	Search string // title or author contains it, ignoring case; at most 100 characters
}

// Public catalog page sizes.
const (
	DefaultCatalogLimit = 50
	MaxCatalogLimit     = 100
)

// CatalogPage is one page of a school's public catalog.
type CatalogPage struct {
	School  library.School
	Entries []CatalogEntry
	Page    int
	Limit   int
	Total   int // books matching the query in all pages
}

// PublicCatalog returns one page of a school's catalog for anyone, with copy
// counts and nothing about borrowers. A private or unknown school is
// NotFound "school_not_found", the same answer for both. One page at a time,
// so the work and the database commands of a request do not grow with the
// catalog: the school, one page of books and their count, the copy counts
// and the open claims of those books only, and the loans behind those claims.
// Errors: NotFound "school_not_found" (unknown or private school), Invalid
// with details.fields for a page, limit or search out of range.
func (s *Library) PublicCatalog(ctx context.Context, domain string, q CatalogQuery) (CatalogPage, error) {
	fields := errs.FieldErrors{}
	if q.Page < 1 || q.Page > 100000 {
		fields["page"] = "must be between 1 and 100000"
	}
	if q.Limit < 1 || q.Limit > MaxCatalogLimit {
		fields["limit"] = fmt.Sprintf("must be between 1 and %d", MaxCatalogLimit)
	}
	q.Search = strings.TrimSpace(q.Search)
	if utf8.RuneCountInString(q.Search) > 100 {
		fields["search"] = "must be at most 100 characters"
	}
	if err := fields.Err(); err != nil {
		return CatalogPage{}, err
	}
	school, err := s.schools.GetByDomain(ctx, strings.ToLower(domain))
	if err != nil {
		return CatalogPage{}, err
	}
	if !school.Settings.AllowPublicCatalog {
		return CatalogPage{}, library.ErrSchoolNotFound()
	}
	books, total, err := s.repo.BooksPage(ctx, school.ID, q.Search, (q.Page-1)*q.Limit, q.Limit)
	if err != nil {
		return CatalogPage{}, err
	}
	ids := make([]string, len(books))
	for i, b := range books {
		ids[i] = b.ID
	}
	counts, err := s.repo.CopyCountsOf(ctx, school.ID, ids)
	if err != nil {
		return CatalogPage{}, err
	}
	claims, err := s.repo.ClaimsOfBooks(ctx, school.ID, ids)
	if err != nil {
		return CatalogPage{}, err
	}
	lent, err := s.lentByBook(ctx, claims)
	if err != nil {
		return CatalogPage{}, err
	}
	return CatalogPage{School: school, Page: q.Page, Limit: q.Limit, Total: total, Entries: catalogEntries(books, counts, lent)}, nil
}

// lentByBook counts the copies on loan per book among claims: those whose
// loan is still open (a claim left by an interrupted return does not count).
func (s *Library) lentByBook(ctx context.Context, claims []library.CopyClaim) (map[string]int, error) {
	active, err := s.activeClaims(ctx, claims)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, c := range active {
		out[c.BookID]++
	}
	return out, nil
}

// catalogEntries pairs books with their copies and copies on loan.
func catalogEntries(books []library.Book, copies, lent map[string]int) []CatalogEntry {
	out := make([]CatalogEntry, 0, len(books))
	for _, b := range books {
		out = append(out, CatalogEntry{Book: b, Total: copies[b.ID], Available: copies[b.ID] - lent[b.ID]})
	}
	return out
}

// activeClaims keeps the claims whose loan exists and is not returned.
func (s *Library) activeClaims(ctx context.Context, claims []library.CopyClaim) ([]library.CopyClaim, error) {
	ids := make([]string, 0, len(claims))
	for _, c := range claims {
		ids = append(ids, c.LoanID)
	}
	loans, err := s.repo.LoansByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	open := map[string]bool{}
	for _, l := range loans {
		if !l.Returned() {
			open[l.ID] = true
		}
	}
	out := claims[:0:0]
	for _, c := range claims {
		if open[c.LoanID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// ----- Books and copies -----

// AddBook adds a book to a school's catalog with copies copies.
// Errors: Invalid, Conflict "isbn_exists", as scope.
func (s *Library) AddBook(ctx context.Context, schoolParam string, d library.BookDraft) (library.Book, []library.Copy, error) {
	school, err := s.scope(ctx, schoolParam, "school_id")
	if err != nil {
		return library.Book{}, nil, err
	}
	if err := library.ValidateBookDraft(d); err != nil {
		return library.Book{}, nil, err
	}
	d = d.Normalized()
	b := library.Book{
		ID: s.NewID(), SchoolID: school.ID, ISBN: library.NormalizeISBN(d.ISBN), Title: d.Title,
		Author: d.Author, CoverURL: d.CoverURL, CreatedAt: s.Now().UTC(),
	}
	if err := s.repo.CreateBook(ctx, b); err != nil {
		return library.Book{}, nil, err
	}
	copies, err := s.makeCopies(ctx, b, d.Copies)
	return b, copies, err
}

// AddCopies generates count new copies of a book, each with a fresh code.
// Errors: Invalid (count), NotFound "book_not_found".
func (s *Library) AddCopies(ctx context.Context, schoolParam, bookID string, count int) (library.Book, []library.Copy, error) {
	if err := library.ValidateCopyCount(count); err != nil {
		return library.Book{}, nil, err
	}
	b, err := s.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return library.Book{}, nil, err
	}
	copies, err := s.makeCopies(ctx, b, count)
	return b, copies, err
}

// bookInScope finds a book the caller may reach. Admins may omit the school:
// the book's own school is then used.
func (s *Library) bookInScope(ctx context.Context, schoolParam, bookID string) (library.Book, error) {
	if _, err := uuid.Parse(bookID); err != nil {
		return library.Book{}, library.ErrBookNotFound()
	}
	p := user.PrincipalFrom(ctx)
	schoolID := p.SchoolID
	if p.Role == user.RoleAdmin {
		schoolID = schoolParam
		if schoolID == "" {
			return library.Book{}, errs.InvalidField("school_id", "is required for admins")
		}
	} else if schoolParam != "" && schoolParam != p.SchoolID {
		return library.Book{}, errs.E(errs.Forbidden, "forbidden", "You can only act on your own school.")
	}
	return s.repo.Book(ctx, schoolID, bookID)
}

// makeCopies draws random codes and stores the copies; a code that happens
// to exist already in the school (unique index) is drawn again, so codes
// never collide.
func (s *Library) makeCopies(ctx context.Context, b library.Book, n int) ([]library.Copy, error) {
	out := make([]library.Copy, 0, n)
	pending := make([]library.Copy, 0, n)
	for range n {
		pending = append(pending, library.Copy{ID: s.NewID(), SchoolID: b.SchoolID, BookID: b.ID, CreatedAt: s.Now().UTC()})
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == 10 {
			return out, errs.E(errs.Internal, "", "could not draw unique copy codes")
		}
		for i := range pending {
			code, err := library.NewCopyCode(rand.Reader)
			if err != nil {
				return out, errs.Wrap(err, "draw a copy code")
			}
			pending[i].Code = code
		}
		dups, err := s.repo.CreateCopies(ctx, pending)
		if err != nil {
			return out, err
		}
		taken := map[int]bool{}
		for _, i := range dups {
			taken[i] = true
		}
		var again []library.Copy
		for i, c := range pending {
			if taken[i] {
				again = append(again, c)
			} else {
				out = append(out, c)
			}
		}
		pending = again
	}
	return out, nil
}

// CopyLookup is what the desk scanner shows for a code.
type CopyLookup struct {
	Copy library.Copy
	Book library.Book
	Loan *LoanView // the active loan, if the copy is lent
}

// CopyByCode finds a copy of the caller's school by its printed code
// (accepting lowercase and missing dashes).
// Errors: NotFound "copy_not_found", as scope.
func (s *Library) CopyByCode(ctx context.Context, schoolParam, code string) (CopyLookup, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CopyLookup{}, err
	}
	if !library.ValidCopyCode(code) {
		return CopyLookup{}, library.ErrCopyNotFound()
	}
	c, err := s.repo.CopyByCode(ctx, school.ID, library.NormalizeCopyCode(code))
	if err != nil {
		return CopyLookup{}, err
	}
	b, err := s.repo.Book(ctx, school.ID, c.BookID)
	if err != nil {
		return CopyLookup{}, err
	}
	out := CopyLookup{Copy: c, Book: b}
	if l, ok, err := s.activeLoanOf(ctx, c.ID); err != nil {
		return CopyLookup{}, err
	} else if ok {
		views, err := s.views(ctx, []library.Loan{l})
		if err != nil {
			return CopyLookup{}, err
		}
		out.Loan = &views[0]
	}
	return out, nil
}

// CopyLabels is what a sheet of copy labels prints.
type CopyLabels struct {
	School library.School
	Book   library.Book
	Copies []library.Copy // ordered by code
}

// CopyLabels returns every copy of a book of the caller's school (admins
// name the school), lent or not, with the book and the school, to print
// their labels. A book without copies is NotFound rather than an empty
// sheet, so nobody feeds a sheet of labels to the printer for nothing.
// Errors: Invalid (book_id), NotFound "book_not_found", "copy_not_found"
// (no copies), as scope.
func (s *Library) CopyLabels(ctx context.Context, schoolParam, bookID string) (CopyLabels, error) {
	if bookID == "" {
		return CopyLabels{}, errs.InvalidField("book_id", "is required")
	}
	if _, err := uuid.Parse(bookID); err != nil {
		return CopyLabels{}, errs.InvalidField("book_id", "must be a UUID")
	}
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CopyLabels{}, err
	}
	b, err := s.repo.Book(ctx, school.ID, bookID)
	if err != nil {
		return CopyLabels{}, err
	}
	copies, err := s.repo.CopiesOfBook(ctx, school.ID, b.ID)
	if err != nil {
		return CopyLabels{}, err
	}
	if len(copies) == 0 {
		return CopyLabels{}, errs.E(errs.NotFound, "copy_not_found", "The book has no copies to label.")
	}
	return CopyLabels{School: school, Book: b, Copies: copies}, nil
}

// activeLoanOf returns the loan that holds a copy, if any.
func (s *Library) activeLoanOf(ctx context.Context, copyID string) (library.Loan, bool, error) {
	claim, err := s.repo.Claim(ctx, copyID)
	if errs.Is(err, errs.NotFound) {
		return library.Loan{}, false, nil
	}
	if err != nil {
		return library.Loan{}, false, err
	}
	loans, err := s.repo.LoansByID(ctx, []string{claim.LoanID})
	if err != nil {
		return library.Loan{}, false, err
	}
	if len(loans) == 0 || loans[0].Returned() {
		return library.Loan{}, false, nil // a stale claim: the copy is free
	}
	return loans[0], true, nil
}
