package service

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/schools"
	"github.com/readinglibrary/service/core/service/selfcheck"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
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
	Schools  *schools.Schools
	Staff    *identity.Staff
	Students *students.Students
	Holdings *collection.Holdings
	// HoldingsFiles imports and exports the holdings as files.
	HoldingsFiles *collection.HoldingsFiles
	Circulation   *circulation.Circulation
	Holds         *circulation.Holds
	// Classes are the teachers' views of their classes.
	Classes *circulation.Classes
	Catalog *collection.PublicCatalog
	// WantToRead is each student's want-to-read list.
	WantToRead *collection.WantToRead
	// Reviews are the students' reviews and their moderation.
	Reviews *collection.Reviews
	// Covers are the titles' cover images.
	Covers *collection.Covers
	// AppLinks tells which titles are also in the reading app.
	AppLinks *collection.AppLinks
	// Recommendations offer students the school's books they can have now.
	Recommendations *collection.Recommendations
	Notices         *circulation.Notices
	// Cataloguing fills new books from the school's catalogue server.
	Cataloguing *collection.Cataloguing
	Reports     *collection.Reports
	Stocktakes  *collection.Stocktakes
	// Jobs reads the background jobs of every kind.
	Jobs *usecase.Jobs
	// Audit is the log of what staff and admins changed.
	Audit *usecase.AuditLog
	// SelfCheck makes the schools' kiosks and serves their requests.
	SelfCheck *selfcheck.SelfCheck

	clock *usecase.Clock
	// jobs runs the background jobs of every kind: one per school at a
	// time, stopped by StopImports.
	jobs *usecase.ImportJobs
}

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
	// CoverImages reads uploaded and fetched covers, and CoverSource finds
	// them by ISBN; without images no cover is taken, without a source
	// only uploaded ones are served.
	CoverImages ports.CoverImages
	CoverSource ports.CoverSource
	// OnImportReading is called by each holdings import once it holds its
	// slot, before it reads its file (tests hold an import there).
	OnImportReading func(context.Context)
	// Authz decides which classes a caller may open (Classes); without it
	// every class is refused.
	Authz ports.Authorizer
}

// LibraryStores are the stores the library's use cases read and write;
// none may be nil.
type LibraryStores struct {
	Schools         ports.SchoolRepository
	Accounts        ports.AccountRepository
	RefreshTokens   ports.RefreshTokenRepository
	Students        ports.StudentRepository
	Invites         ports.InviteRepository
	Holdings        ports.HoldingsRepository
	HoldingsImports ports.HoldingsImportRepository
	Loans           ports.LoanRepository
	ActiveLoans     ports.ActiveLoanRepository
	Departures      ports.DepartureRepository
	Notices         ports.NoticeRepository
	Holds           ports.HoldRepository
	Charges         ports.ChargeRepository
	Homerooms       ports.HomeroomRepository
	Reports         ports.ReportRepository
	Stocktakes      ports.StocktakeRepository
	ImportJobs      ports.ImportJobRepository
	WantToRead      ports.WantToReadRepository
	Reviews         ports.ReviewRepository
	Covers          ports.CoverRepository
	// FinishedLoans are the returned loans students marked as read.
	FinishedLoans ports.FinishedLoanRepository
	// Progress is the reading app's progress and sessions, for the
	// classes' reading.
	Progress ports.ProgressRepository
	// AppLinks and AppBooks join the school's books to the reading app's.
	AppLinks ports.AppLinkRepository
	AppBooks ports.BookRepository
	// ReadingLists and Shelf are what a student's recommendations learn
	// from and draw on.
	ReadingLists ports.ReadingListRepository
	Shelf        ports.ShelfRepository
	// AuditLog is the record of staff and admin actions.
	AuditLog ports.AuditLogRepository
	// Kiosks are the schools' self-check machines.
	Kiosks ports.KioskRepository
	// OfflineOps are the desk's scans uploaded after an outage.
	OfflineOps ports.OfflineOpRepository
}

