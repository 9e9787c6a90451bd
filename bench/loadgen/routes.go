package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
)

// world is what the representative requests need: the demo accounts'
// tokens and ids and a few objects of the demo school.
type world struct {
	s                                  *svc
	admin, lib, staff, student, reader string // access tokens
	readerID, studentID, schoolID      string
	readerPublicID                     string // the id /v1/users shows (usr_...)
	bookID, chapterID                  string // a free catalog book
	libBookID, libCode                 string // a library book and one copy's code
	libCtx                             context.Context
	n                                  atomic.Int64
}

func (w *world) unique() int64 { return w.n.Add(1) }

func newWorld(ctx context.Context, s *svc, books []libBook) (*world, error) {
	w := &world{s: s}
	for _, l := range []struct {
		email string
		tok   *string
	}{{demoAdmin, &w.admin}, {demoLibrarian, &w.lib}, {demoStaff, &w.staff}, {demoStudent, &w.student}, {demoReader, &w.reader}} {
		sess, err := login(s.URL, l.email, app.DemoPassword)
		if err != nil {
			return nil, err
		}
		*l.tok = sess.Access
	}
	var err error
	var acct user.Account
	if w.libCtx, acct, err = s.asEmail(ctx, demoLibrarian); err != nil {
		return nil, err
	}
	w.schoolID = acct.SchoolID
	if _, acct, err = s.asEmail(ctx, demoReader); err != nil {
		return nil, err
	}
	w.readerID = acct.ID
	me, err := do(s.URL, rq{Path: "/v1/users/me", Token: w.reader})
	if err != nil || me.Status != 200 {
		return nil, fmt.Errorf("GET /v1/users/me: %v %d", err, me.Status)
	}
	w.readerPublicID = me.field("id")
	if _, acct, err = s.asEmail(ctx, demoStudent); err != nil {
		return nil, err
	}
	w.studentID = acct.ID
	b, err := s.App.Books.CreateBook(ctx, catalogDraft(1_000_000))
	if err != nil {
		return nil, err
	}
	w.bookID, w.chapterID = b.ID, b.Chapters[0].ID
	if len(books) > 0 {
		w.libBookID, w.libCode = books[len(books)-1].ID, books[len(books)-1].Code
	} else {
		lb, err := w.freshLibraryBook()
		if err != nil {
			return nil, err
		}
		w.libBookID, w.libCode = lb.ID, lb.Code
	}
	return w, nil
}

func (w *world) freshLibraryBook() (libBook, error) {
	b, copies, err := w.s.App.Library.Holdings.AddBook(w.libCtx, "", library.BookDraft{Title: fmt.Sprintf("Probe %d", w.unique()), Author: "Probe", Copies: 1})
	if err != nil {
		return libBook{}, err
	}
	return libBook{ID: b.ID, CopyID: copies[0].ID, Code: copies[0].Code}, nil
}

func (w *world) freshCatalogBook() (string, error) {
	b, err := w.s.App.Books.CreateBook(context.Background(), catalogDraft(2_000_000+int(w.unique())))
	return b.ID, err
}

func (w *world) freshSession() (session, error) {
	email := fmt.Sprintf("probe%d@bench.example.org", w.unique())
	if _, err := w.s.App.Identity.CreateAccount(context.Background(), identity.NewAccountInput{
		Email: email, Password: "quiet meadow path 1", Name: "Probe", Role: user.RoleReader,
	}); err != nil {
		return session{}, err
	}
	return login(w.s.URL, email, "quiet meadow path 1")
}

// routeCase is one representative request of a route of the router's table;
// prep makes whatever fresh object the request needs (its commands are not
// counted).
type routeCase struct {
	Route string
	Label string
	Prep  func() (rq, error)
}

func fixed(r rq) func() (rq, error) { return func() (rq, error) { return r, nil } }

