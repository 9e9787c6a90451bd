// Package webapp is the librarian's web app: server-rendered HTML pages
// (html/template, with their CSS and a little JavaScript embedded in the
// binary) for the desk, the school catalog, students, teachers' classes,
// settings and staff accounts, and a public catalog page.
//
// The pages call the same use cases as the JSON API (service.Library) and
// ask the same Ladon policies. Each line of the route table (Routes) names
// the page's handler, its own permission (view on web:pages, submit on
// web:forms, open to everyone so that a page can send an anonymous visitor
// to the sign-in form) and what the page needs beyond it: the permissions
// of the equivalent JSON routes (check-out needs create on library:loans).
// One guard (guard.go) asks those before the page runs; no handler asks
// for a permission. The routes are served through the shared edge,
// adapters/httpedge (see EdgeRoutes), which authenticates the cookie
// session and applies the CSRF rule to every form post.
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
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/ports"
)

// Deps are the use cases and ports the pages call.
type Deps struct {
	Library *service.Library
	// Identity serves the forgotten-password and sign-up confirmation
	// pages.
	Identity   *identity.Identity
	Authorizer ports.Authorizer
	// Uploads keeps the files the forms take while they are read; without
	// it they are read into memory.
	Uploads ports.UploadSpool
}

// Config holds the web app's settings.
type Config struct {
	// CookieSecure sets the Secure attribute on the flash-message cookie;
	// off only for plain-http development, like the session cookies.
	CookieSecure bool
}

// Route is one page route: the edge's route (the page's own permission,
// checked by the edge's guard) and what the page needs beyond it.
type Route struct {
	httpedge.Route
	// Needs are the permissions of the equivalent JSON route, which the
	// page asks after the route's own: the first one refused answers the
	// 403 page and the page does not run.
	Needs []Permission
	// Public marks a page that needs nothing beyond the route's own
	// permission (sign-in, assets); every other route names its Needs.
	Public bool
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
	deps  Deps
	cfg   Config
	pages map[i18n.Lang]map[string]*template.Template
	// texts are the pages' script's texts in each language.
	texts  map[i18n.Lang]pageTexts
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
	a.texts = map[i18n.Lang]pageTexts{}
	for _, lang := range i18n.Langs() {
		a.texts[lang] = newPageTexts(lang)
	}
	a.assets, a.urls = mustLoadAssets()
	return a
}

// EdgeRoutes are the page routes as the edge serves them: pages, whose
// guard refusals (CSRF, policy, body type) show as error pages.
func (a *App) EdgeRoutes() []httpedge.Route {
	var out []httpedge.Route
	for _, rt := range a.Routes() {
		out = append(out, rt.Route)
	}
	return out
}

