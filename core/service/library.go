package service

import (
	"context"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Library serves the school library, one use-case type per part of a
// school's work: its schools and settings, its staff and their invitations,
// its students, its holdings (books, copies and labels), circulation (loans
// and renewals) and its public catalog.
//
// Which roles may call a method is decided by the route's policy; which
// school's objects a caller reaches is decided here: a school-bound role
// only ever reaches its own school (naming another school is 403, an object
// of another school is 404), an admin names the school explicitly.
type Library struct {
	Schools  *Schools
	Staff    *Staff
	Students *Students
	Holdings *Holdings
	// HoldingsFiles imports and exports the holdings as files.
	HoldingsFiles *HoldingsFiles
	Circulation   *Circulation
	Holds         *Holds
	Catalog       *PublicCatalog
	Notices       *Notices
	// Cataloguing fills new books from the school's catalogue server.
	Cataloguing *Cataloguing
	Reports     *Reports
	Stocktakes  *Stocktakes
	// Jobs reads the background jobs of every kind.
	Jobs *Jobs

	clock *clock
	// jobs runs the background jobs of every kind: one per school at a
	// time, stopped by StopImports.
	jobs *importJobs
}

// clock gives the library's use cases the time and fresh ids; one value is
// shared by all of them so a test sets both once (SetClock), even while a
// background sweep of the service reads them.
type clock struct {
	mu  sync.RWMutex
	now func() time.Time
	id  func() string
}

func newClock(now func() time.Time, newID func() string) *clock { return &clock{now: now, id: newID} }

func (c *clock) Now() time.Time {
	c.mu.RLock()
	now := c.now
	c.mu.RUnlock()
	return now()
}

func (c *clock) newID() string {
	c.mu.RLock()
	id := c.id
	c.mu.RUnlock()
	return id()
}

// todayAt is now in the school's time zone: circulation counts dates (due
// dates, overdue, renewals) by the school's calendar day, not the server's.
func (c *clock) todayAt(school library.School) time.Time { return school.Today(c.Now()) }

// LibraryConfig is what the library's use cases are built with besides
// their stores. Every field is optional.
type LibraryConfig struct {
	// Codec reads and writes MARC files; without one only CSV holdings
	// files are taken (MARC answers Unavailable).
	Codec ports.RecordCodec
	// Catalogue asks the schools' catalogue servers, Codec reading its
	// answers; without both every lookup is Unavailable, and a service
	// built without them still serves everything else.
	Catalogue ports.CatalogSource
	// MaxImports is how many uploads (holdings imports' dry runs, commits
	// and running jobs, roster syncs and their jobs, student and scanner
	// files) are read at once; one more is refused. Zero or less:
	// DefaultMaxImports.
	MaxImports int
	// OnJobError is told of a background job's error (the log): the job's
	// end says only that it failed, so without it an internal failure
	// leaves no trace of its cause.
	OnJobError func(op string, err error)
	// OnImportReading is called by each holdings import once it holds its
	// slot, before it reads its file (tests hold an import there).
	OnImportReading func(context.Context)
}

// NewLibrary builds the library's use cases. It panics on a nil dependency.
func NewLibrary(repos ports.Repositories, identity *Identity, cfg LibraryConfig) *Library {
	if repos.Schools == nil || repos.Accounts == nil || repos.RefreshTokens == nil || repos.Students == nil ||
		repos.Invites == nil || repos.Holdings == nil || repos.Loans == nil || repos.ActiveLoans == nil || repos.Departures == nil || repos.Notices == nil || repos.Holds == nil || repos.Charges == nil ||
		repos.Homerooms == nil || repos.Reports == nil || identity == nil {
		panic("service.NewLibrary: nil dependency")
	}
	c := newClock(time.Now, newUUID)
	scope := schoolScope{schools: repos.Schools}
	loans := loanReader{loans: repos.Loans, active: repos.ActiveLoans}
	desk := &holdDesk{holds: repos.Holds, holdings: repos.Holdings, schools: repos.Schools, accounts: repos.Accounts,
		loanReader: loans, clock: c}
	holdings := &Holdings{schoolScope: scope, holdings: repos.Holdings, desk: desk, loanReader: loans, clock: c}
	jobs := newImportJobs(repos.ImportJobs, c, cfg.OnJobError)
	maxImports := cfg.MaxImports
	if maxImports < 1 {
		maxImports = DefaultMaxImports
	}
	slots := newImportSlots(maxImports)
	circulation := &Circulation{schoolScope: scope, holdings: repos.Holdings, accounts: repos.Accounts, students: repos.Students,
		departures: repos.Departures, notices: repos.Notices, desk: desk, charges: repos.Charges, loanReader: loans, clock: c}
	return &Library{
		Schools: &Schools{schoolScope: scope, clock: c},
		Staff: &Staff{schools: repos.Schools, accounts: repos.Accounts, invites: repos.Invites, refresh: repos.RefreshTokens,
			identity: identity, clock: c},
		Students: &Students{schoolScope: scope, accounts: repos.Accounts, students: repos.Students, loans: repos.Loans, hasher: identity.hasher,
			jobs: jobs, slots: slots, clock: c},
		Holdings: holdings,
		HoldingsFiles: &HoldingsFiles{schoolScope: scope, holdings: repos.Holdings, imports: repos.HoldingsImports, desk: desk,
			codec: cfg.Codec, jobs: jobs, slots: slots, reading: cfg.OnImportReading, clock: c},
		Cataloguing: &Cataloguing{schoolScope: scope, holdings: holdings, source: cfg.Catalogue, codec: cfg.Codec},
		Circulation: circulation,
		Holds:       &Holds{schoolScope: scope, holdDesk: desk},
		Catalog:     &PublicCatalog{schools: repos.Schools, holdings: repos.Holdings, loanReader: loans, desk: desk},
		Stocktakes: &Stocktakes{schoolScope: scope, stocktakes: repos.Stocktakes, holdings: holdings, circulation: circulation,
			books: repos.Holdings, jobs: jobs, slots: slots, loanReader: loans, clock: c},
		Notices: &Notices{schoolScope: scope, notices: repos.Notices, homerooms: repos.Homerooms, accounts: repos.Accounts,
			holds: repos.Holds, holdings: repos.Holdings, identity: identity, loanReader: loans, clock: c},
		Reports: &Reports{schoolScope: scope, reports: repos.Reports, holdings: repos.Holdings, circulation: circulation, clock: c},
		Jobs:    &Jobs{schoolScope: scope, jobs: jobs},
		clock:   c,
		jobs:    jobs,
	}
}

// SetClock replaces the time and the id generator of every library use
// case (tests).
func (l *Library) SetClock(now func() time.Time, newID func() string) {
	l.clock.mu.Lock()
	defer l.clock.mu.Unlock()
	if now != nil {
		l.clock.now = now
	}
	if newID != nil {
		l.clock.id = newID
	}
}

// schoolScope decides which school a request acts on.
type schoolScope struct {
	schools ports.SchoolRepository
}

// scope returns the school a request acts on. explicit is the school the
// client named (schoolId or school_id), field its name for errors.
// Errors: Forbidden (another school, or a role without one), Invalid (an
// admin without a school), NotFound "school_not_found".
func (s schoolScope) scope(ctx context.Context, explicit, field string) (library.School, error) {
	p := user.PrincipalFrom(ctx)
	switch {
	case p.Role == user.RoleAdmin:
		if explicit == "" {
			return library.School{}, errs.InvalidField(field, "is required for admins")
		}
		if !isUUID(explicit) {
			return library.School{}, library.ErrSchoolNotFound()
		}
		return s.schools.Get(ctx, explicit)
	case p.Role.SchoolBound() && p.SchoolID != "":
		if explicit != "" && explicit != p.SchoolID {
			return library.School{}, errs.E(errs.Forbidden, errs.CodeForbidden, "You can only act on your own school.")
		}
		return s.schools.Get(ctx, p.SchoolID)
	}
	return library.School{}, errs.E(errs.Forbidden, errs.CodeForbidden, "This account belongs to no school.")
}

// reaches reports whether a request acting on schoolParam reaches an
// object of schoolID: with a school named (a web page's, or a client's
// schoolId), only that school's objects, the school checked as scope checks
// it; with none, any school the caller reaches (reachable).
// Errors: as scope.
func (s schoolScope) reaches(ctx context.Context, schoolParam, schoolID string) (bool, error) {
	if schoolParam == "" {
		return reachable(ctx, schoolID), nil
	}
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return false, err
	}
	return school.ID == schoolID, nil
}

// reachable reports whether the caller may reach objects of schoolID
// without naming it: admins reach every school, others their own.
func reachable(ctx context.Context, schoolID string) bool {
	p := user.PrincipalFrom(ctx)
	return p.Role == user.RoleAdmin || (p.SchoolID != "" && p.SchoolID == schoolID)
}
