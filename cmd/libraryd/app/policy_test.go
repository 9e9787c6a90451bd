package app

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/adapters/httpapi"
	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/adapters/passwordhash"
	"github.com/readinglibrary/service/adapters/ratelimit"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/adapters/webapp"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/policies"
	"github.com/readinglibrary/service/ports"
)

// whoMayCall is the intended access of every route, by policy subject. The
// test below fails when a route is added without a row here, or when the
// policies in policies/ say something else.
var whoMayCall = map[string]string{
	"system.healthz":             "admin anonymous librarian reader staff student teacher",
	"system.readyz":              "admin anonymous librarian reader staff student teacher",
	"system.metrics":             "admin anonymous librarian reader staff student teacher",
	"system.openapi":             "admin anonymous librarian reader staff student teacher",
	"system.oidc":                "admin anonymous librarian reader staff student teacher",
	"system.jwks":                "admin anonymous librarian reader staff student teacher",
	"auth.login":                 "admin anonymous librarian reader staff student teacher",
	"auth.refresh":               "admin anonymous librarian reader staff student teacher",
	"auth.logout":                "admin anonymous librarian reader staff student teacher",
	"auth.signup":                "admin anonymous librarian reader staff student teacher",
	"auth.password":              "admin librarian reader staff student teacher",
	"auth.verifyEmail":           "admin anonymous librarian reader staff student teacher",
	"auth.passwordReset":         "admin anonymous librarian reader staff student teacher",
	"auth.passwordReset.confirm": "admin anonymous librarian reader staff student teacher",
	"users.me":                   "admin librarian reader staff student teacher",

	"users.me.readingList":        "admin librarian reader staff student teacher",
	"users.me.update":             "admin librarian reader staff student teacher",
	"users.me.delete":             "admin librarian reader staff student teacher",
	"users.me.stats":              "admin librarian reader staff student teacher",
	"users.me.export":             "admin librarian reader staff student teacher",
	"users.me.readingRecord":      "admin librarian reader staff student teacher",
	"users.me.readingRecord.loan": "student",
	"users.get":                   "admin librarian reader staff student teacher",
	"users.stats":                 "admin librarian reader staff student teacher",
	"books.recommendations":       "admin librarian reader staff student teacher",
	"books.list":                  "admin librarian reader staff student teacher",
	"books.create":                "admin",
	"books.get":                   "admin librarian reader staff student teacher",
	"books.update":                "admin",
	"books.delete":                "admin",
	"books.content":               "admin librarian reader staff student teacher",
	"books.readingList.add":       "admin librarian reader staff student teacher",
	"books.readingList.remove":    "admin librarian reader staff student teacher",
	"books.progress":              "admin librarian reader staff student teacher",

	"auth.acceptInvite":                        "admin anonymous librarian reader staff student teacher",
	"admin.schools.create":                     "admin",
	"admin.schools.list":                       "admin",
	"admin.users.update":                       "admin",
	"library.accounts.list":                    "admin staff",
	"library.invite":                           "admin",
	"library.accounts.manage":                  "admin",
	"library.accounts.unlock":                  "admin librarian",
	"library.students.create":                  "admin librarian",
	"library.students.list":                    "admin librarian staff",
	"library.students.import":                  "admin librarian",
	"library.students.update":                  "admin librarian",
	"library.holdings.import":                  "admin librarian",
	"library.holdings.export":                  "admin librarian",
	"library.holdings.importJob":               "admin librarian",
	"library.jobs.get":                         "admin librarian",
	"library.students.sync":                    "admin librarian",
	"library.students.rollover":                "admin librarian",
	"library.students.leavers":                 "admin librarian staff",
	"library.students.cards":                   "admin librarian staff",
	"library.kiosks.list":                      "admin librarian",
	"library.kiosks.create":                    "admin librarian",
	"library.kiosks.delete":                    "admin librarian",
	"library.offlineScans.upload":              "admin librarian",
	"library.offlineScans.conflicts":           "admin librarian",
	"library.offlineScans.settle":              "admin librarian",
	"library.books.create":                     "admin librarian",
	"library.catalogLookup":                    "admin librarian",
	"library.books.list":                       "admin librarian staff",
	"library.books.get":                        "admin librarian staff",
	"library.books.appLink.get":                "admin librarian staff",
	"library.books.appLink.put":                "admin librarian",
	"library.books.appLink.delete":             "admin librarian",
	"library.copies.create":                    "admin librarian",
	"library.copies.find":                      "admin librarian staff",
	"library.copies.labels":                    "admin librarian staff",
	"library.loans.list":                       "admin librarian staff",
	"library.loans.overdueSlips":               "admin librarian staff",
	"library.loans.overdueLetters":             "admin librarian staff",
	"library.students.receipt":                 "admin librarian staff",
	"library.loans.create":                     "admin librarian",
	"library.loans.change":                     "admin librarian",
	"library.loans.finished":                   "admin librarian",
	"library.studentLoans":                     "student",
	"library.studentLoans.renew":               "student",
	"library.studentHistory":                   "student",
	"library.studentHistory.choice":            "student",
	"library.studentHistory.finished":          "student",
	"library.studentHistory.unfinished":        "student",
	"library.wantToRead":                       "student",
	"library.studentRecommendations":           "student",
	"library.wantToRead.add":                   "student",
	"library.wantToRead.remove":                "student",
	"library.ownReviews":                       "student",
	"library.ownReviews.write":                 "student",
	"library.ownReviews.withdraw":              "student",
	"library.reviews.list":                     "admin librarian staff",
	"library.reviews.decide":                   "admin librarian",
	"library.holds.list":                       "admin librarian staff",
	"library.holds.create":                     "admin librarian student",
	"library.holds.cancel":                     "admin librarian student",
	"library.studentHolds":                     "student",
	"library.studentHolds.readingList":         "student",
	"library.settings.get":                     "admin librarian staff student teacher",
	"library.settings.put":                     "admin librarian",
	"library.calendar.get":                     "admin librarian staff",
	"library.calendar.put":                     "admin librarian",
	"library.loanRules.get":                    "admin librarian staff",
	"library.loanRules.put":                    "admin librarian",
	"library.audit.list":                       "admin librarian",
	"library.reports.loansPerMonth":            "admin librarian staff",
	"library.reports.topTitles":                "admin librarian staff",
	"library.reports.overdueByHomeroom":        "admin librarian staff",
	"library.reports.collectionByGenre":        "admin librarian staff",
	"library.reports.collectionByReadingLevel": "admin librarian staff",
	"library.reports.neverBorrowed":            "admin librarian staff",
	"library.reports.medianAge":                "admin librarian staff",
	"library.reports.holdQueues":               "admin librarian staff",
	"library.reports.appReadingNotHeld":        "admin librarian staff",
	"library.reports.outsideGrades":            "admin librarian staff",
	"library.books.update":                     "admin librarian",
	"library.loans.notices":                    "admin librarian staff",
	"library.notices.settings.get":             "admin librarian staff",
	"library.notices.settings.put":             "admin librarian",
	"library.homerooms.get":                    "admin librarian staff",
	"library.classes.list":                     "admin librarian staff teacher",
	"library.classes.get":                      "admin librarian staff teacher",
	"library.classes.reading":                  "admin librarian staff teacher",
	"library.homerooms.put":                    "admin librarian",
	"library.catalog":                          "admin anonymous librarian reader staff student teacher",
	"library.catalog.title":                    "admin anonymous librarian reader staff student teacher",
	"library.catalog.reviews":                  "admin anonymous librarian reader staff student teacher",
	"library.catalog.cover":                    "admin anonymous librarian reader staff student teacher",
	"library.books.cover.put":                  "admin librarian",
	"library.books.cover.delete":               "admin librarian",

	"library.students.standing":   "admin librarian staff",
	"library.copies.change":       "admin librarian",
	"library.charges.list":        "admin librarian staff",
	"library.charges.settle":      "admin librarian",
	"library.stocktakes.list":     "admin librarian staff",
	"library.stocktakes.open":     "admin librarian",
	"library.stocktakes.scan":     "admin librarian",
	"library.stocktakes.upload":   "admin librarian",
	"library.stocktakes.close":    "admin librarian",
	"library.stocktakes.report":   "admin librarian staff",
	"library.stocktakes.checkIn":  "admin librarian",
	"library.stocktakes.markLost": "admin librarian",
	"library.studentCharges":      "student",

	// The web app's pages and forms are open to every subject at the route;
	// each page then asks the permission of its JSON route (checked by the
	// page tests in test/webapp_test.go).
	"web.assets":                  "admin anonymous librarian reader staff student teacher",
	"web.signin":                  "admin anonymous librarian reader staff student teacher",
	"web.invite":                  "admin anonymous librarian reader staff student teacher",
	"web.invite.accept":           "admin anonymous librarian reader staff student teacher",
	"web.password":                "admin anonymous librarian reader staff student teacher",
	"web.desk":                    "admin anonymous librarian reader staff student teacher",
	"web.classes":                 "admin anonymous librarian reader staff student teacher",
	"web.class":                   "admin anonymous librarian reader staff student teacher",
	"web.class.reading":           "admin anonymous librarian reader staff student teacher",
	"web.class.readingChart":      "admin anonymous librarian reader staff student teacher",
	"web.checkout":                "admin anonymous librarian reader staff student teacher",
	"web.return":                  "admin anonymous librarian reader staff student teacher",
	"web.renew":                   "admin anonymous librarian reader staff student teacher",
	"web.books":                   "admin anonymous librarian reader staff student teacher",
	"web.books.add":               "admin anonymous librarian reader staff student teacher",
	"web.copies.add":              "admin anonymous librarian reader staff student teacher",
	"web.holds":                   "admin anonymous librarian reader staff student teacher",
	"web.holds.place":             "admin anonymous librarian reader staff student teacher",
	"web.holds.cancel":            "admin anonymous librarian reader staff student teacher",
	"web.ownLoans.renew":          "admin anonymous librarian reader staff student teacher",
	"web.catalog.hold":            "admin anonymous librarian reader staff student teacher",
	"web.history":                 "admin anonymous librarian reader staff student teacher",
	"web.picks":                   "admin anonymous librarian reader staff student teacher",
	"web.history.choice":          "admin anonymous librarian reader staff student teacher",
	"web.history.finished":        "admin anonymous librarian reader staff student teacher",
	"web.wantToRead":              "admin anonymous librarian reader staff student teacher",
	"web.wantToRead.holds":        "admin anonymous librarian reader staff student teacher",
	"web.reviews":                 "admin anonymous librarian reader staff student teacher",
	"web.reviews.decide":          "admin anonymous librarian reader staff student teacher",
	"web.review":                  "admin anonymous librarian reader staff student teacher",
	"web.review.save":             "admin anonymous librarian reader staff student teacher",
	"web.catalog.title":           "admin anonymous librarian reader staff student teacher",
	"web.books.cover":             "admin anonymous librarian reader staff student teacher",
	"web.books.cover.remove":      "admin anonymous librarian reader staff student teacher",
	"web.students":                "admin anonymous librarian reader staff student teacher",
	"web.students.add":            "admin anonymous librarian reader staff student teacher",
	"web.students.import":         "admin anonymous librarian reader staff student teacher",
	"web.students.update":         "admin anonymous librarian reader staff student teacher",
	"web.students.guardians":      "admin anonymous librarian reader staff student teacher",
	"web.students.guardians.save": "admin anonymous librarian reader staff student teacher",
	// The Roster page and its forms.
	"web.roster":                "admin anonymous librarian reader staff student teacher",
	"web.roster.check":          "admin anonymous librarian reader staff student teacher",
	"web.roster.sync":           "admin anonymous librarian reader staff student teacher",
	"web.roster.checkOneRoster": "admin anonymous librarian reader staff student teacher",
	"web.roster.syncOneRoster":  "admin anonymous librarian reader staff student teacher",
	"web.rollover.check":        "admin anonymous librarian reader staff student teacher",
	"web.rollover.run":          "admin anonymous librarian reader staff student teacher",

	"web.settings":           "admin anonymous librarian reader staff student teacher",
	"web.settings.save":      "admin anonymous librarian reader staff student teacher",
	"web.calendar":           "admin anonymous librarian reader staff student teacher",
	"web.calendar.save":      "admin anonymous librarian reader staff student teacher",
	"web.loanRules":          "admin anonymous librarian reader staff student teacher",
	"web.audit":              "admin anonymous librarian reader staff student teacher",
	"web.labels":             "admin anonymous librarian reader staff student teacher",
	"web.kiosks":             "admin anonymous librarian reader staff student teacher",
	"web.kiosks.add":         "admin anonymous librarian reader staff student teacher",
	"web.kiosks.remove":      "admin anonymous librarian reader staff student teacher",
	"web.offline":            "admin anonymous librarian reader staff student teacher",
	"web.offline.settle":     "admin anonymous librarian reader staff student teacher",
	"web.offlineFallback":    "admin anonymous librarian reader staff student teacher",
	"web.holdings":           "admin anonymous librarian reader staff student teacher",
	"web.holdings.import":    "admin anonymous librarian reader staff student teacher",
	"web.reports":            "admin anonymous librarian reader staff student teacher",
	"web.loanRules.save":     "admin anonymous librarian reader staff student teacher",
	"web.books.category":     "admin anonymous librarian reader staff student teacher",
	"web.accounts":           "admin anonymous librarian reader staff student teacher",
	"web.accounts.invite":    "admin anonymous librarian reader staff student teacher",
	"web.accounts.manage":    "admin anonymous librarian reader staff student teacher",
	"web.accounts.unlock":    "admin anonymous librarian reader staff student teacher",
	"web.catalog":            "admin anonymous librarian reader staff student teacher",
	"web.notices":            "admin anonymous librarian reader staff student teacher",
	"web.notices.save":       "admin anonymous librarian reader staff student teacher",
	"web.homerooms.save":     "admin anonymous librarian reader staff student teacher",
	"web.loan.notices":       "admin anonymous librarian reader staff student teacher",
	"web.loans.end":          "admin anonymous librarian reader staff student teacher",
	"web.loans.finished":     "admin anonymous librarian reader staff student teacher",
	"web.repaired":           "admin anonymous librarian reader staff student teacher",
	"web.charges":            "admin anonymous librarian reader staff student teacher",
	"web.charges.settle":     "admin anonymous librarian reader staff student teacher",
	"web.books.price":        "admin anonymous librarian reader staff student teacher",
	"web.stocktake":          "admin anonymous librarian reader staff student teacher",
	"web.stocktake.open":     "admin anonymous librarian reader staff student teacher",
	"web.stocktake.scan":     "admin anonymous librarian reader staff student teacher",
	"web.stocktake.upload":   "admin anonymous librarian reader staff student teacher",
	"web.stocktake.close":    "admin anonymous librarian reader staff student teacher",
	"web.stocktake.checkIn":  "admin anonymous librarian reader staff student teacher",
	"web.stocktake.markLost": "admin anonymous librarian reader staff student teacher",
	"web.books.details":      "admin anonymous librarian reader staff student teacher",
	"web.books.appLink":      "admin anonymous librarian reader staff student teacher",
	"web.books.appLink.save": "admin anonymous librarian reader staff student teacher",

	"web.forgotPassword":      "admin anonymous librarian reader staff student teacher",
	"web.forgotPassword.send": "admin anonymous librarian reader staff student teacher",
	"web.resetPassword":       "admin anonymous librarian reader staff student teacher",
	"web.resetPassword.save":  "admin anonymous librarian reader staff student teacher",
	"web.verifyEmail":         "admin anonymous librarian reader staff student teacher",
	"web.verifyEmail.confirm": "admin anonymous librarian reader staff student teacher",
}

