package users

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Users serves profiles, preferences, statistics, data export and
// permanent deletion. Route-level permissions are checked before a method
// runs; which other accounts a caller may see is decided here, through the
// same policies.
type Users struct {
	accounts ports.AccountRepository
	refresh  ports.RefreshTokenRepository
	lists    ports.ReadingListRepository
	progress ports.ProgressRepository
	books    ports.BookRepository
	students ports.StudentRepository
	invites  ports.InviteRepository
	// departures record each deletion of a student while it runs
	// (DeleteMe), which a racing loan settles with (Circulation).
	departures ports.DepartureRepository
	mail       ports.MailTokenRepository
	links      ports.ExternalIdentityRepository
	// notices name the student's address; they go with the account.
	notices    ports.NoticeRepository
	charges    ports.ChargeRepository
	loanReader circulation.LoanReader
	loans      ports.LoanRepository
	holds      ports.HoldRepository
	// wants is the student's want-to-read list; it goes with the account.
	wants ports.WantToReadRepository
	// reviews are the student's reviews; they go with the account.
	reviews ports.ReviewRepository
	// finished are the student's returned loans marked as books read:
	// their statistics count them, and they go with the account.
	finished ports.FinishedLoanRepository
	// holdings and appLinks find the works read both in the app and from
	// the library.
	holdings ports.HoldingsRepository
	appLinks ports.AppLinkRepository
	// schools give a student's loans their school's today.
	schools ports.SchoolRepository
	// desk cancels a leaving student's open holds, passing their copies
	// on.
	desk  *circulation.HoldDesk
	authz ports.Authorizer

	// now gives the time (UsersDeps).
	now   func() time.Time
	audit ports.AuditLogRepository
}

// UsersDeps are what Users is built with; none may be nil.
type UsersDeps struct {
	Accounts           ports.AccountRepository
	RefreshTokens      ports.RefreshTokenRepository
	ReadingLists       ports.ReadingListRepository
	Progress           ports.ProgressRepository
	Books              ports.BookRepository
	Students           ports.StudentRepository
	Invites            ports.InviteRepository
	MailTokens         ports.MailTokenRepository
	ExternalIdentities ports.ExternalIdentityRepository
	Loans              ports.LoanRepository
	ActiveLoans        ports.ActiveLoanRepository
	Departures         ports.DepartureRepository
	Schools            ports.SchoolRepository
	Notices            ports.NoticeRepository
	Charges            ports.ChargeRepository
	Holds              ports.HoldRepository
	Holdings           ports.HoldingsRepository
	WantToRead         ports.WantToReadRepository
	Reviews            ports.ReviewRepository
	FinishedLoans      ports.FinishedLoanRepository
	// AppLinks says which library books are the same work as app books, so
	// a work read both ways counts once.
	AppLinks ports.AppLinkRepository
	// AuditLog loses a deleted person's details (eraseFromAudit).
	AuditLog ports.AuditLogRepository
	Authz    ports.Authorizer
	// Now gives the time; nil: the system clock (tests give their own).
	Now func() time.Time `deps:"optional"`
}

// NewUsers builds the users service. It panics on a nil dependency.
func NewUsers(d UsersDeps) *Users {
	usecase.MustHave("users.NewUsers", d)
	if d.Now == nil {
		d.Now = time.Now
	}
	u := &Users{
		accounts: d.Accounts, refresh: d.RefreshTokens, lists: d.ReadingLists,
		progress: d.Progress, books: d.Books, students: d.Students, invites: d.Invites, mail: d.MailTokens, links: d.ExternalIdentities,
		departures: d.Departures, notices: d.Notices, charges: d.Charges, loanReader: circulation.NewLoanReader(d.Loans, d.ActiveLoans),
		loans: d.Loans, holds: d.Holds, schools: d.Schools, wants: d.WantToRead, reviews: d.Reviews, finished: d.FinishedLoans, authz: d.Authz, now: d.Now,
		holdings: d.Holdings, appLinks: d.AppLinks, audit: d.AuditLog,
	}
	u.desk = circulation.NewHoldDesk(circulation.HoldDeskDeps{Holds: d.Holds, Holdings: d.Holdings, Schools: d.Schools, Accounts: d.Accounts,
		Loans: u.loanReader, Clock: usecase.NewClock(func() time.Time { return u.now() }, usecase.NewUUID)})
	return u
}