func (w *world) cases(search string) []routeCase {
	q := strings.ReplaceAll(search, " ", "+")
	sch := "?schoolId=" + w.schoolID
	return []routeCase{
		{"system.healthz", "GET /healthz", fixed(rq{Path: "/healthz"})},
		{"system.readyz", "GET /readyz", fixed(rq{Path: "/readyz"})},
		{"system.metrics", "GET /metrics", fixed(rq{Path: "/metrics"})},
		{"system.openapi", "GET /openapi.json", fixed(rq{Path: "/openapi.json"})},
		{"system.oidc", "GET /.well-known/openid-configuration", fixed(rq{Path: "/.well-known/openid-configuration"})},
		{"system.jwks", "GET /.well-known/jwks.json", fixed(rq{Path: "/.well-known/jwks.json"})},

		{"auth.login", "POST /api/auth/login (reader)", fixed(rq{Method: "POST", Path: "/api/auth/login",
			Body: fmt.Sprintf(`{"email":%q,"password":%q}`, demoReader, app.DemoPassword)})},
		{"auth.refresh", "POST /api/auth/refresh {refresh_token}", func() (rq, error) {
			s, err := login(w.s.URL, demoReader, app.DemoPassword)
			return rq{Method: "POST", Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, s.Refresh)}, err
		}},
		{"auth.logout", "POST /api/auth/logout {refresh_token}", func() (rq, error) {
			s, err := login(w.s.URL, demoReader, app.DemoPassword)
			return rq{Method: "POST", Path: "/api/auth/logout", Body: fmt.Sprintf(`{"refresh_token":%q}`, s.Refresh)}, err
		}},
		{"auth.signup", "POST /api/auth/signup", func() (rq, error) {
			return rq{Method: "POST", Path: "/api/auth/signup",
				Body: fmt.Sprintf(`{"email":"signup%d@bench.example.org","password":"a-long-password","name":"New"}`, w.unique())}, nil
		}},
		{"auth.verifyEmail", "POST /api/auth/verify-email (fresh sign-up token)", func() (rq, error) {
			token := fmt.Sprintf("bench-signup-token-%d", w.unique())
			now := time.Now()
			err := w.s.App.Repos.MailTokens.Create(context.Background(), auth.MailToken{
				Hash: auth.HashToken(token), Purpose: auth.PurposeSignup, Email: fmt.Sprintf("verified%d@bench.example.org", w.unique()),
				Name: "New", PasswordHash: "unusable", CreatedAt: now, ExpiresAt: now.Add(auth.SignupTTL),
			})
			return rq{Method: "POST", Path: "/api/auth/verify-email", Body: fmt.Sprintf(`{"token":%q}`, token)}, err
		}},
		{"auth.passwordReset", "POST /api/auth/password-reset (demo reader; mail sent after the answer)", fixed(rq{Method: "POST", Path: "/api/auth/password-reset",
			Body: fmt.Sprintf(`{"email":%q}`, demoReader)})},
		{"auth.passwordReset.confirm", "POST /api/auth/password-reset/confirm (fresh account and token)", func() (rq, error) {
			acct, err := w.s.App.Identity.CreateAccount(context.Background(), identity.NewAccountInput{
				Email: fmt.Sprintf("reset%d@bench.example.org", w.unique()), Password: "probe-password-1", Name: "Probe", Role: user.RoleReader,
			})
			if err != nil {
				return rq{}, err
			}
			token := fmt.Sprintf("bench-reset-token-%d", w.unique())
			now := time.Now()
			err = w.s.App.Repos.MailTokens.Create(context.Background(), auth.MailToken{
				Hash: auth.HashToken(token), Purpose: auth.PurposePasswordReset, AccountID: acct.ID, CreatedAt: now, ExpiresAt: now.Add(auth.PasswordResetTTL),
			})
			return rq{Method: "POST", Path: "/api/auth/password-reset/confirm", Body: fmt.Sprintf(`{"token":%q,"new_password":"another-password-2"}`, token)}, err
		}},

		{"users.me", "GET /v1/users/me", fixed(rq{Path: "/v1/users/me", Token: w.reader})},
		{"users.me.update", "PATCH /v1/users/me {preferences}", fixed(rq{Method: "PATCH", Path: "/v1/users/me", Token: w.reader,
			Body: `{"preferences":{"theme":"sepia"}}`})},
		{"users.me.delete", "DELETE /v1/users/me (fresh reader)", func() (rq, error) {
			s, err := w.freshSession()
			return rq{Method: "DELETE", Path: "/v1/users/me", Token: s.Access}, err
		}},
		{"users.me.stats", "GET /v1/users/me/stats", fixed(rq{Path: "/v1/users/me/stats", Token: w.reader})},
		{"users.me.export", "GET /v1/users/me/export", fixed(rq{Path: "/v1/users/me/export", Token: w.reader})},
		{"users.me.readingList", "GET /v1/users/me/reading-list", fixed(rq{Path: "/v1/users/me/reading-list", Token: w.reader})},
		{"users.get", "GET /v1/users/{own id}", fixed(rq{Path: "/v1/users/" + w.readerPublicID, Token: w.reader})},
		{"users.stats", "GET /v1/users/{own id}/stats", fixed(rq{Path: "/v1/users/" + w.readerPublicID + "/stats", Token: w.reader})},

		{"books.recommendations", "GET /v1/books/recommendations", fixed(rq{Path: "/v1/books/recommendations", Token: w.reader})},
		{"books.list", "GET /v1/books?page=3&limit=20", fixed(rq{Path: "/v1/books?page=3&limit=20", Token: w.reader})},
		{"books.list", "GET /v1/books?search=" + q, fixed(rq{Path: "/v1/books?search=" + q, Token: w.reader})},
		{"books.list", "GET /v1/books?genre=mystery&reading_level=advanced&sort=-rating", fixed(rq{
			Path: "/v1/books?genre=mystery&reading_level=advanced&sort=-rating&limit=20", Token: w.reader})},
		{"books.create", "POST /v1/books (admin)", func() (rq, error) {
			return rq{Method: "POST", Path: "/v1/books", Token: w.admin, Body: fmt.Sprintf(`{"title":"Probe %d","author":"Ana Lopes","genre":"fantasy",
				"reading_level":"beginner","access":"free","rating":4,"pages":20,"published_date":"2021-05-04","language":"en","description":"A probe.",
				"chapters":[{"title":"One","page_start":1,"page_end":10,"text":"The fox ran."},{"title":"Two","page_start":11,"page_end":20,"text":"The end."}]}`, w.unique())}, nil
		}},
		{"books.get", "GET /v1/books/{id}", fixed(rq{Path: "/v1/books/" + w.bookID, Token: w.reader})},
		{"books.update", "PATCH /v1/books/{fresh id} {title} (admin)", func() (rq, error) {
			id, err := w.freshCatalogBook()
			return rq{Method: "PATCH", Path: "/v1/books/" + id, Token: w.admin, Body: `{"title":"Renamed Probe"}`}, err
		}},
		{"books.delete", "DELETE /v1/books/{fresh id} (admin)", func() (rq, error) {
			id, err := w.freshCatalogBook()
			return rq{Method: "DELETE", Path: "/v1/books/" + id, Token: w.admin}, err
		}},
		{"books.content", "GET /v1/books/{id}/content?chapter=", fixed(rq{Path: "/v1/books/" + w.bookID + "/content?chapter=" + w.chapterID, Token: w.reader})},
		{"books.readingList.add", "POST /v1/books/{fresh id}/reading-list", func() (rq, error) {
			id, err := w.freshCatalogBook()
			return rq{Method: "POST", Path: "/v1/books/" + id + "/reading-list", Token: w.reader}, err
		}},
		{"books.readingList.remove", "DELETE /v1/books/{listed id}/reading-list", func() (rq, error) {
			id, err := w.freshCatalogBook()
			if err != nil {
				return rq{}, err
			}
			if a, err := do(w.s.URL, rq{Method: "POST", Path: "/v1/books/" + id + "/reading-list", Token: w.reader}); err != nil || a.Status != 200 {
				return rq{}, fmt.Errorf("add to list: %v %d %s", err, a.Status, a.Body)
			}
			return rq{Method: "DELETE", Path: "/v1/books/" + id + "/reading-list", Token: w.reader}, nil
		}},
		{"books.progress", "PATCH /v1/books/{id}/progress", fixed(rq{Method: "PATCH", Path: "/v1/books/" + w.bookID + "/progress", Token: w.reader,
			Body: `{"page_number":2,"time_spent":30}`})},

		{"auth.acceptInvite", "POST /api/auth/accept-invite (fresh invitation)", func() (rq, error) {
			a, err := do(w.s.URL, rq{Method: "POST", Path: "/api/library/invite", Token: w.admin,
				Body: fmt.Sprintf(`{"email":"inv%d@maplegrove.example.org","school_id":%q,"role":"staff"}`, w.unique(), w.schoolID)})
			if err != nil || a.Status != 201 {
				return rq{}, fmt.Errorf("invite: %v %d %s", err, a.Status, a.Body)
			}
			return rq{Method: "POST", Path: "/api/auth/accept-invite", Body: fmt.Sprintf(`{"token":%q,"password":"chosen-password-1"}`, a.field("invite_token"))}, nil
		}},
		{"admin.schools.create", "POST /api/admin/schools (admin)", func() (rq, error) {
			return rq{Method: "POST", Path: "/api/admin/schools", Token: w.admin, Body: fmt.Sprintf(`{"name":"S","domain":"s%d.bench.example.org"}`, w.unique())}, nil
		}},
		{"admin.schools.list", "GET /api/admin/schools (admin)", fixed(rq{Path: "/api/admin/schools", Token: w.admin})},
		{"admin.users.update", "PATCH /api/admin/users/{id} {tier} (admin)", fixed(rq{Method: "PATCH", Path: "/api/admin/users/" + w.readerID, Token: w.admin, Body: `{"tier":"standard"}`})},
		{"library.accounts.list", "GET /api/library/accounts (admin)", fixed(rq{Path: "/api/library/accounts" + sch, Token: w.admin})},
		{"library.invite", "POST /api/library/invite {password} (admin)", func() (rq, error) {
			return rq{Method: "POST", Path: "/api/library/invite", Token: w.admin,
				Body: fmt.Sprintf(`{"email":"lib%d@maplegrove.example.org","school_id":%q,"password":"invite-pass-1"}`, w.unique(), w.schoolID)}, nil
		}},
		{"library.accounts.manage", "PATCH /api/library/accounts/manage (admin)", fixed(rq{Method: "PATCH", Path: "/api/library/accounts/manage", Token: w.admin,
			Body: fmt.Sprintf(`{"account_id":%q,"suspended":false}`, w.readerID)})},
		{"library.students.create", "POST /api/library/students (librarian)", func() (rq, error) {
			return rq{Method: "POST", Path: "/api/library/students", Token: w.lib, Body: fmt.Sprintf(`{"name":"Pupil %d"}`, w.unique())}, nil
		}},
		{"library.students.list", "GET /api/library/students (librarian)", fixed(rq{Path: "/api/library/students", Token: w.lib})},
		{"library.students.import", "POST /api/library/students/import, 1 CSV row", func() (rq, error) {
			return rq{Method: "POST", Path: "/api/library/students/import", Token: w.lib, ContentType: "text/csv",
				Body: fmt.Sprintf("name,student_number\nCsv Pupil,CSV-%d\n", w.unique())}, nil
		}},
		{"library.books.create", "POST /api/library/books, 1 copy", func() (rq, error) {
			return rq{Method: "POST", Path: "/api/library/books", Token: w.lib, Body: fmt.Sprintf(`{"title":"B%d","author":"M","copies":1}`, w.unique())}, nil
		}},
		{"library.books.list", "GET /api/library/books (librarian)", fixed(rq{Path: "/api/library/books", Token: w.lib})},
		{"library.books.get", "GET /api/library/books/{id} (librarian)", fixed(rq{Path: "/api/library/books/" + w.libBookID, Token: w.lib})},
		{"library.copies.create", "POST /api/library/copies, 1 copy", fixed(rq{Method: "POST", Path: "/api/library/copies", Token: w.lib,
			Body: fmt.Sprintf(`{"book_id":%q,"count":1}`, w.libBookID)})},
		{"library.copies.find", "GET /api/library/copies?code=", fixed(rq{Path: "/api/library/copies?code=" + w.libCode, Token: w.lib})},
		{"library.copies.labels", "GET /api/library/copies/labels?book_id= (PDF)", fixed(rq{Path: "/api/library/copies/labels?book_id=" + w.libBookID, Token: w.lib})},
		{"library.loans.list", "GET /api/library/loans (librarian)", fixed(rq{Path: "/api/library/loans", Token: w.lib})},
		{"library.loans.create", "POST /api/library/loans (fresh copy)", func() (rq, error) {
			b, err := w.freshLibraryBook()
			return rq{Method: "POST", Path: "/api/library/loans", Token: w.lib,
				Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, b.ID, b.CopyID, w.studentID)}, err
		}},
		{"library.loans.change", "PATCH /api/library/loans return (fresh loan)", func() (rq, error) {
			b, err := w.freshLibraryBook()
			if err != nil {
				return rq{}, err
			}
			l, err := w.s.App.Library.Circulation.CreateLoan(w.libCtx, circulation.LoanInput{BookID: b.ID, CopyID: b.CopyID, StudentID: w.studentID})
			return rq{Method: "PATCH", Path: "/api/library/loans", Token: w.lib, Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, l.Loan.ID)}, err
		}},
		{"library.studentLoans", "GET /api/library/student/loans (student)", fixed(rq{Path: "/api/library/student/loans", Token: w.student})},
		{"library.settings.get", "GET /api/library/settings (librarian)", fixed(rq{Path: "/api/library/settings", Token: w.lib})},
		{"library.settings.put", "PUT /api/library/settings (librarian)", fixed(rq{Method: "PUT", Path: "/api/library/settings", Token: w.lib,
			Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true}`})},
		{"library.catalog", "GET /api/library/catalog/{domain} (anonymous)", fixed(rq{Path: "/api/library/catalog/" + demoSchoolDomain})},

		// Lost copies and charges.
		{"library.students.standing", "GET /api/library/students/{id}/standing (librarian)", fixed(rq{Path: "/api/library/students/" + w.studentID + "/standing", Token: w.lib})},
		{"library.books.update", "PATCH /api/library/books/{id} {price_cents, loan_category}", fixed(rq{Method: "PATCH", Path: "/api/library/books/" + w.libBookID, Token: w.lib,
			Body: `{"price_cents":1500,"loan_category":"standard"}`})},
		{"library.copies.change", "PATCH /api/library/copies/{id} checkin (fresh lost copy)", func() (rq, error) {
			l, err := w.freshLostLoan()
			return rq{Method: "PATCH", Path: "/api/library/copies/" + l.CopyID, Token: w.lib, Body: `{"action":"checkin"}`}, err
		}},
		{"library.charges.list", "GET /api/library/charges (librarian)", fixed(rq{Path: "/api/library/charges", Token: w.lib})},
		{"library.charges.settle", "PATCH /api/library/charges/{id} paid (fresh charge)", func() (rq, error) {
			l, err := w.freshLostLoan()
			return rq{Method: "PATCH", Path: "/api/library/charges/" + library.ChargeID(l.ID, library.ChargeReplacement), Token: w.lib,
				Body: `{"action":"paid"}`}, err
		}},
		{"library.studentCharges", "GET /api/library/student/charges (student)", fixed(rq{Path: "/api/library/student/charges", Token: w.student})},

		// Stocktakes: the report walks the whole seeded school; the
		// actions that change copies work on a range no book has.
		{"library.stocktakes.list", "GET /api/library/stocktakes (librarian)", fixed(rq{Path: "/api/library/stocktakes", Token: w.lib})},
		{"library.stocktakes.open", "POST /api/library/stocktakes (a range)", fixed(rq{Method: "POST", Path: "/api/library/stocktakes", Token: w.lib,
			Body: `{"from":"500","to":"599"}`})},
		{"library.stocktakes.scan", "POST /api/library/stocktakes/{id}/scans (fresh copy)", func() (rq, error) {
			id, err := w.freshStocktake("", "")
			return rq{Method: "POST", Path: "/api/library/stocktakes/" + id + "/scans", Token: w.lib, Body: fmt.Sprintf(`{"code":%q}`, w.libCode)}, err
		}},
		{"library.stocktakes.upload", "POST /api/library/stocktakes/{id}/scans/file (one code)", func() (rq, error) {
			id, err := w.freshStocktake("", "")
			return rq{Method: "POST", Path: "/api/library/stocktakes/" + id + "/scans/file", Token: w.lib, Body: w.libCode + "\n",
				ContentType: "text/plain"}, err
		}},
		{"library.stocktakes.close", "POST /api/library/stocktakes/{id}/close (fresh)", func() (rq, error) {
			id, err := w.freshStocktake("", "")
			return rq{Method: "POST", Path: "/api/library/stocktakes/" + id + "/close", Token: w.lib}, err
		}},
		{"library.stocktakes.report", "GET /api/library/stocktakes/{id}/report (whole school)", func() (rq, error) {
			id, err := w.freshStocktake("", "")
			return rq{Path: "/api/library/stocktakes/" + id + "/report", Token: w.lib}, err
		}},
		{"library.stocktakes.checkIn", "POST /api/library/stocktakes/{id}/check-ins (fresh lent copy)", func() (rq, error) {
			b, err := w.freshLibraryBook()
			if err != nil {
				return rq{}, err
			}
			if _, err := w.s.App.Library.Circulation.CreateLoan(w.libCtx, circulation.LoanInput{BookID: b.ID, CopyID: b.CopyID, StudentID: w.studentID}); err != nil {
				return rq{}, err
			}
			id, err := w.freshStocktake("", "")
			if err != nil {
				return rq{}, err
			}
			if _, err := w.s.App.Library.Stocktakes.Scan(w.libCtx, "", id, b.Code); err != nil {
				return rq{}, err
			}
			return rq{Method: "POST", Path: "/api/library/stocktakes/" + id + "/check-ins", Token: w.lib, Body: fmt.Sprintf(`{"copy_id":%q}`, b.CopyID)}, nil
		}},
		{"library.stocktakes.markLost", "POST /api/library/stocktakes/{id}/mark-missing-lost (a range no book has)", func() (rq, error) {
			id, err := w.freshStocktake("ZZ PROBE", "ZZ PROBE")
			if err == nil {
				_, err = w.s.App.Library.Stocktakes.Close(w.libCtx, "", id)
			}
			return rq{Method: "POST", Path: "/api/library/stocktakes/" + id + "/mark-missing-lost", Token: w.lib}, err
		}},
	}
}

// freshStocktake opens a stocktake of the range as the librarian.
func (w *world) freshStocktake(from, to string) (string, error) {
	st, err := w.s.App.Library.Stocktakes.Open(w.libCtx, "", from, to)
	return st.ID, err
}

// freshLostLoan lends a fresh priced copy to the demo student and marks the
// loan lost, which charges its price.
func (w *world) freshLostLoan() (library.Loan, error) {
	b, err := w.freshLibraryBook()
	if err != nil {
		return library.Loan{}, err
	}
	c := w.s.App.Library
	if _, err := c.Holdings.SetBookPrice(w.libCtx, "", b.ID, 500); err != nil {
		return library.Loan{}, err
	}
	l, err := c.Circulation.CreateLoan(w.libCtx, circulation.LoanInput{BookID: b.ID, CopyID: b.CopyID, StudentID: w.studentID})
	if err != nil {
		return library.Loan{}, err
	}
	v, err := c.Circulation.EndLoan(w.libCtx, "", l.Loan.ID, library.OutcomeLost)
	return v.Loan, err
}

type libBook struct{ ID, CopyID, Code string }

// catalogDraft is a reading book for the cases that need a fresh one.
func catalogDraft(i int) catalog.BookDraft {
	return catalog.BookDraft{
		Title: readingTitle(i), Author: authorName(i), Genre: genres[i%len(genres)],
		ReadingLevel: levels[i%len(levels)], Pages: 10, Rating: float64(i%50) / 10,
		PublishedDate: fmt.Sprintf("20%02d-01-01", i%25),
		Chapters:      []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 10, Text: "Short text for the benchmark."}},
	}
}

type cmdCount struct {
	Status int
	Total  int
	ByName map[string]int
	Err    string
}

func (c cmdCount) names() string {
	keys := make([]string, 0, len(c.ByName))
	for k := range c.ByName {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.ByName[k]))
	}
	return strings.Join(parts, ", ")
}

// countRoutes issues each case once and counts the database commands it
// cost, and checks that every route of the router's table has a case.
func countRoutes(w *world) ([]routeCase, []cmdCount, []string) {
	cases := w.cases(booksSearch)
	have := map[string]bool{}
	for _, c := range cases {
		have[c.Route] = true
	}
	var missing []string
	for _, r := range w.s.App.Handler.Routes() {
		if !have[r.Name] {
			missing = append(missing, r.Name+" ("+r.Method+" "+r.Path+")")
		}
	}
	out := make([]cmdCount, len(cases))
	for i, c := range cases {
		r, err := c.Prep()
		if err != nil {
			out[i] = cmdCount{Err: "prepare: " + err.Error()}
			continue
		}
		w.s.Counter.Reset()
		a, err := do(w.s.URL, r)
		out[i] = cmdCount{Status: a.Status, Total: w.s.Counter.Total(), ByName: w.s.Counter.ByName()}
		if err != nil {
			out[i].Err = err.Error()
		} else if a.Status >= 300 {
			out[i].Err = fmt.Sprintf("%d %.160s", a.Status, a.Body)
		}
	}
	return cases, out, missing
}
