// Package webapp is the librarian's web app: server-rendered HTML pages
// (html/template, with their CSS and a little JavaScript embedded in the
// binary) for the desk, the school catalog, students, settings and staff
// accounts, and a public catalog page.
//
// The pages call the same use cases as the JSON API (service.Library) and
// ask the same Ladon policies: every page route has its own permission
// (view on web:pages, submit on web:forms, open to everyone so that a page
// can send an anonymous visitor to the sign-in form), and every page then
// asks the Authorizer for the permission of the equivalent JSON route
// (check-out asks create on library:loans). The routes are served through
// httpapi's middleware chain (see httpapi.ExtraRoute), which authenticates
// the cookie session and applies the CSRF rule to every form post.
//
// Every page works without JavaScript; app.js only adds conveniences
// (student suggestions, reading a CSV file into the import box, one submit
// per form).
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package webapp

import (
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/ports"
)

// Deps are the use cases and ports the pages call.
type Deps struct {
	Library *service.Library
	// Identity serves the forgotten-password and sign-up confirmation
	// pages.
	Identity   *service.Identity
	Authorizer ports.Authorizer
	// LoggerOf returns the request's logger, which names its request id
	// (httpapi.RequestLogger), so a page's error line can be matched to
	// its access line.
	LoggerOf func(*http.Request) *slog.Logger
	// StatusOf maps an error kind to its HTTP status: the JSON API's table
	// (httpapi.StatusOf), so pages and API answer alike.
	StatusOf func(errs.Kind) (int, bool)
}

// Config holds the web app's settings.
type Config struct {
	// CookieSecure sets the Secure attribute on the flash-message cookie;
	// off only for plain-http development, like the session cookies.
	CookieSecure bool
}

// Route is one page route with the permission the route guard asks for.
type Route struct {
	Name     string
	Method   string
	Path     string // gorilla/mux template
	Action   string
	Resource string
	// Needs are the permissions of the equivalent JSON route, which the
	// page asks after the route's own: the first one refused answers the
	// 403 page and the page does not run.
	Needs []Permission
	// Public marks a page that needs nothing beyond the route's own
	// permission (sign-in, assets); every other route names its Needs.
	Public bool
	// MediaType is the body type of a form post; empty for GET.
	MediaType string
	Handle    http.HandlerFunc
}

// Permissions of the page routes themselves (policies/web.json). Whether
// the caller may use what a page shows is asked separately.
const (
	actionView     = "view"
	resourcePages  = "web:pages"
	actionSubmit   = "submit"
	resourceForms  = "web:forms"
	formMediaType  = "application/x-www-form-urlencoded"
	signInPath     = "/library"
	maxFormBytes   = 1 << 20
	flashCookie    = "sb-flash"
	flashCookieAge = 60 // seconds: the flash is read by the very next page
)

// App serves the pages. It is safe for concurrent use.
type App struct {
	deps   Deps
	cfg    Config
	pages  map[string]*template.Template
	assets map[string]asset
	urls   assetURLs
	// Now is replaceable in tests.
	Now func() time.Time
}

// New parses the embedded templates and assets. It panics on a nil
// dependency or a broken template (both are programming errors).
func New(deps Deps, cfg Config) *App {
	if deps.Library == nil || deps.Identity == nil || deps.Authorizer == nil || deps.StatusOf == nil {
		panic("webapp.New: nil dependency")
	}
	if deps.LoggerOf == nil {
		deps.LoggerOf = func(*http.Request) *slog.Logger { return slog.Default() }
	}
	a := &App{deps: deps, cfg: cfg, Now: time.Now}
	a.pages = mustParsePages()
	a.assets, a.urls = mustLoadAssets()
	return a
}