// Routes lists the page routes, each with what its guard asks before the
// page runs (guard.go). The static assets come first so that
// /library/assets/... is never read as a school domain.
func (a *App) Routes() []Route {
	// at makes the routes of one method, body type and gate.
	at := func(method, media string, g gate) func(name, path string, h schoolHandler, needs ...Permission) Route {
		action, resource := actionView, resourcePages
		if method == http.MethodPost {
			action, resource = actionSubmit, resourceForms
		}
		return func(name, path string, h schoolHandler, needs ...Permission) Route {
			return Route{Route: httpedge.Route{Name: name, Method: method, Path: path, Action: action, Resource: resource,
				MediaType: media, Page: true, Handle: a.guard(g, needs, media == formMediaType, h), OnError: a.fail},
				Needs: needs, Public: g == public}
		}
	}
	openView := at(http.MethodGet, "", public)
	view, submit := at(http.MethodGet, "", anyone), at(http.MethodPost, formMediaType, anyone)
	memberView := at(http.MethodGet, "", member)
	// page, post and upload (a form post with a file) are a school's
	// pages, for a member of the school (or an admin).
	page, post := at(http.MethodGet, "", atSchool), at(http.MethodPost, formMediaType, atSchool)
	upload := at(http.MethodPost, "multipart/form-data", atSchool)
	uploadHoldings := at(http.MethodPost, holdingsUploadMediaType, atSchool)
	uploadCover := at(http.MethodPost, "multipart/form-data", atSchool)
	const school = "/library/{domain}"
	return []Route{
		openView("web.assets", "/library/assets/{name}", plain(a.asset)),
		openView("web.signin", signInPath, plain(a.signIn)),
		// Before the school pages: "invite" is not a domain (no dot).
		view("web.invite", signInPath+"/invite", plain(a.acceptInvitePage), need("accept", "auth:invite")),
		submit("web.invite.accept", signInPath+"/invite", plain(a.acceptInvite), need("accept", "auth:invite")),
		// The form posts to POST /api/auth/password, which sends the
		// browser back here with the outcome.
		memberView("web.password", signInPath+"/password", plain(a.passwordPage), need("change", "auth:password")),
		view("web.forgotPassword", forgotPasswordPath, plain(a.forgotPasswordPage), need("request", "auth:password-reset")),
		submit("web.forgotPassword.send", forgotPasswordPath, plain(a.forgotPassword), need("request", "auth:password-reset")),
		view("web.resetPassword", resetPasswordPath, plain(a.resetPasswordPage), need("confirm", "auth:password-reset")),
		submit("web.resetPassword.save", resetPasswordPath, plain(a.resetPassword), need("confirm", "auth:password-reset")),
		view("web.verifyEmail", verifyEmailPath, plain(a.verifyEmailPage), need("verify", "auth:account")),
		submit("web.verifyEmail.confirm", verifyEmailPath, plain(a.verifyEmail), need("verify", "auth:account")),
		// The desk for staff, the own loans for a student; a teacher is
		// sent on to their classes.
		page("web.desk", school, a.desk, need("read", "library:loans").of(forStaff), need("read", "library:ownloans").of(forStudents),
			need("read", "library:classes").of(forTeachers)),
		// What the desk's service worker shows offline for a desk it has not
		// kept, fetched from the desk it keeps (offlinefallback.go).
		page("web.offlineFallback", school+offlineFallbackPath, a.offlineFallback, need("read", "library:loans")),
		// Which classes and which students the caller sees is the use
		// case's answer, class by class.
		page("web.classes", school+"/classes", a.classesPage, need("read", "library:classes")),
		page("web.class", school+"/class", a.classPage, need("read", "library:classes")),
		page("web.class.reading", school+"/class/reading", a.classReadingPage, need("read", "library:classes")),
		page("web.class.readingChart", school+"/class/reading/chart", a.classReadingChart, need("read", "library:classes")),
		// Check-out looks the student up by number or name.
		post("web.checkout", school+"/checkout", a.checkout, need("create", "library:loans"), need("read", "library:copies"), need("read", "library:students")),
		// Return also puts a lost or claimed-returned copy back on the shelf.
		post("web.return", school+"/return", a.returnCopy, need("update", "library:loans"), need("read", "library:copies"), need("update", "library:copies")),
		post("web.renew", school+"/renew", a.renew, need("update", "library:loans"), need("read", "library:copies")),
		post("web.loans.end", school+"/loans/end", a.endLoan, need("update", "library:loans")),
		post("web.loans.finished", school+"/loans/finished", a.deskFinished, need("finish", "library:loans")),
		post("web.repaired", school+"/repaired", a.repaired, need("update", "library:copies"), need("read", "library:copies")),
		page("web.charges", school+"/charges", a.chargesPage, need("read", "library:charges")),
		post("web.charges.settle", school+"/charges/settle", a.settleCharge, need("update", "library:charges")),
		page("web.books", school+"/books", a.books, need("read", "library:copies")),
		post("web.books.add", school+"/books", a.addBook, need("create", "library:books")),
		post("web.copies.add", school+"/copies", a.addCopies, need("create", "library:copies")),
		post("web.books.category", school+"/books/category", a.setBookCategory, need("update", "library:books")),
		page("web.holds", school+"/holds", a.holdsPage, need("read", "library:holds")),
		post("web.holds.place", school+"/holds", a.placeHold, need("create", "library:holds"), need("read", "library:students")),
		post("web.holds.cancel", school+"/holds/cancel", a.cancelHold, need("delete", "library:holds")),
		post("web.ownLoans.renew", school+"/my-loans/renew", a.renewOwnLoan, need("renew", "library:ownloans")),
		page("web.history", school+"/my-history", a.history, need("read", "library:ownhistory")),
		page("web.picks", school+"/recommended", a.picks, need("read", "library:ownrecommendations")),
		post("web.history.choice", school+"/my-history/choice", a.chooseHistory, need("update", "library:ownhistory")),
		post("web.history.finished", school+"/my-history/finished", a.historyFinished, need("finish", "library:ownhistory")),
		page("web.reviews", school+"/reviews", a.reviewsPage, need("read", "library:reviews")),
		post("web.reviews.decide", school+"/reviews/decide", a.decideReview, need("moderate", "library:reviews")),
		page("web.review", school+"/review", a.reviewForm, need("write", "library:ownreviews")),
		post("web.review.save", school+"/review", a.saveReview, need("write", "library:ownreviews")),
		post("web.wantToRead", school+"/want-to-read", a.changeWant, need("update", "library:ownwants")),
		post("web.wantToRead.holds", school+"/want-to-read/holds", a.chooseListHolds, need("update", "library:ownholds")),
		post("web.catalog.hold", school+"/catalog/hold", a.placeOwnHold, need("create", "library:holds"), need("read", "library:ownholds")),
		post("web.books.price", school+"/books/price", a.setBookPrice, need("update", "library:books")),
		post("web.books.details", school+"/books/details", a.setBookDetails, need("update", "library:books")),
		page("web.books.appLink", school+"/books/app-link", a.appLinkPage, need("read", "library:books")),
		post("web.books.appLink.save", school+"/books/app-link", a.chooseAppLink, need("update", "library:books")),
		uploadCover("web.books.cover", school+"/books/cover", a.uploadCover, need("update", "library:books")),
		post("web.books.cover.remove", school+"/books/cover/remove", a.removeCover, need("update", "library:books")),
		page("web.holdings", school+"/holdings", a.holdingsPage, need("export", "library:holdings")),
		uploadHoldings("web.holdings.import", school+"/holdings/import", a.importHoldingsForm, need("import", "library:holdings")),
		page("web.students", school+"/students", a.students, need("read", "library:students")),
		post("web.students.add", school+"/students", a.addStudent, need("create", "library:students")),
		post("web.students.import", school+"/students/import", a.importStudents, need("import", "library:students")),
		post("web.students.update", school+"/students/update", a.updateStudent, need("update", "library:students")),
		page("web.students.guardians", school+"/students/guardians", a.studentGuardians, need("update", "library:students")),
		post("web.students.guardians.save", school+"/students/guardians", a.saveStudentGuardians, need("update", "library:students")),
		page("web.roster", school+"/roster", a.rosterPage, need("leavers", "library:students")),
		post("web.roster.check", school+"/roster/check", checkOrApply(a.syncRoster, true), need("sync", "library:students")),
		post("web.roster.sync", school+"/roster/sync", checkOrApply(a.syncRoster, false), need("sync", "library:students")),
		upload("web.roster.checkOneRoster", school+"/roster/oneroster/check", checkOrApply(a.syncOneRoster, true), need("sync", "library:students")),
		upload("web.roster.syncOneRoster", school+"/roster/oneroster/sync", checkOrApply(a.syncOneRoster, false), need("sync", "library:students")),
		post("web.rollover.check", school+"/roster/rollover/check", checkOrApply(a.rollover, true), need("rollover", "library:students")),
		post("web.rollover.run", school+"/roster/rollover", checkOrApply(a.rollover, false), need("rollover", "library:students")),
		page("web.settings", school+"/settings", a.settings, need("read", "library:settings")),
		post("web.settings.save", school+"/settings", a.saveSettings, need("update", "library:settings")),
		page("web.calendar", school+"/calendar", a.calendar, need("read", "library:calendar")),
		post("web.calendar.save", school+"/calendar", a.saveCalendar, need("update", "library:calendar")),
		page("web.loanRules", school+"/loan-rules", a.loanRules, need("read", "library:loanrules")),
		post("web.loanRules.save", school+"/loan-rules", a.saveLoanRules, need("update", "library:loanrules")),
		page("web.reports", school+"/reports", a.reports, need("read", "library:reports")),
		page("web.audit", school+"/audit", a.auditPage, need("read", "library:audit")),
		page("web.labels", school+"/labels", a.labelsPage, need("read", "library:copies")),
		page("web.kiosks", school+"/kiosks", a.kiosksPage, need("read", "library:kiosks")),
		post("web.kiosks.add", school+"/kiosks", a.addKiosk, need("create", "library:kiosks")),
		post("web.kiosks.remove", school+"/kiosks/remove", a.removeKiosk, need("delete", "library:kiosks")),
		page("web.offline", school+"/offline", a.offlinePage, need("read", "library:offline")),
		post("web.offline.settle", school+"/offline/settle", a.settleOffline, need("update", "library:offline")),
		page("web.accounts", school+"/accounts", a.accounts, need("read", "library:accounts")),
		post("web.accounts.invite", school+"/accounts/invite", a.invite, need("invite", "library:accounts")),
		post("web.accounts.manage", school+"/accounts/manage", a.manage, need("manage", "library:accounts")),
		post("web.accounts.unlock", school+"/accounts/unlock", a.unlock, need("unlock", "library:accounts")),
		page("web.notices", school+"/notices", a.notices, need("read", "library:notices")),
		post("web.notices.save", school+"/notices", a.saveNotices, need("update", "library:notices")),
		post("web.homerooms.save", school+"/homerooms", a.saveHomerooms, need("update", "library:homerooms")),
		page("web.loan.notices", school+"/loans/{id}/notices", a.loanNotices, need("read", "library:notices")),
		// The public catalog: open to anonymous visitors, and its
		// {domain} is any school's.
		view("web.catalog", school+"/catalog", plain(a.catalog), need("read", "library:catalog")),
		view("web.catalog.title", school+"/catalog/title", plain(a.titlePage), need("read", "library:catalog")),
		page("web.stocktake", school+"/stocktake", a.stocktakePage, need("read", "library:stocktakes")),
		post("web.stocktake.open", school+"/stocktake", a.openStocktake, need("create", "library:stocktakes")),
		post("web.stocktake.scan", school+"/stocktake/scan", a.scanStocktake, need("scan", "library:stocktakes")),
		post("web.stocktake.upload", school+"/stocktake/upload", a.uploadStocktake, need("scan", "library:stocktakes")),
		post("web.stocktake.close", school+"/stocktake/close", a.closeStocktake, need("update", "library:stocktakes")),
		post("web.stocktake.checkIn", school+"/stocktake/check-in", a.stocktakeCheckIn, need("update", "library:stocktakes")),
		post("web.stocktake.markLost", school+"/stocktake/mark-lost", a.stocktakeMarkLost, need("update", "library:stocktakes")),
	}
}