// ErrUserNotFound is the answer for an unknown user, and for one the caller
// may not see (so the answer is no oracle of who exists).
func ErrUserNotFound() error {
	return errs.E(errs.NotFound, errs.CodeUserNotFound, "The user does not exist.")
}

// Me returns the caller's own account.
// Errors: Unauthenticated "unauthorized" (anonymous caller or account gone),
// Unavailable.
func (s *Users) Me(ctx context.Context) (user.Account, error) {
	p := user.PrincipalFrom(ctx)
	if p.IsAnonymous() {
		return user.Account{}, errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "Sign in to see your profile.")
	}
	if acct, ok := user.AccountFrom(ctx); ok && acct.ID == p.AccountID && !acct.Deleted {
		return acct, nil // read moments ago, while authenticating this request
	}
	acct, err := s.accounts.Get(ctx, p.AccountID)
	if errs.Is(err, errs.NotFound) || (err == nil && acct.Deleted) {
		return user.Account{}, identity.ErrUnknownAccount()
	}
	return acct, err
}

// PreferencesPatch holds the preference keys a PATCH sends; nil keys stay.
type PreferencesPatch struct {
	FontSize      *int
	Theme         *string
	Notifications *bool
	Timezone      *string
	Language      *string // "" clears the person's own choice
}

// ProfilePatch holds the profile fields a PATCH sends; nil fields stay.
type ProfilePatch struct {
	Name        *string
	Avatar      *string // "" removes the avatar
	Preferences *PreferencesPatch
}

