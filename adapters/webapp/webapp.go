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
// the shared edge, adapters/httpedge (see EdgeRoutes), which authenticates
// the cookie session and applies the CSRF rule to every form post.
//
// Every page works without JavaScript; app.js only adds conveniences
// (student suggestions, reading a CSV file into the import box, one submit
// per form).
//
// It may import ports, the core packages, adapters/httpedge and outside
// libraries; no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package webapp

import (
	"html/template"
	"net/http"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
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
	if deps.Library == nil || deps.Identity == nil || deps.Authorizer == nil {
		panic("webapp.New: nil dependency")
	}
	a := &App{deps: deps, cfg: cfg, Now: time.Now}
	a.pages = mustParsePages()
	a.assets, a.urls = mustLoadAssets()
	return a
}

// EdgeRoutes are the page routes as the edge serves them: marked as pages,
// with the guard's refusals (CSRF, policy, body type) shown as error pages.
func (a *App) EdgeRoutes() []httpedge.Route {
	var out []httpedge.Route
	for _, rt := range a.Routes() {
		out = append(out, httpedge.Route{Name: rt.Name, Method: rt.Method, Path: rt.Path, Action: rt.Action, Resource: rt.Resource,
			MediaType: rt.MediaType, Page: true, Handle: rt.Handle, OnError: a.fail})
	}
	return out
}

// Routes lists the page routes. The static assets come first so that
// /library/assets/... is never read as a school domain.
func (a *App) Routes() []Route {
	view := func(name, path string, fn http.HandlerFunc) Route {
		return Route{Name: name, Method: http.MethodGet, Path: path, Action: actionView, Resource: resourcePages, Handle: fn}
	}
	// upload is a form post with a file (multipart/form-data).
	upload := func(name, path string, fn http.HandlerFunc) Route {
		return Route{Name: name, Method: http.MethodPost, Path: path, Action: actionSubmit, Resource: resourceForms, MediaType: "multipart/form-data", Handle: fn}
	}
	submit := func(name, path string, fn http.HandlerFunc) Route {
		return Route{Name: name, Method: http.MethodPost, Path: path, Action: actionSubmit, Resource: resourceForms, MediaType: formMediaType, Handle: fn}
	}
	const school = "/library/{domain}"
	return []Route{
		view("web.assets", "/library/assets/{name}", a.asset),
		view("web.signin", signInPath, a.signIn),
		// Before the school pages: "invite" is not a domain (no dot).
		view("web.invite", signInPath+"/invite", a.acceptInvitePage),
		submit("web.invite.accept", signInPath+"/invite", a.acceptInvite),
		// The form posts to POST /api/auth/password, which sends the
		// browser back here with the outcome.
		view("web.password", signInPath+"/password", a.passwordPage),
		view("web.forgotPassword", forgotPasswordPath, a.forgotPasswordPage),
		submit("web.forgotPassword.send", forgotPasswordPath, a.forgotPassword),
		view("web.resetPassword", resetPasswordPath, a.resetPasswordPage),
		submit("web.resetPassword.save", resetPasswordPath, a.resetPassword),
		view("web.verifyEmail", verifyEmailPath, a.verifyEmailPage),
		submit("web.verifyEmail.confirm", verifyEmailPath, a.verifyEmail),
		view("web.desk", school, a.desk),
		submit("web.checkout", school+"/checkout", a.checkout),
		submit("web.return", school+"/return", a.returnCopy),
		submit("web.renew", school+"/renew", a.renew),
		submit("web.loans.end", school+"/loans/end", a.endLoan),
		submit("web.repaired", school+"/repaired", a.repaired),
		view("web.charges", school+"/charges", a.chargesPage),
		submit("web.charges.settle", school+"/charges/settle", a.settleCharge),
		view("web.books", school+"/books", a.books),
		submit("web.books.add", school+"/books", a.addBook),
		submit("web.copies.add", school+"/copies", a.addCopies),
		submit("web.books.category", school+"/books/category", a.setBookCategory),
		view("web.holds", school+"/holds", a.holdsPage),
		submit("web.holds.place", school+"/holds", a.placeHold),
		submit("web.holds.cancel", school+"/holds/cancel", a.cancelHold),
		submit("web.books.price", school+"/books/price", a.setBookPrice),
		submit("web.books.details", school+"/books/details", a.setBookDetails),
		view("web.holdings", school+"/holdings", a.holdingsPage),
		{Name: "web.holdings.import", Method: http.MethodPost, Path: school + "/holdings/import", Action: actionSubmit, Resource: resourceForms,
			MediaType: holdingsUploadMediaType, Handle: a.importHoldingsForm},
		view("web.students", school+"/students", a.students),
		submit("web.students.add", school+"/students", a.addStudent),
		submit("web.students.import", school+"/students/import", a.importStudents),
		submit("web.students.update", school+"/students/update", a.updateStudent),
		view("web.roster", school+"/roster", a.rosterPage),
		submit("web.roster.check", school+"/roster/check", a.checkRoster),
		submit("web.roster.sync", school+"/roster/sync", a.applyRoster),
		upload("web.roster.checkOneRoster", school+"/roster/oneroster/check", a.checkOneRoster),
		upload("web.roster.syncOneRoster", school+"/roster/oneroster/sync", a.applyOneRoster),
		submit("web.rollover.check", school+"/roster/rollover/check", a.checkRollover),
		submit("web.rollover.run", school+"/roster/rollover", a.runRollover),
		view("web.settings", school+"/settings", a.settings),
		submit("web.settings.save", school+"/settings", a.saveSettings),
		view("web.calendar", school+"/calendar", a.calendar),
		submit("web.calendar.save", school+"/calendar", a.saveCalendar),
		view("web.loanRules", school+"/loan-rules", a.loanRules),
		submit("web.loanRules.save", school+"/loan-rules", a.saveLoanRules),
		view("web.reports", school+"/reports", a.reports),
		view("web.accounts", school+"/accounts", a.accounts),
		submit("web.accounts.invite", school+"/accounts/invite", a.invite),
		submit("web.accounts.manage", school+"/accounts/manage", a.manage),
		submit("web.accounts.unlock", school+"/accounts/unlock", a.unlock),
		view("web.notices", school+"/notices", a.notices),
		submit("web.notices.save", school+"/notices", a.saveNotices),
		submit("web.homerooms.save", school+"/homerooms", a.saveHomerooms),
		view("web.loan.notices", school+"/loans/{id}/notices", a.loanNotices),
		view("web.catalog", school+"/catalog", a.catalog),
		view("web.stocktake", school+"/stocktake", a.stocktakePage),
		submit("web.stocktake.open", school+"/stocktake", a.openStocktake),
		submit("web.stocktake.scan", school+"/stocktake/scan", a.scanStocktake),
		submit("web.stocktake.upload", school+"/stocktake/upload", a.uploadStocktake),
		submit("web.stocktake.close", school+"/stocktake/close", a.closeStocktake),
		submit("web.stocktake.checkIn", school+"/stocktake/check-in", a.stocktakeCheckIn),
		submit("web.stocktake.markLost", school+"/stocktake/mark-lost", a.stocktakeMarkLost),
	}
}