var subjects = []user.Principal{
	user.Anonymous,
	{AccountID: "a1", Role: user.RoleReader, Tier: user.TierStandard},
	{AccountID: "a2", Role: user.RoleStudent, SchoolID: "s1", Tier: user.TierStandard},
	{AccountID: "a3", Role: user.RoleStaff, SchoolID: "s1", Tier: user.TierStandard},
	{AccountID: "a4", Role: user.RoleLibrarian, SchoolID: "s1", Tier: user.TierStandard},
	{AccountID: "a5", Role: user.RoleAdmin, Tier: user.TierStandard},
	{AccountID: "a6", Role: user.RoleTeacher, SchoolID: "s1", Tier: user.TierStandard},
}

// TestEveryRouteHasAnExplicitPolicy walks the real router's routes and asks
// the real policies (as embedded in the binary) for every subject: each
// route is allowed exactly for the subjects of its row, by an explicit allow
// policy, and everything else falls to the default deny.
func TestEveryRouteHasAnExplicitPolicy(t *testing.T) {
	authz, err := ladonauthz.LoadFS(policies.Files)
	if err != nil {
		t.Fatal(err)
	}
	routes := newTestHandler(t, authz).Routes()
	if len(routes) != len(whoMayCall) {
		t.Errorf("router has %d routes, the table %d", len(routes), len(whoMayCall))
	}
	ctx := context.Background()
	for _, rt := range routes {
		want, ok := whoMayCall[rt.Name]
		if !ok {
			t.Errorf("route %s (%s %s) has no row in whoMayCall", rt.Name, rt.Method, rt.Path)
			continue
		}
		var allowed []string
		for _, p := range subjects {
			err := authz.Authorize(ctx, ports.AccessRequest{Principal: p, Action: rt.Action, Resource: rt.Resource})
			switch {
			case err == nil:
				allowed = append(allowed, p.Subject())
			case !errs.Is(err, errs.Forbidden):
				t.Errorf("%s for %s: %v, want nil or Forbidden", rt.Name, p.Subject(), err)
			}
		}
		sort.Strings(allowed)
		if got := strings.Join(allowed, " "); got != want {
			t.Errorf("%s (%s on %s): allowed for %q, want %q", rt.Name, rt.Action, rt.Resource, got, want)
		}
	}
	// Default deny: a permission no policy names is refused for everyone.
	for _, p := range subjects {
		if err := authz.Authorize(ctx, ports.AccessRequest{Principal: p, Action: "delete", Resource: "users:profile"}); !errs.Is(err, errs.Forbidden) {
			t.Errorf("unlisted permission for %s: %v, want Forbidden", p.Subject(), err)
		}
	}
}