// NewLibrary builds the library's use cases, each with the stores it
// uses. It panics on a nil dependency.
func NewLibrary(st LibraryStores, ident *identity.Identity, cfg LibraryConfig) *Library {
	usecase.MustHave("service.NewLibrary", struct {
		Stores   LibraryStores
		Identity *identity.Identity
	}{st, ident})
	c := usecase.NewClock(time.Now, usecase.NewUUID)
	audit := usecase.NewAuditLog(st.AuditLog, st.Schools, c, cfg.OnJobError)
	loans := circulation.NewLoanReader(st.Loans, st.ActiveLoans)
	desk := circulation.NewHoldDesk(circulation.HoldDeskDeps{Holds: st.Holds, Holdings: st.Holdings, Schools: st.Schools, Accounts: st.Accounts, Loans: loans, Clock: c})
	holdings := collection.NewHoldings(collection.HoldingsDeps{Schools: st.Schools, Holdings: st.Holdings, Desk: desk, Loans: loans, Clock: c})
	jobs := usecase.NewImportJobs(st.ImportJobs, c, cfg.OnJobError)
	maxImports := cfg.MaxImports
	if maxImports < 1 {
		maxImports = usecase.DefaultMaxImports
	}
	slots := usecase.NewImportSlots(maxImports)
	circ := circulation.NewCirculation(circulation.CirculationDeps{Schools: st.Schools, Holdings: st.Holdings, Accounts: st.Accounts, Students: st.Students,
		Departures: st.Departures, Notices: st.Notices, Charges: st.Charges, Finished: st.FinishedLoans, Desk: desk, Loans: loans, Clock: c, Audit: audit})
	holds := circulation.NewHolds(st.Schools, desk)
	studs := students.NewStudents(students.StudentsDeps{Schools: st.Schools, Accounts: st.Accounts, Students: st.Students, Loans: st.Loans,
		Homerooms: st.Homerooms, Hasher: ident.PasswordHasher(), Jobs: jobs, Slots: slots, Clock: c, Audit: audit})
	appLinks := collection.NewAppLinks(collection.AppLinksDeps{Holdings: holdings, Books: st.Holdings, ISBNs: st.HoldingsImports, Links: st.AppLinks,
		AppBooks: st.AppBooks, Loans: loans, Clock: c})
	return &Library{
		Schools: schools.NewSchools(st.Schools, c, audit),
		Staff: identity.NewStaff(identity.StaffDeps{Schools: st.Schools, Accounts: st.Accounts, Invites: st.Invites, RefreshTokens: st.RefreshTokens,
			Identity: ident, Clock: c, Audit: audit}),
		Students: studs,
		Holdings: holdings,
		HoldingsFiles: collection.NewHoldingsFiles(collection.HoldingsFilesDeps{Schools: st.Schools, Holdings: st.Holdings, Imports: st.HoldingsImports, Desk: desk,
			Codec: cfg.Codec, Jobs: jobs, Slots: slots, Reading: cfg.OnImportReading, Clock: c, Audit: audit}),
		Cataloguing: collection.NewCataloguing(st.Schools, holdings, cfg.Catalogue, cfg.Codec),
		Circulation: circ,
		Holds:       holds,
		Classes: circulation.NewClasses(circulation.ClassesDeps{Schools: st.Schools, Homerooms: st.Homerooms, Accounts: st.Accounts, Authz: cfg.Authz,
			Circulation: circ, Holds: holds,
			Reading: circulation.ClassReadingStores{Progress: st.Progress, AppBooks: st.AppBooks, Finished: st.FinishedLoans, AppLinks: st.AppLinks}}),
		Catalog:  collection.NewPublicCatalog(st.Schools, st.Holdings, st.Reviews, loans, desk, appLinks),
		AppLinks: appLinks,
		Recommendations: collection.NewRecommendations(collection.RecommendationsDeps{Accounts: st.Accounts, Loans: st.Loans, Holds: st.Holds,
			Finished: st.FinishedLoans, Holdings: st.Holdings, Shelf: st.Shelf, Reviews: st.Reviews, Reader: loans, Desk: desk, Links: appLinks,
			App: appPicker(st, cfg.Authz)}),
		Covers: collection.NewCovers(collection.CoversDeps{Schools: st.Schools, Holdings: st.Holdings, Covers: st.Covers,
			Images: cfg.CoverImages, Source: cfg.CoverSource, Clock: c}),
		Reviews: collection.NewReviews(collection.ReviewsDeps{Schools: st.Schools, Holdings: st.Holdings, Reviews: st.Reviews, Loans: st.Loans,
			Accounts: st.Accounts, Clock: c}),
		WantToRead: collection.NewWantToRead(collection.WantToReadDeps{Schools: st.Schools, Holdings: st.Holdings, Wants: st.WantToRead, Reviews: st.Reviews,
			Loans: loans, Desk: desk, Holds: holds, Links: appLinks, Clock: c}),
		Stocktakes: collection.NewStocktakes(collection.StocktakesDeps{Schools: st.Schools, Stocktakes: st.Stocktakes, ActiveLoans: st.ActiveLoans, Books: st.Holdings, Holdings: holdings,
			Circulation: circ, Loans: loans, Jobs: jobs, Slots: slots, Clock: c}),
		Notices: circulation.NewNotices(circulation.NoticesDeps{Schools: st.Schools, Notices: st.Notices, Homerooms: st.Homerooms, Accounts: st.Accounts,
			Holds: st.Holds, Holdings: st.Holdings, Mail: ident, Loans: loans, Clock: c, Audit: audit}),
		Reports: collection.NewReports(st.Schools, st.Reports, st.Holdings, circ, c,
			collection.BuyingStores{Students: st.Students, Progress: st.Progress, AppBooks: st.AppBooks, AppLinks: appLinks}),
		Jobs:  usecase.NewJobs(st.Schools, jobs),
		Audit: audit,
		SelfCheck: selfcheck.New(selfcheck.Deps{Kiosks: st.Kiosks, OfflineOps: st.OfflineOps, Schools: st.Schools, Hasher: ident.PasswordHasher(), Throttle: ident.LoginThrottle(), Holdings: holdings,
			Students: studs, Circulation: circ, Clock: c, Audit: audit}),
		clock: c,
		jobs:  jobs,
	}
}

// SetClock replaces the time and the id generator of every library use
// case (tests).
func (l *Library) SetClock(now func() time.Time, newID func() string) {
	usecase.SetClock(l.clock, now, newID)
}

// StopImports is for shutdown, before the stores close: it waits for the
// running jobs (of every kind) while ctx lasts, then stops them (each stores its
// failure: nothing was imported) and waits a little for those ends.
func (l *Library) StopImports(ctx context.Context) { l.jobs.StopAll(ctx) }

// appPicker is the reading app's side of the students' recommendations;
// without an authorizer, which decides what a student may open in the app,
// it has nothing to offer.
func appPicker(st LibraryStores, authz ports.Authorizer) collection.AppPicker {
	if authz == nil {
		return noAppPicks{}
	}
	return reading.NewBooks(reading.BooksDeps{Books: st.AppBooks, ReadingLists: st.ReadingLists, Progress: st.Progress, Accounts: st.Accounts, Authz: authz})
}

type noAppPicks struct{}

func (noAppPicks) HistoryAndPicks(context.Context, int) ([]catalog.HistoryEntry, []catalog.Recommendation, error) {
	return nil, nil, nil
}

func (noAppPicks) MayRead(context.Context, catalog.Access) bool { return false }