// UpdateMe applies p to the caller's profile, merging preferences key by
// key. Nothing is stored unless every field is valid.
// Errors: Invalid (one entry per bad field, e.g. "preferences.theme"),
// Unauthenticated, Unavailable.
func (s *Users) UpdateMe(ctx context.Context, p ProfilePatch) (user.Account, error) {
	acct, err := s.Me(ctx)
	if err != nil {
		return user.Account{}, err
	}
	fields := errs.FieldErrors{}
	if p.Name != nil {
		if msg := user.ValidateName(*p.Name); msg != "" {
			fields.Add("name", msg)
		} else {
			acct.Name = strings.TrimSpace(*p.Name)
		}
	}
	if p.Avatar != nil {
		if msg := validateAvatar(*p.Avatar); msg != "" {
			fields.Add("avatar", msg)
		} else {
			acct.Avatar = *p.Avatar
		}
	}
	if pp := p.Preferences; pp != nil {
		prefs := &acct.Preferences
		if pp.FontSize != nil {
			if *pp.FontSize < user.MinFontSize || *pp.FontSize > user.MaxFontSize {
				fields.Add("preferences.font_size", "must be between 8 and 72")
			} else {
				prefs.FontSize = *pp.FontSize
			}
		}
		if pp.Theme != nil {
			if !slices.Contains(user.Themes, *pp.Theme) {
				fields.Add("preferences.theme", "must be one of light, dark, sepia, system")
			} else {
				prefs.Theme = *pp.Theme
			}
		}
		if pp.Notifications != nil {
			prefs.Notifications = *pp.Notifications
		}
		if pp.Timezone != nil {
			if !library.ValidTimezone(*pp.Timezone) {
				fields.Add("preferences.timezone", "must be an IANA time zone such as Europe/Lisbon or UTC")
			} else {
				prefs.Timezone = *pp.Timezone
			}
		}
		if pp.Language != nil {
			if _, ok := i18n.Parse(*pp.Language); !ok && *pp.Language != "" {
				fields.Add("preferences.language", "must be empty (no choice of your own) or one of en, es, ar")
			} else {
				prefs.Language = *pp.Language
			}
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	acct.UpdatedAt = s.now().UTC()
	if err := s.accounts.Update(ctx, acct); err != nil {
		return user.Account{}, err
	}
	return acct, nil
}

// validateAvatar accepts "" (no avatar) or an https URL the server never
// fetches (so it cannot be made to reach internal addresses).
func validateAvatar(raw string) string {
	if raw == "" {
		return ""
	}
	if len(raw) > 2048 {
		return "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "must be an https URL"
	}
	return ""
}

// PublicProfile is what any permitted caller sees of an account.
type PublicProfile struct {
	Account   user.Account
	BooksRead int
}

// target loads the account named by a /v1 id (usr_<uuid>). Deleted and
// malformed ids are NotFound.
func (s *Users) target(ctx context.Context, publicID string) (user.Account, error) {
	id, ok := user.ParsePublicID(publicID)
	if !ok || id == "" {
		return user.Account{}, ErrUserNotFound()
	}
	acct, err := s.accounts.Get(ctx, id)
	if errs.Is(err, errs.NotFound) || (err == nil && acct.Deleted) {
		return user.Account{}, ErrUserNotFound()
	}
	return acct, err
}

// targetContext is what policies know about the account a request is about.
func targetContext(a user.Account) map[string]any {
	return map[string]any{"target_account": a.ID, "target_school": a.SchoolID}
}

// Profile returns another account's public profile. Students' profiles are
// visible only within their school (and to admins); anyone else gets the
// same 404 as for a missing account.
// Errors: NotFound "user_not_found", Unavailable.
func (s *Users) Profile(ctx context.Context, publicID string) (PublicProfile, error) {
	acct, err := s.target(ctx, publicID)
	if err != nil {
		return PublicProfile{}, err
	}
	err = s.authz.Authorize(ctx, ports.AccessRequest{
		Principal: user.PrincipalFrom(ctx), Action: "read", Resource: "users:profile:" + string(acct.Role),
		Context: targetContext(acct),
	})
	if err != nil {
		return PublicProfile{}, ErrUserNotFound()
	}
	progress, err := s.progress.ListByAccount(ctx, acct.ID)
	if err != nil {
		return PublicProfile{}, err
	}
	read := 0
	for _, p := range progress {
		if p.Completed() {
			read++
		}
	}
	// Books read from the library count as the statistics count them.
	fromLibrary, err := s.finished.CountOfStudent(ctx, acct.ID)
	if err != nil {
		return PublicProfile{}, err
	}
	return PublicProfile{Account: acct, BooksRead: read + fromLibrary}, nil
}

// Stats returns the reading statistics of the account named by publicID
// ("me" for the caller). The account itself, librarians and staff of its
// school and admins may read them.
// Errors: NotFound "user_not_found", Forbidden "forbidden", Unavailable.
func (s *Users) Stats(ctx context.Context, publicID string) (user.Account, catalog.Stats, error) {
	var acct user.Account
	var err error
	if publicID == "me" {
		acct, err = s.Me(ctx)
	} else {
		acct, err = s.target(ctx, publicID)
	}
	if err != nil {
		return user.Account{}, catalog.Stats{}, err
	}
	err = s.authz.Authorize(ctx, ports.AccessRequest{
		Principal: user.PrincipalFrom(ctx), Action: "read", Resource: "users:stats:account", Context: targetContext(acct),
	})
	if err != nil {
		return user.Account{}, catalog.Stats{}, err
	}
	in, _, err := s.statsInput(ctx, acct)
	if err != nil {
		return user.Account{}, catalog.Stats{}, err
	}
	return acct, catalog.ComputeStats(in), nil
}

// statsInput reads what acct's statistics are computed from, and the
// library loans they marked as read (newest first) that it counts.
func (s *Users) statsInput(ctx context.Context, acct user.Account) (catalog.StatsInput, []library.FinishedLoan, error) {
	progress, err := s.progress.ListByAccount(ctx, acct.ID)
	if err != nil {
		return catalog.StatsInput{}, nil, err
	}
	sessions, err := s.progress.Sessions(ctx, acct.ID)
	if err != nil {
		return catalog.StatsInput{}, nil, err
	}
	ids := usecase.Pluck(progress, func(p catalog.Progress) string { return p.BookID })
	books, err := s.books.GetMany(ctx, ids)
	if err != nil {
		return catalog.StatsInput{}, nil, err
	}
	texts, err := s.books.ChapterTextsByID(ctx, catalog.FinishedChapterIDs(progress, books))
	if err != nil {
		return catalog.StatsInput{}, nil, err
	}
	finished, err := s.finished.OfStudent(ctx, acct.ID, library.MaxFinishedRead)
	if err != nil {
		return catalog.StatsInput{}, nil, err
	}
	loc, err := time.LoadLocation(acct.Preferences.Timezone)
	if err != nil {
		loc = time.UTC
	}
	both, err := s.readInAppToo(ctx, acct, finished, progress, books)
	if err != nil {
		return catalog.StatsInput{}, nil, err
	}
	return catalog.StatsInput{
		Progress: progress, Sessions: sessions, Books: books, FinishedTexts: texts, Location: loc, Now: s.now(),
		LibraryReads: libraryReads(finished), LibraryReadsInApp: len(both),
	}, finished, nil
}

// readInAppToo finds the reader's finished loans whose work they also
// finished in the app (library.ReadInAppToo): two reads, of the loans'
// books and of the school's choices on them, only when there are both.
func (s *Users) readInAppToo(ctx context.Context, acct user.Account, finished []library.FinishedLoan, progress []catalog.Progress, books []catalog.Book) (map[string]bool, error) {
	done := map[string]bool{}
	for _, p := range progress {
		if p.Completed() {
			done[p.BookID] = true
		}
	}
	var completed []catalog.Book
	for _, b := range books {
		if done[b.ID] {
			completed = append(completed, b)
		}
	}
	if len(finished) == 0 || len(completed) == 0 || acct.SchoolID == "" {
		return nil, nil
	}
	ids := usecase.Unique(usecase.Pluck(finished, func(f library.FinishedLoan) string { return f.BookID }))
	shelf, err := s.holdings.BooksByID(ctx, acct.SchoolID, ids)
	if err != nil {
		return nil, err
	}
	choices, err := s.appLinks.ChoicesForBooks(ctx, acct.SchoolID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]library.Book, len(shelf))
	for _, b := range shelf {
		byID[b.ID] = b
	}
	return library.ReadInAppToo(finished, byID, completed, choices), nil
}

// Where a reading record's entries come from.
const (
	SourceApp     = "app"     // a book completed in the reading app
	SourceLibrary = "library" // a library loan marked as read
)

// MaxRecordEntries bounds the entries a reading record lists (the newest);
// the statistics count every one.
const MaxRecordEntries = 200

// RecordEntry is one book of a reader's reading record.
type RecordEntry struct {
	Source     string // SourceApp or SourceLibrary
	BookID     string // the app's book, or the library's
	Title      string
	Author     string
	FinishedAt time.Time // the app's completion, or the loan's return
	// Loan is the library loan marked read (SourceLibrary only).
	Loan *library.FinishedLoan
}

// ReadingRecord is a reader's books read from both sources.
type ReadingRecord struct {
	Entries []RecordEntry // newest first, at most MaxRecordEntries
	Total   int           // entries in all
}

// ReadingRecordOf returns the caller's reading record: the books they
// completed in the app and the library loans they marked as read, newest
// first, each saying where it came from. A book in both is two entries,
// as the statistics count it.
// Errors: Unauthenticated, Unavailable.
func (s *Users) ReadingRecordOf(ctx context.Context) (ReadingRecord, error) {
	acct, err := s.Me(ctx)
	if err != nil {
		return ReadingRecord{}, err
	}
	progress, err := s.progress.ListByAccount(ctx, acct.ID)
	if err != nil {
		return ReadingRecord{}, err
	}
	var done []catalog.Progress
	for _, p := range progress {
		if p.Completed() {
			done = append(done, p)
		}
	}
	books, err := s.books.GetMany(ctx, usecase.Pluck(done, func(p catalog.Progress) string { return p.BookID }))
	if err != nil {
		return ReadingRecord{}, err
	}
	byID := make(map[string]catalog.Book, len(books))
	for _, b := range books {
		byID[b.ID] = b
	}
	finished, err := s.finished.OfStudent(ctx, acct.ID, MaxRecordEntries)
	if err != nil {
		return ReadingRecord{}, err
	}
	total, err := s.finished.CountOfStudent(ctx, acct.ID)
	if err != nil {
		return ReadingRecord{}, err
	}
	out := ReadingRecord{Total: total + len(done), Entries: make([]RecordEntry, 0, len(done)+len(finished))}
	for _, p := range done {
		b := byID[p.BookID] // a book since removed keeps its entry, without a title
		out.Entries = append(out.Entries, RecordEntry{Source: SourceApp, BookID: p.BookID, Title: b.Title, Author: b.Author, FinishedAt: p.CompletedAt.UTC()})
	}
	for i := range finished {
		f := &finished[i]
		out.Entries = append(out.Entries, RecordEntry{Source: SourceLibrary, BookID: f.BookID, Title: f.Title, Author: f.Author, FinishedAt: f.ReturnedAt, Loan: f})
	}
	slices.SortStableFunc(out.Entries, func(a, b RecordEntry) int { return b.FinishedAt.Compare(a.FinishedAt) })
	if len(out.Entries) > MaxRecordEntries {
		out.Entries = out.Entries[:MaxRecordEntries]
	}
	return out, nil
}

// libraryReads are the return times of the loans marked read.
func libraryReads(finished []library.FinishedLoan) []time.Time {
	out := make([]time.Time, len(finished))
	for i, f := range finished {
		out[i] = f.ReturnedAt
	}
	return out
}

// Export is everything stored about an account, for data-portability
// requests.
type Export struct {
	Account     user.Account
	ReadingList []catalog.ListItem
	Progress    []catalog.Progress
	Sessions    []catalog.ReadingSession
	Stats       catalog.Stats
	Loans       []circulation.LoanView // school-library loans of a student
	// Finished are the library loans the student marked as read.
	Finished []library.FinishedLoan
}

// ExportMe gathers everything stored about the caller.
// Errors: Unauthenticated, Unavailable.
func (s *Users) ExportMe(ctx context.Context) (Export, error) {
	acct, err := s.Me(ctx)
	if err != nil {
		return Export{}, err
	}
	items, err := s.lists.List(ctx, acct.ID, "")
	if err != nil {
		return Export{}, err
	}
	in, finished, err := s.statsInput(ctx, acct)
	if err != nil {
		return Export{}, err
	}
	today := s.now().UTC()
	if acct.SchoolID != "" {
		school, err := s.schools.Get(ctx, acct.SchoolID)
		if err != nil {
			return Export{}, err
		}
		today = school.Today(s.now())
	}
	loans, err := s.loanReader.LoansOfStudent(ctx, acct.ID, today)
	if err != nil {
		return Export{}, err
	}
	return Export{Account: acct, ReadingList: items, Progress: in.Progress, Sessions: in.Sessions, Stats: catalog.ComputeStats(in), Loans: loans,
		Finished: finished}, nil
}

// DeleteMe deletes the caller's account for good. A student who still holds
// a copy is refused (the school must get its book back first). The account
// is marked deleted first, so its tokens are refused from that moment; then
// its data goes, its loan history is anonymised, and the account record goes
// last. A crash in between leaves the mark, and FinishDeletions completes
// the work at the next start.
// Errors: Conflict "active_loans", Unauthenticated, Unavailable.
func (s *Users) DeleteMe(ctx context.Context) error {
	acct, err := s.Me(ctx)
	if err != nil {
		return err
	}
	var attempt string
	// A borrower (a student, or staff since they borrow too) may not leave
	// with a book out.
	if circulation.BorrowerRole(acct.Role) {
		if attempt, err = s.clearToLeave(ctx, acct.ID); err != nil {
			return err
		}
	}
	acct.Deleted = true
	acct.UpdatedAt = s.now().UTC()
	if err := s.accounts.Update(ctx, acct); err != nil {
		if attempt != "" {
			// Not deleted after all: the student may borrow again.
			s.endDeparture(ctx, attempt)
		}
		return err
	}
	return s.erase(ctx, acct.ID)
}

// clearToLeave decides whether a student may be deleted: not while a copy
// is lent to them, including one lent at this very moment. The attempt is
// recorded first, then the loans are read, then the outcome "delete" is
// recorded, which exactly one of this attempt and a racing loan can do
// (Circulation.borrowerStays records "keep"). A loan whose claim came after
// the loans were read sees the attempt and settles with it; one whose
// claim came before is among the loans read. It returns the attempt, which
// erase ends.
// Errors: Conflict "active_loans".
func (s *Users) clearToLeave(ctx context.Context, studentID string) (string, error) {
	attempt := library.Departure{ID: usecase.NewUUID(), StudentID: studentID, StartedAt: s.now().UTC()}
	if err := s.departures.Begin(ctx, attempt); err != nil {
		return "", err
	}
	refuse := func(err error) (string, error) {
		s.endDeparture(ctx, attempt.ID)
		return "", err
	}
	active, err := s.loanReader.StudentHasActiveLoans(ctx, studentID)
	if err != nil {
		return refuse(err)
	}
	errActive := errs.E(errs.Conflict, errs.CodeActiveLoans, "Return the library books you have on loan before deleting your account.")
	if active {
		return refuse(errActive)
	}
	if err := s.departures.Decide(ctx, attempt.ID, library.DepartureDeletes); err != nil {
		if errs.Is(err, errs.Conflict) {
			return refuse(errActive) // a loan was made meanwhile, and won
		}
		return refuse(err)
	}
	return attempt.ID, nil
}

// endDeparture ends a deletion attempt that will not go ahead, whatever the
// request's fate, so no loan settles with it any more.
func (s *Users) endDeparture(ctx context.Context, attemptID string) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
	defer cancel()
	_ = s.departures.End(uctx, attemptID)
}