// newTestHandler wires the HTTP handler on the SQLite store (a temporary file).
func newTestHandler(t testing.TB, authz ports.Authorizer) *httpedge.Handler {
	h, _ := newTestWiring(t, authz)
	return h
}

// newTestWiring also returns the identity service, to create accounts.
func newTestWiring(t testing.TB, authz ports.Authorizer) (*httpedge.Handler, *identity.Identity) {
	h, identity, _ := newTestWiringWithCatalog(t, authz)
	return h, identity
}

// newTestWiringWithCatalog also returns the catalog service, to add books.
func newTestWiringWithCatalog(t testing.TB, authz ports.Authorizer) (*httpedge.Handler, *identity.Identity, *reading.Books) {
	t.Helper()
	ctx := context.Background()
	repos := sqlitetest.NewDB(t).Repositories()
	keys, err := jwttoken.LoadKeys(ctx, repos.SigningKeys, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := jwttoken.New(jwttoken.Config{Issuer: "http://test", Audience: "library-api", TTL: 15 * time.Minute}, keys)
	if err != nil {
		t.Fatal(err)
	}
	store := ratelimit.NewMemoryStore()
	limits, err := ratelimit.New(store, map[ports.RateTier]limiter.Rate{
		ports.RateAnonymous: {Period: time.Hour, Limit: 100}, ports.RateAuthenticated: {Period: time.Hour, Limit: 1 << 40}, ports.RatePremium: {Period: time.Hour, Limit: 10000},
		ports.RateSignIn: {Period: time.Hour, Limit: 5000}, ports.RateMailRecipient: {Period: time.Hour, Limit: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	ident := identity.NewIdentity(wire.Identity(repos, tokens, passwordhash.New(), newLoginThrottle(store, Config{LoginFailuresPerAddress: 50, LoginFailuresPerAccount: 10, LoginFailuresPerAccountAddress: 5}, []byte("policy-test-device-key-32-bytes!"))), identity.IdentityConfig{})
	books := reading.NewBooks(wire.Books(repos, authz))
	lib := service.NewLibrary(wire.Library(repos), ident, service.LibraryConfig{})
	edge := httpedge.New(httpedge.Deps{Sessions: ident, Authorizer: authz, RateLimiter: limits, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))},
		httpedge.Config{IssuerURL: "http://test", MetricsToken: "policy-test-metrics-token"})
	h := frontDoors(edge, httpapi.Deps{
		Identity: ident, Users: users.NewUsers(wire.Users(repos, authz)), Books: books, Library: lib, Tokens: tokens, Health: repos.Health,
	}, webapp.Deps{Library: lib, Identity: ident, Authorizer: authz}, webapp.Config{})
	return h, ident, books
}