// Routes lists the page routes, each with what its guard asks before the
// page runs (guard.go). The static assets come first so that
// /library/assets/... is never read as a school domain.
func (a *App) Routes() []Route {
	route := func(method, media, name, path string, g gate, h schoolHandler, needs []Permission) Route {
		action, resource := actionView, resourcePages
		if method == http.MethodPost {
			action, resource = actionSubmit, resourceForms
		}
		return Route{Name: name, Method: method, Path: path, Action: action, Resource: resource, Needs: needs, Public: g == public,
			MediaType: media, Handle: a.guard(g, needs, h)}
	}
	// view and submit are the pages outside a school.
	view := func(name, path string, g gate, h http.HandlerFunc, needs ...Permission) Route {
		return route(http.MethodGet, "", name, path, g, plain(h), needs)
	}
	submit := func(name, path string, g gate, h http.HandlerFunc, needs ...Permission) Route {
		return route(http.MethodPost, formMediaType, name, path, g, plain(h), needs)
	}
	// page, post and upload are a school's pages: /library/{domain} and
	// below, for a member of the school (or an admin).
	const school = "/library/{domain}"
	page := func(name, sub string, h schoolHandler, needs ...Permission) Route {
		return route(http.MethodGet, "", name, school+sub, atSchool, h, needs)
	}
	post := func(name, sub string, h schoolHandler, needs ...Permission) Route {
		return route(http.MethodPost, formMediaType, name, school+sub, atSchool, h, needs)
	}
	// upload is a form post with a file.
	upload := func(name, sub, media string, h schoolHandler, needs ...Permission) Route {
		return route(http.MethodPost, media, name, school+sub, atSchool, h, needs)
	}
	const multipart = "multipart/form-data"
	return []Route{
		view("web.assets", "/library/assets/{name}", public, a.asset),
		view("web.signin", signInPath, public, a.signIn),
		// Before the school pages: "invite" is not a domain (no dot).
		view("web.invite", signInPath+"/invite", anyone, a.acceptInvitePage, need("accept", "auth:invite")),
		submit("web.invite.accept", signInPath+"/invite", anyone, a.acceptInvite, need("accept", "auth:invite")),
		// The form posts to POST /api/auth/password, which sends the
		// browser back here with the outcome.
		view("web.password", signInPath+"/password", member, a.passwordPage, need("change", "auth:password")),
		view("web.forgotPassword", forgotPasswordPath, anyone, a.forgotPasswordPage, need("request", "auth:password-reset")),
		submit("web.forgotPassword.send", forgotPasswordPath, anyone, a.forgotPassword, need("request", "auth:password-reset")),
		view("web.resetPassword", resetPasswordPath, anyone, a.resetPasswordPage, need("confirm", "auth:password-reset")),
		submit("web.resetPassword.save", resetPasswordPath, anyone, a.resetPassword, need("confirm", "auth:password-reset")),
		view("web.verifyEmail", verifyEmailPath, anyone, a.verifyEmailPage, need("verify", "auth:account")),
		submit("web.verifyEmail.confirm", verifyEmailPath, anyone, a.verifyEmail, need("verify", "auth:account")),
		// The desk for staff, the own loans for a student.
		page("web.desk", "", a.desk, need("read", "library:loans").of(staff), need("read", "library:ownloans").of(students)),
		post("web.checkout", "/checkout", a.checkout, need("create", "library:loans"), need("read", "library:copies")),
		post("web.return", "/return", a.returnCopy, need("update", "library:loans"), need("read", "library:copies")),
		post("web.renew", "/renew", a.renew, need("update", "library:loans"), need("read", "library:copies")),
		post("web.loans.end", "/loans/end", a.endLoan, need("update", "library:loans")),
		post("web.repaired", "/repaired", a.repaired, need("update", "library:copies"), need("read", "library:copies")),
		page("web.charges", "/charges", a.chargesPage, need("read", "library:charges")),
		post("web.charges.settle", "/charges/settle", a.settleCharge, need("update", "library:charges")),
		page("web.books", "/books", a.books, need("read", "library:copies")),
		post("web.books.add", "/books", a.addBook, need("create", "library:books")),
		post("web.copies.add", "/copies", a.addCopies, need("create", "library:copies")),
		post("web.books.category", "/books/category", a.setBookCategory, need("update", "library:books")),
		page("web.holds", "/holds", a.holdsPage, need("read", "library:holds")),
		post("web.holds.place", "/holds", a.placeHold, need("create", "library:holds"), need("read", "library:students")),
		post("web.holds.cancel", "/holds/cancel", a.cancelHold, need("delete", "library:holds")),
		post("web.books.price", "/books/price", a.setBookPrice, need("update", "library:books")),
		post("web.books.details", "/books/details", a.setBookDetails, need("update", "library:books")),
		page("web.holdings", "/holdings", a.holdingsPage, need("export", "library:holdings")),
		upload("web.holdings.import", "/holdings/import", holdingsUploadMediaType, a.importHoldingsForm, need("import", "library:holdings")),
		page("web.students", "/students", a.students, need("read", "library:students")),
		post("web.students.add", "/students", a.addStudent, need("create", "library:students")),
		post("web.students.import", "/students/import", a.importStudents, need("import", "library:students")),
		post("web.students.update", "/students/update", a.updateStudent, need("update", "library:students")),
		page("web.roster", "/roster", a.rosterPage, need("leavers", "library:students")),
		post("web.roster.check", "/roster/check", a.checkRoster, need("sync", "library:students")),
		post("web.roster.sync", "/roster/sync", a.applyRoster, need("sync", "library:students")),
		upload("web.roster.checkOneRoster", "/roster/oneroster/check", multipart, a.checkOneRoster, need("sync", "library:students")),
		upload("web.roster.syncOneRoster", "/roster/oneroster/sync", multipart, a.applyOneRoster, need("sync", "library:students")),
		post("web.rollover.check", "/roster/rollover/check", a.checkRollover, need("rollover", "library:students")),
		post("web.rollover.run", "/roster/rollover", a.runRollover, need("rollover", "library:students")),
		page("web.settings", "/settings", a.settings, need("read", "library:settings")),
		post("web.settings.save", "/settings", a.saveSettings, need("update", "library:settings")),
		page("web.calendar", "/calendar", a.calendar, need("read", "library:calendar")),
		post("web.calendar.save", "/calendar", a.saveCalendar, need("update", "library:calendar")),
		page("web.loanRules", "/loan-rules", a.loanRules, need("read", "library:loanrules")),
		post("web.loanRules.save", "/loan-rules", a.saveLoanRules, need("update", "library:loanrules")),
		page("web.reports", "/reports", a.reports, need("read", "library:reports")),
		page("web.accounts", "/accounts", a.accounts, need("read", "library:accounts")),
		post("web.accounts.invite", "/accounts/invite", a.invite, need("invite", "library:accounts")),
		post("web.accounts.manage", "/accounts/manage", a.manage, need("manage", "library:accounts")),
		post("web.accounts.unlock", "/accounts/unlock", a.unlock, need("unlock", "library:accounts")),
		page("web.notices", "/notices", a.notices, need("read", "library:notices")),
		post("web.notices.save", "/notices", a.saveNotices, need("update", "library:notices")),
		post("web.homerooms.save", "/homerooms", a.saveHomerooms, need("update", "library:homerooms")),
		page("web.loan.notices", "/loans/{id}/notices", a.loanNotices, need("read", "library:notices")),
		// The public catalog: open to anonymous visitors, and its
		// {domain} is any school's.
		view("web.catalog", school+"/catalog", anyone, a.catalog, need("read", "library:catalog")),
		page("web.stocktake", "/stocktake", a.stocktakePage, need("read", "library:stocktakes")),
		post("web.stocktake.open", "/stocktake", a.openStocktake, need("create", "library:stocktakes")),
		post("web.stocktake.scan", "/stocktake/scan", a.scanStocktake, need("scan", "library:stocktakes")),
		post("web.stocktake.upload", "/stocktake/upload", a.uploadStocktake, need("scan", "library:stocktakes")),
		post("web.stocktake.close", "/stocktake/close", a.closeStocktake, need("update", "library:stocktakes")),
		post("web.stocktake.checkIn", "/stocktake/check-in", a.stocktakeCheckIn, need("update", "library:stocktakes")),
		post("web.stocktake.markLost", "/stocktake/mark-lost", a.stocktakeMarkLost, need("update", "library:stocktakes")),
	}
}