// erase removes everything of a marked account; every step is idempotent,
// so a retry after a crash repeats safely.
func (s *Users) erase(ctx context.Context, accountID string) error {
	if err := identity.EndAllSessions(ctx, s.refresh, accountID, s.now()); err != nil {
		return err
	}
	if err := s.lists.DeleteByAccount(ctx, accountID); err != nil {
		return err
	}
	if err := s.progress.DeleteByAccount(ctx, accountID); err != nil {
		return err
	}
	if err := s.wants.DeleteByStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.reviews.DeleteByStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.finished.DeleteByStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.loans.AnonymizeStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.notices.ForgetStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.desk.CancelStudentHolds(ctx, accountID); err != nil {
		return err
	}
	if err := s.holds.AnonymizeStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.charges.AnonymizeStudent(ctx, accountID); err != nil {
		return err
	}
	if err := s.students.ReleaseNumbers(ctx, accountID); err != nil {
		return err
	}
	if err := s.invites.DeleteByAccount(ctx, accountID); err != nil {
		return err
	}
	if err := s.eraseFromAudit(ctx, accountID); err != nil {
		return err
	}
	// The deletion's attempts end before the account goes: a loan that no
	// longer finds an attempt then finds the account marked or gone.
	attempts, err := s.departures.OfStudent(ctx, accountID)
	if err != nil {
		return err
	}
	for _, d := range attempts {
		if err := s.departures.End(ctx, d.ID); err != nil {
			return err
		}
	}
	if err := s.mail.DeleteByAccount(ctx, accountID); err != nil {
		return err
	}
	if err := s.links.DeleteByAccount(ctx, accountID); err != nil {
		return err
	}
	return s.accounts.Delete(ctx, accountID)
}

