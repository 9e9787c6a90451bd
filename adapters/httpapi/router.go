package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/ports"
)

// Deps are the use cases and ports the handlers call.
type Deps struct {
	Identity *identity.Identity
	Users    *users.Users
	Books    *reading.Books
	Library  *service.Library
	Tokens   ports.TokenService
	Health   ports.Pinger
	// Labels prints copy label sheets (GET /api/library/copies/labels);
	// without it that route answers 500.
	Labels ports.LabelPrinter
	// Slips prints the overdue slips of homerooms
	// (GET /api/library/loans/overdue-slips); without it that route
	// answers 500.
	Slips ports.SlipPrinter
	// Uploads keeps holdings files on disk while they are imported;
	// without it they are read into memory.
	Uploads ports.UploadSpool
}

// API is the JSON API: its route table and the handlers, served through an
// httpedge.Edge together with the other front doors' routes.
type API struct {
	*handler
}

type handler struct {
	deps Deps
	edge *httpedge.Edge
	// labelSlots bounds how many label PDFs are rendered at once (see
	// copyLabels).
	labelSlots chan struct{}
}

// New builds the API's handlers over edge. It panics on a missing
// dependency.
func New(deps Deps, edge *httpedge.Edge) *API {
	if deps.Identity == nil || deps.Users == nil || deps.Books == nil || deps.Library == nil || deps.Tokens == nil || deps.Health == nil || edge == nil {
		panic("httpapi.New: nil dependency")
	}
	return &API{&handler{deps: deps, edge: edge, labelSlots: make(chan struct{}, labelRenders)}}
}

// Routes is the API's route table, for httpedge.Edge.Handler.
func (a *API) Routes() []httpedge.Route { return a.table() }