// FinishDeletions completes deletions a crash interrupted. It returns how
// many it finished.
func (s *Users) FinishDeletions(ctx context.Context) (int, error) {
	pending, err := s.accounts.ListDeleted(ctx)
	if err != nil {
		return 0, err
	}
	for i, a := range pending {
		if err := s.erase(ctx, a.ID); err != nil {
			return i, err
		}
	}
	return len(pending), nil
}

// eraseFromAudit takes a deleted person's details (their id, name, email,
// number and guardians) out of the audit entries about them, a batch at a
// time. The entries stay: the log still shows what staff did, and when.
// An entry done no longer names the person as its subject, so a retry
// after a crash goes on where this stopped.
func (s *Users) eraseFromAudit(ctx context.Context, accountID string) error {
	a, err := s.accounts.Get(ctx, accountID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return err
	}
	details := []string{a.Name, a.Email, a.StudentNumber}
	for _, g := range a.Guardians {
		details = append(details, g.Name, g.Email)
	}
	const batch = 100
	for {
		es, err := s.audit.OfSubject(ctx, accountID, batch)
		if err != nil || len(es) == 0 {
			return err
		}
		for _, e := range es {
			if err := s.audit.Erase(ctx, e.Erased(accountID, details)); err != nil {
				return err
			}
		}
	}
}