// table is every route of the service with the permission it needs. Adding
// a route means adding its policy in policies/ and its entry in openapi.json;
// tests fail until both exist.
func (h *handler) table() []httpedge.Route {
	r := func(name, method, path, action, resource string, fn http.HandlerFunc) httpedge.Route {
		return httpedge.Route{Name: name, Method: method, Path: path, Action: action, Resource: resource, Handle: fn}
	}
	return []httpedge.Route{
		unlimited(r("system.healthz", http.MethodGet, "/healthz", "read", "system:health", h.healthz)),
		unlimited(r("system.readyz", http.MethodGet, "/readyz", "read", "system:health", h.readyz)),
		unlimited(r("system.openapi", http.MethodGet, "/openapi.json", "read", "system:openapi", h.openAPI)),
		unlimited(r("system.oidc", http.MethodGet, "/.well-known/openid-configuration", "read", "system:keys", h.oidcConfiguration)),
		unlimited(r("system.jwks", http.MethodGet, "/.well-known/jwks.json", "read", "system:keys", h.jwks)),

		signIn(jsonOrForm(r("auth.login", http.MethodPost, "/api/auth/login", "login", "auth:session", h.login))),
		signIn(r("auth.refresh", http.MethodPost, "/api/auth/refresh", "refresh", "auth:session", h.refresh)),
		jsonOrForm(r("auth.logout", http.MethodPost, "/api/auth/logout", "logout", "auth:session", h.logout)),
		r("auth.signup", http.MethodPost, "/api/auth/signup", "signup", "auth:account", h.signup),
		jsonOrForm(r("auth.password", http.MethodPost, "/api/auth/password", "change", "auth:password", h.changePassword)),
		r("auth.verifyEmail", http.MethodPost, "/api/auth/verify-email", "verify", "auth:account", h.verifyEmail),
		r("auth.passwordReset", http.MethodPost, "/api/auth/password-reset", "request", "auth:password-reset", h.passwordReset),
		r("auth.passwordReset.confirm", http.MethodPost, "/api/auth/password-reset/confirm", "confirm", "auth:password-reset", h.confirmPasswordReset),

		// The /users/me routes come before /users/{user_id}, which would match "me".
		r("users.me", http.MethodGet, "/v1/users/me", "read", "users:me", h.getMe),
		r("users.me.update", http.MethodPatch, "/v1/users/me", "update", "users:me", h.patchMe),
		r("users.me.delete", http.MethodDelete, "/v1/users/me", "delete", "users:me", h.deleteMe),
		r("users.me.stats", http.MethodGet, "/v1/users/me/stats", "read", "users:stats", h.getStats),
		r("users.me.export", http.MethodGet, "/v1/users/me/export", "export", "users:me", h.exportMe),
		r("users.me.readingList", http.MethodGet, "/v1/users/me/reading-list", "read", "reading:list", h.getReadingList),
		r("users.me.readingRecord", http.MethodGet, "/v1/users/me/reading-record", "read", "users:readingrecord", h.getReadingRecord),
		r("users.me.readingRecord.loan", http.MethodPut, "/v1/users/me/reading-record/loans/{loan_id}", "finish", "users:readingrecord",
			h.markOwnFinished(library.FinishedInApp)),
		r("users.get", http.MethodGet, "/v1/users/{user_id}", "read", "users:profile", h.getUser),
		r("users.stats", http.MethodGet, "/v1/users/{user_id}/stats", "read", "users:stats", h.getStats),

		// Recommendations before /books/{book_id}, which would match it too.
		r("books.recommendations", http.MethodGet, "/v1/books/recommendations", "read", "books:recommendations", h.recommendations),
		r("books.list", http.MethodGet, "/v1/books", "read", "books:catalog", h.listBooks),
		r("books.create", http.MethodPost, "/v1/books", "create", "books:catalog", h.createBook),
		r("books.get", http.MethodGet, "/v1/books/{book_id}", "read", "books:catalog", h.getBook),
		r("books.update", http.MethodPatch, "/v1/books/{book_id}", "update", "books:catalog", h.updateBook),
		r("books.delete", http.MethodDelete, "/v1/books/{book_id}", "delete", "books:catalog", h.deleteBook),
		r("books.content", http.MethodGet, "/v1/books/{book_id}/content", "read", "books:content", h.getContent),
		r("books.readingList.add", http.MethodPost, "/v1/books/{book_id}/reading-list", "add", "reading:list", h.addToList),
		r("books.readingList.remove", http.MethodDelete, "/v1/books/{book_id}/reading-list", "remove", "reading:list", h.removeFromList),
		r("books.progress", http.MethodPatch, "/v1/books/{book_id}/progress", "update", "reading:progress", h.updateProgress),

		r("auth.acceptInvite", http.MethodPost, "/api/auth/accept-invite", "accept", "auth:invite", h.acceptInvite),
		r("admin.schools.create", http.MethodPost, "/api/admin/schools", "create", "admin:schools", h.createSchool),
		r("admin.schools.list", http.MethodGet, "/api/admin/schools", "read", "admin:schools", h.listSchools),
		r("admin.users.update", http.MethodPatch, "/api/admin/users/{id}", "update", "admin:users", h.updateUser),
		r("library.accounts.list", http.MethodGet, "/api/library/accounts", "read", "library:accounts", h.listAccounts),
		r("library.invite", http.MethodPost, "/api/library/invite", "invite", "library:accounts", h.invite),
		r("library.accounts.manage", http.MethodPatch, "/api/library/accounts/manage", "manage", "library:accounts", h.manageAccount),
		r("library.accounts.unlock", http.MethodPost, "/api/library/accounts/{id}/unlock", "unlock", "library:accounts", h.unlockAccount),
		r("library.students.create", http.MethodPost, "/api/library/students", "create", "library:students", h.createStudent),
		r("library.students.list", http.MethodGet, "/api/library/students", "read", "library:students", h.listStudents),
		r("library.students.update", http.MethodPatch, "/api/library/students/{id}", "update", "library:students", h.updateStudent),
		csv(r("library.students.import", http.MethodPost, "/api/library/students/import", "import", "library:students", h.importStudents)),
		rosterRoute(r("library.students.sync", http.MethodPost, "/api/library/students/sync", "sync", "library:students", h.syncStudents)),
		r("library.students.rollover", http.MethodPost, "/api/library/students/rollover", "rollover", "library:students", h.rollover),
		r("library.students.leavers", http.MethodGet, "/api/library/students/leavers", "leavers", "library:students", h.leavers),
		r("library.students.cards", http.MethodGet, "/api/library/students/cards", "cards", "library:students", h.studentCards),
		r("library.kiosks.list", http.MethodGet, "/api/library/kiosks", "read", "library:kiosks", h.listKiosks),
		r("library.kiosks.create", http.MethodPost, "/api/library/kiosks", "create", "library:kiosks", h.createKiosk),
		r("library.kiosks.delete", http.MethodDelete, "/api/library/kiosks/{id}", "delete", "library:kiosks", h.deleteKiosk),
		r("library.offlineScans.upload", http.MethodPost, "/api/library/offline-scans", "create", "library:offline", h.uploadOfflineScans),
		r("library.offlineScans.conflicts", http.MethodGet, "/api/library/offline-scans", "read", "library:offline", h.listOfflineConflicts),
		r("library.offlineScans.settle", http.MethodPatch, "/api/library/offline-scans/{id}", "update", "library:offline", h.settleOfflineScan),
		r("library.students.standing", http.MethodGet, "/api/library/students/{id}/standing", "read", "library:students", h.studentStanding),
		holdingsFile(r("library.holdings.import", http.MethodPost, "/api/library/holdings/imports", "import", "library:holdings", h.importHoldings)),
		r("library.holdings.importJob", http.MethodGet, "/api/library/holdings/imports/{id}", "read", "library:holdings", h.holdingsImportJob),
		r("library.jobs.get", http.MethodGet, "/api/library/jobs/{id}", "read", "library:jobs", h.job),
		r("library.holdings.export", http.MethodGet, "/api/library/holdings/export", "export", "library:holdings", h.exportHoldings),
		r("library.books.create", http.MethodPost, "/api/library/books", "create", "library:books", h.addLibraryBook),
		r("library.catalogLookup", http.MethodGet, "/api/library/catalog-lookup", "read", "library:cataloguing", h.catalogLookup),
		r("library.books.list", http.MethodGet, "/api/library/books", "read", "library:books", h.listLibraryBooks),
		r("library.books.get", http.MethodGet, "/api/library/books/{id}", "read", "library:books", h.getLibraryBook),
		r("library.books.update", http.MethodPatch, "/api/library/books/{id}", "update", "library:books", h.updateLibraryBook),
		r("library.books.appLink.get", http.MethodGet, "/api/library/books/{id}/app-link", "read", "library:books", h.getAppLink),
		r("library.books.appLink.put", http.MethodPut, "/api/library/books/{id}/app-link", "update", "library:books", h.chooseAppLink),
		r("library.books.appLink.delete", http.MethodDelete, "/api/library/books/{id}/app-link/{app_book_id}", "update", "library:books", h.forgetAppLink),
		coverRoute(r("library.books.cover.put", http.MethodPut, "/api/library/books/{id}/cover", "update", "library:books", h.uploadCover)),
		r("library.books.cover.delete", http.MethodDelete, "/api/library/books/{id}/cover", "update", "library:books", h.removeCover),
		r("library.copies.create", http.MethodPost, "/api/library/copies", "create", "library:copies", h.addCopies),
		r("library.copies.find", http.MethodGet, "/api/library/copies", "read", "library:copies", h.copyByCode),
		r("library.copies.labels", http.MethodGet, "/api/library/copies/labels", "read", "library:copies", h.copyLabels),
		r("library.copies.change", http.MethodPatch, "/api/library/copies/{id}", "update", "library:copies", h.changeCopy),
		r("library.loans.list", http.MethodGet, "/api/library/loans", "read", "library:loans", h.listLoans),
		r("library.loans.overdueSlips", http.MethodGet, "/api/library/loans/overdue-slips", "print", "library:loans", h.overdueSlips),
		r("library.loans.overdueLetters", http.MethodGet, "/api/library/loans/overdue-letters", "print", "library:loans", h.overdueLetters),
		r("library.students.receipt", http.MethodGet, "/api/library/students/{id}/receipt", "print", "library:loans", h.loanReceipt),
		r("library.loans.create", http.MethodPost, "/api/library/loans", "create", "library:loans", h.createLoan),
		r("library.loans.change", http.MethodPatch, "/api/library/loans", "update", "library:loans", h.changeLoan),
		r("library.loans.finished", http.MethodPost, "/api/library/loans/{id}/finished", "finish", "library:loans", h.markLoanFinished),
		r("library.studentLoans", http.MethodGet, "/api/library/student/loans", "read", "library:ownloans", h.studentLoans),
		r("library.studentLoans.renew", http.MethodPost, "/api/library/student/loans/{id}/renew", "renew", "library:ownloans", h.renewOwnLoan),
		r("library.studentHistory", http.MethodGet, "/api/library/student/history", "read", "library:ownhistory", h.studentHistory),
		r("library.studentHistory.finished", http.MethodPost, "/api/library/student/history/{loan_id}/finished", "finish", "library:ownhistory",
			h.markOwnFinished(library.FinishedByStudent)),
		r("library.studentHistory.unfinished", http.MethodDelete, "/api/library/student/history/{loan_id}/finished", "finish", "library:ownhistory",
			h.unmarkOwnFinished),
		r("library.studentRecommendations", http.MethodGet, "/api/library/student/recommendations", "read", "library:ownrecommendations", h.studentRecommendations),
		r("library.wantToRead", http.MethodGet, "/api/library/student/want-to-read", "read", "library:ownwants", h.getWantToRead),
		r("library.wantToRead.add", http.MethodPut, "/api/library/student/want-to-read/{book_id}", "update", "library:ownwants", h.addWantToRead),
		r("library.wantToRead.remove", http.MethodDelete, "/api/library/student/want-to-read/{book_id}", "update", "library:ownwants", h.removeWantToRead),
		r("library.ownReviews", http.MethodGet, "/api/library/student/reviews", "read", "library:ownreviews", h.getOwnReviews),
		r("library.ownReviews.write", http.MethodPut, "/api/library/student/reviews/{book_id}", "write", "library:ownreviews", h.writeReview),
		r("library.ownReviews.withdraw", http.MethodDelete, "/api/library/student/reviews/{book_id}", "write", "library:ownreviews", h.withdrawReview),
		r("library.reviews.list", http.MethodGet, "/api/library/reviews", "read", "library:reviews", h.listReviews),
		r("library.reviews.decide", http.MethodPatch, "/api/library/reviews/{id}", "moderate", "library:reviews", h.decideReview),
		r("library.studentHistory.choice", http.MethodPut, "/api/library/student/history/choice", "update", "library:ownhistory", h.setHistoryChoice),
		r("library.loans.notices", http.MethodGet, "/api/library/loans/{id}/notices", "read", "library:notices", h.loanNotices),
		r("library.notices.settings.get", http.MethodGet, "/api/library/notices/settings", "read", "library:notices", h.getNoticeSettings),
		r("library.notices.settings.put", http.MethodPut, "/api/library/notices/settings", "update", "library:notices", h.putNoticeSettings),
		r("library.homerooms.get", http.MethodGet, "/api/library/homerooms", "read", "library:homerooms", h.getHomerooms),
		r("library.homerooms.put", http.MethodPut, "/api/library/homerooms", "update", "library:homerooms", h.putHomerooms),
		r("library.classes.list", http.MethodGet, "/api/library/classes", "read", "library:classes", h.listClasses),
		r("library.classes.get", http.MethodGet, "/api/library/class", "read", "library:classes", h.getClass),
		r("library.classes.reading", http.MethodGet, "/api/library/class/reading", "read", "library:classes", h.getClassReading),
		r("library.holds.list", http.MethodGet, "/api/library/holds", "read", "library:holds", h.listHolds),
		r("library.holds.create", http.MethodPost, "/api/library/holds", "create", "library:holds", h.placeHold),
		r("library.holds.cancel", http.MethodDelete, "/api/library/holds/{hold_id}", "delete", "library:holds", h.cancelHold),
		r("library.studentHolds", http.MethodGet, "/api/library/student/holds", "read", "library:ownholds", h.studentHolds),
		r("library.studentHolds.readingList", http.MethodPut, "/api/library/student/reading-list-holds", "update", "library:ownholds", h.setReadingListHolds),
		r("library.charges.list", http.MethodGet, "/api/library/charges", "read", "library:charges", h.listCharges),
		r("library.charges.settle", http.MethodPatch, "/api/library/charges/{id}", "update", "library:charges", h.settleCharge),
		r("library.studentCharges", http.MethodGet, "/api/library/student/charges", "read", "library:owncharges", h.studentCharges),
		r("library.settings.get", http.MethodGet, "/api/library/settings", "read", "library:settings", h.getSettings),
		r("library.settings.put", http.MethodPut, "/api/library/settings", "update", "library:settings", h.putSettings),
		r("library.calendar.get", http.MethodGet, "/api/library/calendar", "read", "library:calendar", h.getCalendar),
		r("library.calendar.put", http.MethodPut, "/api/library/calendar", "update", "library:calendar", h.putCalendar),
		r("library.loanRules.get", http.MethodGet, "/api/library/loan-rules", "read", "library:loanrules", h.getLoanRules),
		r("library.loanRules.put", http.MethodPut, "/api/library/loan-rules", "update", "library:loanrules", h.putLoanRules),
		r("library.audit.list", http.MethodGet, "/api/library/audit", "read", "library:audit", h.listAudit),
		r("library.reports.loansPerMonth", http.MethodGet, "/api/library/reports/loans-per-month", "read", "library:reports", h.reportLoansPerMonth),
		r("library.reports.topTitles", http.MethodGet, "/api/library/reports/top-titles", "read", "library:reports", h.reportTopTitles),
		r("library.reports.overdueByHomeroom", http.MethodGet, "/api/library/reports/overdue-by-homeroom", "read", "library:reports", h.reportOverdueByHomeroom),
		r("library.reports.collectionByGenre", http.MethodGet, "/api/library/reports/collection-by-genre", "read", "library:reports",
			h.reportCollection(library.CollectionGenre, library.ReportGenres)),
		r("library.reports.collectionByReadingLevel", http.MethodGet, "/api/library/reports/collection-by-reading-level", "read", "library:reports",
			h.reportCollection(library.CollectionReadingLevel, library.ReportReadingLevels)),
		r("library.reports.neverBorrowed", http.MethodGet, "/api/library/reports/never-borrowed", "read", "library:reports", h.reportNeverBorrowed),
		r("library.reports.medianAge", http.MethodGet, "/api/library/reports/median-age", "read", "library:reports", h.reportMedianAge),
		r("library.reports.holdQueues", http.MethodGet, "/api/library/reports/hold-queues", "read", "library:reports", h.reportHoldQueues),
		r("library.reports.appReadingNotHeld", http.MethodGet, "/api/library/reports/app-reading-not-held", "read", "library:reports", h.reportAppReadingNotHeld),
		r("library.reports.outsideGrades", http.MethodGet, "/api/library/reports/never-borrowed-outside-grades", "read", "library:reports",
			h.reportOutsideGradesUnused),
		r("library.stocktakes.list", http.MethodGet, "/api/library/stocktakes", "read", "library:stocktakes", h.listStocktakes),
		r("library.stocktakes.open", http.MethodPost, "/api/library/stocktakes", "create", "library:stocktakes", h.openStocktake),
		r("library.stocktakes.scan", http.MethodPost, "/api/library/stocktakes/{id}/scans", "scan", "library:stocktakes", h.scanCopy),
		plainText(r("library.stocktakes.upload", http.MethodPost, "/api/library/stocktakes/{id}/scans/file", "scan", "library:stocktakes", h.uploadScans)),
		r("library.stocktakes.close", http.MethodPost, "/api/library/stocktakes/{id}/close", "update", "library:stocktakes", h.closeStocktake),
		r("library.stocktakes.report", http.MethodGet, "/api/library/stocktakes/{id}/report", "read", "library:stocktakes", h.stocktakeReport),
		r("library.stocktakes.checkIn", http.MethodPost, "/api/library/stocktakes/{id}/check-ins", "update", "library:stocktakes", h.stocktakeCheckIn),
		r("library.stocktakes.markLost", http.MethodPost, "/api/library/stocktakes/{id}/mark-missing-lost", "update", "library:stocktakes", h.markMissingLost),
		r("library.catalog", http.MethodGet, "/api/library/catalog/{domain}", "read", "library:catalog", h.publicCatalog),
		r("library.catalog.title", http.MethodGet, "/api/library/catalog/{domain}/books/{book_id}", "read", "library:catalog", h.publicCatalogTitle),
		r("library.catalog.cover", http.MethodGet, "/api/library/catalog/{domain}/books/{book_id}/cover", "read", "library:catalog", h.cover),
		r("library.catalog.reviews", http.MethodGet, "/api/library/catalog/{domain}/books/{book_id}/reviews", "read", "library:catalog", h.titleReviews),
	}
}

// unlimited marks an operational endpoint: probes and scrapers must never
// be rate limited.
func unlimited(rt httpedge.Route) httpedge.Route {
	rt.Budget = httpedge.BudgetNone
	return rt
}

// signIn marks a route that starts or extends a session: anonymous callers
// spend their address's sign-in budget, not the anonymous one.
func signIn(rt httpedge.Route) httpedge.Route {
	rt.Budget = httpedge.BudgetSignIn
	return rt
}

// rosterRoute marks a route that takes a rosterRoute upload (rosterMediaTypes).
func rosterRoute(rt httpedge.Route) httpedge.Route {
	rt.MediaType = rosterMediaTypes
	return rt
}

// csv marks a route whose body is text/csv instead of JSON.
func csv(rt httpedge.Route) httpedge.Route {
	rt.MediaType = "text/csv"
	return rt
}

// plainText marks a route whose body is plain text (a scanner's file).
func plainText(rt httpedge.Route) httpedge.Route {
	rt.MediaType = "text/plain"
	return rt
}
