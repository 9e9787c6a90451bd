package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// The actors of the role matrix, in table order.
var matrixActors = []string{"anonymous", "student A", "staff A", "teacher A", "librarian A", "librarian B", "admin"}

// matrixRow is one library or admin route: prepare makes a fresh request
// (fresh objects of school A where the route needs them, so every allowed
// actor can succeed); want is the expected status per actor; after, when
// set, checks that a refused request changed nothing.
type matrixRow struct {
	name    string
	prepare func(t *testing.T, w *libraryWorld) req
	want    [7]int
	after   func(t *testing.T, w *libraryWorld, rq req)
}

func TestLibraryRoleMatrix(t *testing.T) {
	// Each row asks once anonymously from the one test address: more rows
	// than the anonymous budget of an hour.
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H"})
	s := w.s
	n := 0
	unique := func() int { n++; return n }
	freshBook := func(t *testing.T) (string, string, string) {
		id, copies := w.addBook(t, w.admin, fmt.Sprintf(`{"school_id":%q,"title":"Matrix %d","author":"M","copies":1}`, w.schoolA, unique()))
		return id, copies[0]["id"].(string), copies[0]["code"].(string)
	}
	freshLoan := func(t *testing.T) string {
		bookID, copyID, _ := freshBook(t)
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.admin,
			Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, w.schoolA, bookID, copyID, w.studentAID)})
		if r.Status != 201 {
			t.Fatalf("fresh loan: %d %s", r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	// freshReturned is a fresh loan to student A, returned.
	freshReturned := func(t *testing.T) string {
		id := freshLoan(t)
		if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: w.admin,
			Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, id)}); r.Status != 200 {
			t.Fatalf("return the fresh loan: %d %s", r.Status, r.Body)
		}
		return id
	}
	// notFinished checks that a refused mark left the loan unmarked.
	notFinished := func(t *testing.T, id string) {
		if got, _ := s.App.Repos.FinishedLoans.OfLoans(t.Context(), []string{id}); len(got) != 0 {
			t.Fatalf("a refused mark recorded loan %s as read: %+v", id, got)
		}
	}
	// heldBook is a fresh title whose one copy a fresh student of A
	// borrows, so student A may hold it.
	heldBook := func(t *testing.T) string {
		bookID, copyID, _ := freshBook(t)
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.admin,
			Body: fmt.Sprintf(`{"school_id":%q,"name":"Matrix Borrower %d"}`, w.schoolA, unique())})
		if r.Status != 201 {
			t.Fatalf("fresh student: %d %s", r.Status, r.Body)
		}
		borrower := r.json(t)["student"].(map[string]any)["student_id"].(string)
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.admin,
			Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, w.schoolA, bookID, copyID, borrower)}); r.Status != 201 {
			t.Fatalf("lend the held book: %d %s", r.Status, r.Body)
		}
		return bookID
	}
	uploadCover := func(t *testing.T, bookID string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/books/" + bookID + "/cover?schoolId=" + w.schoolA, Token: w.admin,
			Headers: map[string]string{"Content-Type": "image/jpeg"}, Body: string(coverFile(t, "go-turns-two-280x360.jpeg"))})
	}
	// borrowedBook is a fresh title student A has borrowed, so may review.
	borrowedBook := func(t *testing.T) string {
		bookID, copyID, _ := freshBook(t)
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.admin,
			Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, w.schoolA, bookID, copyID, w.studentAID)}); r.Status != 201 {
			t.Fatalf("lend the reviewed book: %d %s", r.Status, r.Body)
		}
		return bookID
	}
	freshReview := func(t *testing.T) string {
		r := s.do(req{Method: http.MethodPut, Path: "/api/library/student/reviews/" + borrowedBook(t), Token: w.studentA, Body: `{"rating":4}`})
		if r.Status != 200 {
			t.Fatalf("fresh review: %d %s", r.Status, r.Body)
		}
		return r.json(t)["review"].(map[string]any)["id"].(string)
	}
	freshHold := func(t *testing.T) string {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.admin,
			Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"student_id":%q}`, w.schoolA, heldBook(t), w.studentAID)})
		if r.Status != 201 {
			t.Fatalf("fresh hold: %d %s", r.Status, r.Body)
		}
		return r.json(t)["hold"].(map[string]any)["id"].(string)
	}
	// freshStocktake opens (and closes) a stocktake of a range of call
	// numbers no book of the matrix has, so marking its missing copies lost
	// touches no other row's books.
	freshStocktake := func(t *testing.T, closed bool) string {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/stocktakes?schoolId=" + w.schoolA, Token: w.admin, Body: emptyRange(unique())})
		if r.Status != 201 {
			t.Fatalf("fresh stocktake: %d %s", r.Status, r.Body)
		}
		id := r.json(t)["stocktake"].(map[string]any)["id"].(string)
		if closed {
			if r := s.do(req{Method: http.MethodPost, Path: "/api/library/stocktakes/" + id + "/close?schoolId=" + w.schoolA, Token: w.admin}); r.Status != 200 {
				t.Fatalf("close the fresh stocktake: %d %s", r.Status, r.Body)
			}
		}
		return id
	}
	// importJob is one background import (a dry run, so it adds nothing)
	// of school A, started once: a second would wait for the first.
	var importJobID string
	importJob := func(t *testing.T) string {
		if importJobID == "" {
			r := s.do(req{Method: http.MethodPost, Token: w.admin, Headers: map[string]string{"Content-Type": "text/csv"},
				Path: "/api/library/holdings/imports?format=csv&dry_run=true&async=true&schoolId=" + w.schoolA,
				Body: fmt.Sprintf("title,author,barcode\nJob Book,M,JB-%d\n", unique())})
			if r.Status != 202 {
				t.Fatalf("start an import job: %d %s", r.Status, r.Body)
			}
			importJobID = r.json(t)["job"].(map[string]any)["id"].(string)
		}
		return importJobID
	}
	cardHomeroom := ""
	cardsOf := func(t *testing.T) string {
		if cardHomeroom == "" {
			cardHomeroom = fmt.Sprintf("C%d", unique())
			r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.admin,
				Body: fmt.Sprintf(`{"school_id":%q,"name":"Card Pupil","student_number":"CARD-%d","homeroom":%q}`, w.schoolA, unique(), cardHomeroom)})
			if r.Status != 201 {
				t.Fatalf("a student to print a card for: %d %s", r.Status, r.Body)
			}
		}
		return cardHomeroom
	}
	readerID := func() string {
		a, _ := s.App.Repos.Accounts.GetByEmail(t.Context(), demoReader)
		return a.ID
	}()
	const (
		A = 401 // anonymous, refused
		F = 403 // forbidden
		N = 404 // another school's object: as if it did not exist
	)
	rows := []matrixRow{
		{"POST /api/admin/schools", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/admin/schools", Body: fmt.Sprintf(`{"name":"S","domain":"s%d.example.org"}`, unique())}
		}, [7]int{A, F, F, F, F, F, 201}, nil},
		{"GET /api/admin/schools", func(*testing.T, *libraryWorld) req { return req{Path: "/api/admin/schools"} }, [7]int{A, F, F, F, F, F, 200}, nil},
		{"PATCH /api/admin/users/{id}", func(*testing.T, *libraryWorld) req {
			return req{Method: "PATCH", Path: "/api/admin/users/" + readerID, Body: `{"tier":"standard"}`}
		}, [7]int{A, F, F, F, F, F, 200}, nil},
		{"GET /api/library/accounts", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/accounts?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, F, F, 200}, nil},
		{"POST /api/library/invite", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/invite", Body: fmt.Sprintf(`{"email":"inv%d@example.org","school_id":%q,"password":"invite-pass-1"}`, unique(), w.schoolA)}
		}, [7]int{A, F, F, F, F, F, 201}, nil},
		{"PATCH /api/library/accounts/manage", func(*testing.T, *libraryWorld) req {
			return req{Method: "PATCH", Path: "/api/library/accounts/manage", Body: fmt.Sprintf(`{"account_id":%q,"suspended":false}`, readerID)}
		}, [7]int{A, F, F, F, F, F, 200}, nil},
		{"POST /api/library/accounts/{id}/unlock", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/accounts/" + w.studentAID + "/unlock"}
		}, [7]int{A, F, F, F, 200, N, 200}, nil},
		{"POST /api/library/students", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/students", Body: fmt.Sprintf(`{"school_id":%q,"name":"Pupil %d"}`, w.schoolA, unique())}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"GET /api/library/students", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/students?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"POST /api/library/students/import", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/students/import?schoolId=" + w.schoolA, Body: fmt.Sprintf("name,student_number\nCsv Pupil,CSV-%d\n", unique()),
				Headers: map[string]string{"Content-Type": "text/csv"}}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"POST /api/library/students/sync", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/students/sync?dry_run=true&schoolId=" + w.schoolA, Body: fmt.Sprintf("name,student_number\nSync Pupil,SYNC-%d\n", unique()),
				Headers: map[string]string{"Content-Type": "text/csv"}}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"POST /api/library/students/rollover", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/students/rollover", Body: fmt.Sprintf(`{"school_id":%q,"school_year":"2026","dry_run":true}`, w.schoolA)}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/students/leavers", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/students/leavers?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/students/cards", func(t *testing.T, w *libraryWorld) req {
			return req{Path: "/api/library/students/cards?homeroom=" + cardsOf(t) + "&schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/kiosks", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/kiosks?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"POST /api/library/kiosks", func(*testing.T, *libraryWorld) req {
			return req{Method: http.MethodPost, Path: "/api/library/kiosks?schoolId=" + w.schoolA,
				Body: fmt.Sprintf(`{"name":"Matrix kiosk","login":"matrix-%d"}`, unique())}
		}, [7]int{A, F, F, F, 201, F, 201}, func(t *testing.T, w *libraryWorld, rq req) {
			login := strings.TrimSuffix(strings.SplitN(rq.Body, `"login":"`, 2)[1], `"}`)
			for _, k := range s.do(req{Path: "/api/library/kiosks?schoolId=" + w.schoolA, Token: w.admin}).json(t)["kiosks"].([]any) {
				if k.(map[string]any)["login"] == login {
					t.Fatalf("a refused request made kiosk %s", login)
				}
			}
		}},
		{"DELETE /api/library/kiosks/{id}", func(t *testing.T, w *libraryWorld) req {
			r := s.do(req{Method: http.MethodPost, Path: "/api/library/kiosks?schoolId=" + w.schoolA, Token: w.admin,
				Body: fmt.Sprintf(`{"name":"Matrix kiosk","login":"matrix-%d"}`, unique())})
			if r.Status != 201 {
				t.Fatalf("fresh kiosk: %d %s", r.Status, r.Body)
			}
			return req{Method: http.MethodDelete, Path: "/api/library/kiosks/" + r.json(t)["kiosk"].(map[string]any)["id"].(string) + "?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 204, F, 204}, nil},
		{"POST /api/library/offline-scans", func(*testing.T, *libraryWorld) req {
			return req{Method: http.MethodPost, Path: "/api/library/offline-scans?schoolId=" + w.schoolA,
				Body: fmt.Sprintf(`{"scans":[{"id":%q,"kind":"return","code":"NO-SUCH-%d","scanned_at":"2026-01-05T10:00:00Z"}]}`, uuid.NewString(), unique())}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			code := strings.SplitN(strings.SplitN(rq.Body, `"code":"`, 2)[1], `"`, 2)[0]
			if strings.Contains(string(s.do(req{Path: "/api/library/offline-scans?limit=100&schoolId=" + w.schoolA, Token: w.admin}).Body), code) {
				t.Fatalf("a refused upload stored the scan of %s", code)
			}
		}},
		{"GET /api/library/offline-scans", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/offline-scans?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"PATCH /api/library/offline-scans/{id}", func(t *testing.T, w *libraryWorld) req {
			id := uuid.NewString()
			r := s.do(req{Method: http.MethodPost, Path: "/api/library/offline-scans?schoolId=" + w.schoolA, Token: w.admin,
				Body: fmt.Sprintf(`{"scans":[{"id":%q,"kind":"return","code":"NO-SUCH-%d","scanned_at":"2026-01-05T10:00:00Z"}]}`, id, unique())})
			if r.Status != 200 {
				t.Fatalf("fresh conflict: %d %s", r.Status, r.Body)
			}
			return req{Method: http.MethodPatch, Path: "/api/library/offline-scans/" + id + "?schoolId=" + w.schoolA, Body: `{"action":"dismiss"}`}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"PATCH /api/library/students/{id}", func(*testing.T, *libraryWorld) req {
			return req{Method: "PATCH", Path: "/api/library/students/" + w.studentAID, Body: fmt.Sprintf(`{"school_id":%q,"homeroom":"M%d"}`, w.schoolA, unique())}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"POST /api/library/holdings/imports", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/holdings/imports?format=csv&dry_run=true&schoolId=" + w.schoolA,
				Body: fmt.Sprintf("title,author,barcode\nMatrix Book,M,MX-%d\n", unique()), Headers: map[string]string{"Content-Type": "text/csv"}}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/holdings/imports/{id}", func(t *testing.T, w *libraryWorld) req {
			return req{Path: "/api/library/holdings/imports/" + importJob(t) + "?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/holdings/imports/{id} (B's own school, A's job)", func(t *testing.T, w *libraryWorld) req {
			return req{Path: "/api/library/holdings/imports/" + importJob(t)}
		}, [7]int{A, F, F, F, 200, N, 422}, nil},
		{"GET /api/library/holdings/export", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/holdings/export?format=csv&schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"POST /api/library/books", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/books", Body: fmt.Sprintf(`{"school_id":%q,"title":"B%d","author":"M"}`, w.schoolA, unique())}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"GET /api/library/catalog-lookup", func(t *testing.T, w *libraryWorld) req {
			// Lookups off, so the row needs no catalogue server: an allowed
			// caller reaches the use case and gets its 409.
			if r := w.putCatalogEndpoint(w.admin, ""); r.Status != 200 {
				t.Fatalf("turn lookups off: %d %s", r.Status, r.Body)
			}
			return req{Path: "/api/library/catalog-lookup?isbn=9780142410370&schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 409, F, 409}, nil},
		{"GET /api/library/books", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/books?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/books/{id}", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Path: "/api/library/books/" + bookID + "?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/books/{id} (B's own school, A's book)", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Path: "/api/library/books/" + bookID}
		}, [7]int{A, F, 200, F, 200, N, 422}, nil},
		{"POST /api/library/copies", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "POST", Path: "/api/library/copies", Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"count":1}`, w.schoolA, bookID)}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"POST /api/library/copies (B's own school, A's book)", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "POST", Path: "/api/library/copies", Body: fmt.Sprintf(`{"book_id":%q,"count":1}`, bookID)}
		}, [7]int{A, F, F, F, 201, N, 422}, func(t *testing.T, w *libraryWorld, rq req) {}},
		{"GET /api/library/copies", func(t *testing.T, w *libraryWorld) req {
			_, _, code := freshBook(t)
			return req{Path: "/api/library/copies?schoolId=" + w.schoolA + "&code=" + code}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/copies (B's own school, A's code)", func(t *testing.T, w *libraryWorld) req {
			_, _, code := freshBook(t)
			return req{Path: "/api/library/copies?code=" + code}
		}, [7]int{A, F, 200, F, 200, N, 422}, nil},
		{"GET /api/library/loans", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/loans?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/loans/overdue-slips", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/loans/overdue-slips?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/loans/overdue-letters", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/loans/overdue-letters?schoolId=" + w.schoolA + "&student_id=" + w.studentAID}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/students/{id}/receipt", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/students/" + w.studentAID + "/receipt?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"POST /api/library/loans", func(t *testing.T, w *libraryWorld) req {
			bookID, copyID, _ := freshBook(t)
			return req{Method: "POST", Path: "/api/library/loans", Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, w.schoolA, bookID, copyID, w.studentAID)}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"PATCH /api/library/loans", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "PATCH", Path: "/api/library/loans", Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, freshLoan(t))}
		}, [7]int{A, F, F, F, 200, N, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused return leaves the loan active.
			id := strings.Split(strings.Split(rq.Body, `"loan_id":"`)[1], `"`)[0]
			loans, _ := s.App.Repos.Loans.ByIDs(t.Context(), []string{id})
			if len(loans) != 1 || loans[0].Returned() {
				t.Fatalf("a refused return changed loan %s: %+v", id, loans)
			}
		}},
		{"GET /api/library/student/loans", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/student/loans"} },
			[7]int{A, 200, F, F, F, F, F}, nil},
		{"POST /api/library/student/loans/{id}/renew", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/student/loans/" + freshLoan(t) + "/renew"}
		}, [7]int{A, 200, F, F, F, F, F}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused renewal leaves the loan as it was.
			id := strings.TrimSuffix(strings.TrimPrefix(rq.Path, "/api/library/student/loans/"), "/renew")
			renewals, _ := s.App.Repos.Loans.Renewals(t.Context(), []string{id})
			if len(renewals) != 0 {
				t.Fatalf("a refused renewal renewed loan %s: %+v", id, renewals)
			}
		}},
		{"GET /api/library/student/history", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/student/history"} },
			[7]int{A, 200, F, F, F, F, F}, nil},
		// Keeping the history is always allowed, so the student's 200 changes
		// nothing either.
		{"PUT /api/library/student/history/choice", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/student/history/choice", Body: `{"keep_history":true}`}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"POST /api/library/loans/{id}/finished", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/loans/" + freshReturned(t) + "/finished"}
		}, [7]int{A, F, F, F, 200, N, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			notFinished(t, strings.TrimSuffix(strings.TrimPrefix(rq.Path, "/api/library/loans/"), "/finished"))
		}},
		{"POST /api/library/student/history/{loan_id}/finished", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/student/history/" + freshReturned(t) + "/finished"}
		}, [7]int{A, 200, F, F, F, F, F}, func(t *testing.T, w *libraryWorld, rq req) {
			notFinished(t, strings.TrimSuffix(strings.TrimPrefix(rq.Path, "/api/library/student/history/"), "/finished"))
		}},
		{"DELETE /api/library/student/history/{loan_id}/finished", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "DELETE", Path: "/api/library/student/history/" + freshReturned(t) + "/finished"}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"GET /v1/users/me/reading-record", func(*testing.T, *libraryWorld) req { return req{Path: "/v1/users/me/reading-record"} },
			[7]int{A, 200, 200, 200, 200, 200, 200}, nil},
		{"PUT /v1/users/me/reading-record/loans/{loan_id}", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "PUT", Path: "/v1/users/me/reading-record/loans/" + freshReturned(t)}
		}, [7]int{A, 200, F, F, F, F, F}, func(t *testing.T, w *libraryWorld, rq req) {
			notFinished(t, strings.TrimPrefix(rq.Path, "/v1/users/me/reading-record/loans/"))
		}},
		{"GET /api/library/student/want-to-read", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/student/want-to-read"} },
			[7]int{A, 200, F, F, F, F, F}, nil},
		{"GET /api/library/student/recommendations", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/student/recommendations"}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"PUT /api/library/student/want-to-read/{book_id}", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "PUT", Path: "/api/library/student/want-to-read/" + bookID}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"DELETE /api/library/student/want-to-read/{book_id}", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "DELETE", Path: "/api/library/student/want-to-read/" + bookID}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"GET /api/library/student/reviews", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/student/reviews"} },
			[7]int{A, 200, F, F, F, F, F}, nil},
		{"PUT /api/library/student/reviews/{book_id}", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/student/reviews/" + borrowedBook(t), Body: `{"rating":3}`}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"DELETE /api/library/student/reviews/{book_id}", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "DELETE", Path: "/api/library/student/reviews/" + borrowedBook(t)}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"GET /api/library/reviews", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/reviews?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"PATCH /api/library/reviews/{id}", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "PATCH", Path: "/api/library/reviews/" + freshReview(t) + "?schoolId=" + w.schoolA, Body: `{"status":"approved","revision":1}`}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused decision leaves the review waiting.
			id := strings.TrimPrefix(strings.Split(rq.Path, "?")[0], "/api/library/reviews/")
			if rv, err := s.App.Repos.Reviews.Get(t.Context(), w.schoolA, id); err != nil || rv.Status != "pending" {
				t.Fatalf("a refused decision changed review %s: %+v, %v", id, rv, err)
			}
		}},
		{"GET /api/library/catalog/{domain}/books/{book_id}", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID}
		}, [7]int{200, 200, 200, 200, 200, 200, 200}, nil},
		{"GET /api/library/catalog/{domain}/books/{book_id}/reviews", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID + "/reviews"}
		}, [7]int{200, 200, 200, 200, 200, 200, 200}, nil},
		{"GET /api/library/catalog/{domain}/books/{book_id}/cover", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			if r := uploadCover(t, bookID); r.Status != 200 {
				t.Fatalf("upload a cover: %d %s", r.Status, r.Body)
			}
			return req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID + "/cover"}
		}, [7]int{200, 200, 200, 200, 200, 200, 200}, nil},
		{"PUT /api/library/books/{id}/cover", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "PUT", Path: "/api/library/books/" + bookID + "/cover?schoolId=" + w.schoolA,
				Headers: map[string]string{"Content-Type": "image/png"}, Body: string(coverFile(t, "tux.png"))}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused upload stores no cover.
			id := strings.TrimSuffix(strings.TrimPrefix(strings.Split(rq.Path, "?")[0], "/api/library/books/"), "/cover")
			if _, err := s.App.Repos.Covers.Get(t.Context(), w.schoolA, id); err == nil {
				t.Fatalf("a refused upload stored a cover for %s", id)
			}
		}},
		{"DELETE /api/library/books/{id}/cover", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			if r := uploadCover(t, bookID); r.Status != 200 {
				t.Fatalf("upload a cover: %d %s", r.Status, r.Body)
			}
			return req{Method: "DELETE", Path: "/api/library/books/" + bookID + "/cover?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused removal leaves the cover.
			id := strings.TrimSuffix(strings.TrimPrefix(strings.Split(rq.Path, "?")[0], "/api/library/books/"), "/cover")
			if c, err := s.App.Repos.Covers.Get(t.Context(), w.schoolA, id); err != nil || c.Image.JPEG == nil {
				t.Fatalf("a refused removal changed the cover of %s: %v", id, err)
			}
		}},
		{"GET /api/library/holds", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/holds?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"POST /api/library/holds", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/holds", Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"student_id":%q}`, w.schoolA, heldBook(t), w.studentAID)}
		}, [7]int{A, 201, F, F, 201, F, 201}, nil},
		{"DELETE /api/library/holds/{id}", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "DELETE", Path: "/api/library/holds/" + freshHold(t)}
		}, [7]int{A, 200, F, F, 200, N, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused cancellation leaves the hold waiting.
			id := strings.TrimPrefix(rq.Path, "/api/library/holds/")
			for _, h := range s.do(req{Path: "/api/library/student/holds", Token: w.studentA}).json(t)["holds"].([]any) {
				if h := h.(map[string]any); h["id"] == id && h["status"] != "waiting" {
					t.Fatalf("a refused cancellation changed hold %s to %v", id, h["status"])
				}
			}
		}},
		{"GET /api/library/student/holds", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/student/holds"} },
			[7]int{A, 200, F, F, F, F, F}, nil},
		// Off is the default, so the student's 200 changes nothing either.
		{"PUT /api/library/student/reading-list-holds", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/student/reading-list-holds", Body: `{"enabled":false}`}
		}, [7]int{A, 200, F, F, F, F, F}, nil},
		{"GET /api/library/settings", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/settings?schoolId=" + w.schoolA} },
			[7]int{A, 200, 200, 200, 200, F, 200}, nil},
		{"PUT /api/library/settings", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/settings?schoolId=" + w.schoolA, Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true}`}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/calendar", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/calendar?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"PUT /api/library/calendar", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/calendar?schoolId=" + w.schoolA, Body: `{"closed_weekdays":[],"closures":[],"term_ends":[]}`}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/loan-rules", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/loan-rules?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/loans-per-month", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/loans-per-month?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/top-titles", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/top-titles?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/overdue-by-homeroom", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/overdue-by-homeroom?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/collection-by-genre", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/collection-by-genre?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/collection-by-reading-level", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/collection-by-reading-level?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/never-borrowed", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/never-borrowed?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/median-age", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/median-age?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/hold-queues", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/hold-queues?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/app-reading-not-held", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/app-reading-not-held?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/reports/never-borrowed-outside-grades", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/reports/never-borrowed-outside-grades?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/audit", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/audit?schoolId=" + w.schoolA} },
			[7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/audit as CSV", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/audit?format=csv&schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"PUT /api/library/loan-rules", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/loan-rules?schoolId=" + w.schoolA, Body: `{"rules":[{"patron":"staff","category":"standard","loan_days":28,"renewals":3,"max_items":0}]}`}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/books/{id}/app-link", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Path: "/api/library/books/" + bookID + "/app-link?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"PUT /api/library/books/{id}/app-link", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "PUT", Path: "/api/library/books/" + bookID + "/app-link?schoolId=" + w.schoolA,
				Body: fmt.Sprintf(`{"app_book_id":%q,"same":true}`, demoAppBookID(t, s))}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused choice stores nothing.
			id := strings.TrimSuffix(strings.TrimPrefix(strings.Split(rq.Path, "?")[0], "/api/library/books/"), "/app-link")
			if got, err := s.App.Repos.AppLinks.ChoicesForBooks(t.Context(), w.schoolA, []string{id}); err != nil || len(got) != 0 {
				t.Fatalf("a refused choice on %s stored %+v, %v", id, got, err)
			}
		}},
		{"DELETE /api/library/books/{id}/app-link/{app_book_id}", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			app := demoAppBookID(t, s)
			if r := s.do(req{Method: "PUT", Path: "/api/library/books/" + bookID + "/app-link?schoolId=" + w.schoolA, Token: w.admin,
				Body: fmt.Sprintf(`{"app_book_id":%q,"same":false}`, app)}); r.Status != 200 {
				t.Fatalf("choose: %d %s", r.Status, r.Body)
			}
			return req{Method: "DELETE", Path: "/api/library/books/" + bookID + "/app-link/" + app + "?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused removal keeps the choice.
			id := strings.Split(strings.TrimPrefix(rq.Path, "/api/library/books/"), "/")[0]
			if got, err := s.App.Repos.AppLinks.ChoicesForBooks(t.Context(), w.schoolA, []string{id}); err != nil || len(got) != 1 {
				t.Fatalf("a refused removal on %s left %+v, %v", id, got, err)
			}
		}},
		{"PATCH /api/library/books/{id}", func(t *testing.T, w *libraryWorld) req {
			bookID, _, _ := freshBook(t)
			return req{Method: "PATCH", Path: "/api/library/books/" + bookID, Body: fmt.Sprintf(`{"school_id":%q,"loan_category":"short"}`, w.schoolA)}
		}, [7]int{A, F, F, F, 200, F, 200}, func(t *testing.T, w *libraryWorld, rq req) {
			// A refused change leaves the book standard.
			id := strings.TrimPrefix(rq.Path, "/api/library/books/")
			if b, err := s.App.Repos.Holdings.Book(t.Context(), w.schoolA, id); err != nil || b.LoanCategory != "standard" {
				t.Fatalf("a refused change touched book %s: %+v, %v", id, b, err)
			}
		}},
		{"GET /api/library/notices/settings", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/notices/settings?schoolId=" + w.schoolA}
		},
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"PUT /api/library/notices/settings", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/notices/settings?schoolId=" + w.schoolA, Body: `{"enabled":false,"send_at":"07:30","due_soon_days":2,"overdue_steps":[1,7,14]}`}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/homerooms", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/homerooms?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"PUT /api/library/homerooms", func(*testing.T, *libraryWorld) req {
			return req{Method: "PUT", Path: "/api/library/homerooms?schoolId=" + w.schoolA, Body: `{"homerooms":[{"name":"4B","teacher_name":"Tess Teacher","teacher_email":"teacher@maplegrove.example.org"}]}`}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/loans/{id}/notices", func(t *testing.T, w *libraryWorld) req {
			return req{Path: "/api/library/loans/" + freshLoan(t) + "/notices"}
		}, [7]int{A, F, 200, F, 200, N, 200}, nil},
		{"GET /api/library/stocktakes", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/stocktakes?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, F, 200, F, 200}, nil},
		{"POST /api/library/stocktakes", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/stocktakes?schoolId=" + w.schoolA, Body: emptyRange(unique())}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"POST /api/library/stocktakes/{id}/scans", func(t *testing.T, w *libraryWorld) req {
			_, _, code := freshBook(t)
			return req{Method: "POST", Path: "/api/library/stocktakes/" + freshStocktake(t, false) + "/scans?schoolId=" + w.schoolA, Body: fmt.Sprintf(`{"code":%q}`, code)}
		}, [7]int{A, F, F, F, 201, F, 201}, nil},
		{"POST /api/library/stocktakes/{id}/scans/file", func(t *testing.T, w *libraryWorld) req {
			_, _, code := freshBook(t)
			return req{Method: "POST", Path: "/api/library/stocktakes/" + freshStocktake(t, false) + "/scans/file?schoolId=" + w.schoolA, Body: code + "\n",
				Headers: map[string]string{"Content-Type": "text/plain"}}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"POST /api/library/stocktakes/{id}/close", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/stocktakes/" + freshStocktake(t, false) + "/close?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/stocktakes/{id}/report", func(t *testing.T, w *libraryWorld) req {
			return req{Path: "/api/library/stocktakes/" + freshStocktake(t, false) + "/report?schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"POST /api/library/stocktakes/{id}/check-ins", func(t *testing.T, w *libraryWorld) req {
			loanID := freshLoan(t)
			l, err := s.App.Repos.Loans.Get(t.Context(), w.schoolA, loanID)
			if err != nil {
				t.Fatal(err)
			}
			id := freshStocktake(t, false)
			if r := s.do(req{Method: "POST", Path: "/api/library/stocktakes/" + id + "/scans?schoolId=" + w.schoolA, Token: w.admin,
				Body: fmt.Sprintf(`{"code":%q}`, l.CopyCode)}); r.Status != 201 {
				t.Fatalf("scan the lent copy: %d %s", r.Status, r.Body)
			}
			return req{Method: "POST", Path: "/api/library/stocktakes/" + id + "/check-ins?schoolId=" + w.schoolA, Body: fmt.Sprintf(`{"copy_id":%q}`, l.CopyID)}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"POST /api/library/stocktakes/{id}/mark-missing-lost", func(t *testing.T, w *libraryWorld) req {
			return req{Method: "POST", Path: "/api/library/stocktakes/" + freshStocktake(t, true) + "/mark-missing-lost?schoolId=" + w.schoolA}
		}, [7]int{A, F, F, F, 200, F, 200}, nil},
		{"GET /api/library/catalog/{domain}", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/catalog/maplegrove.example.org"} },
			[7]int{200, 200, 200, 200, 200, 200, 200}, nil},
		{"POST /api/auth/accept-invite (unknown token)", func(*testing.T, *libraryWorld) req {
			return req{Method: "POST", Path: "/api/auth/accept-invite", Body: `{"token":"` + uuid.NewString() + `","password":"some-password-1"}`}
		}, [7]int{N, N, N, N, N, N, N}, nil},
		// The demo teacher teaches 4B, the demo student's class; staff and
		// librarians see every class of their school.
		{"GET /api/library/classes", func(*testing.T, *libraryWorld) req { return req{Path: "/api/library/classes?schoolId=" + w.schoolA} },
			[7]int{A, F, 200, 200, 200, F, 200}, nil},
		{"GET /api/library/class (the teacher's)", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/class?homeroom=4B&schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, 200, 200, F, 200}, nil},
		{"GET /api/library/class (another class)", func(t *testing.T, w *libraryWorld) req {
			room := fmt.Sprintf("M%dC", unique())
			if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.admin,
				Body: fmt.Sprintf(`{"school_id":%q,"name":"Class Pupil %s","homeroom":%q}`, w.schoolA, room, room)}); r.Status != 201 {
				t.Fatalf("a student of another class: %d %s", r.Status, r.Body)
			}
			return req{Path: "/api/library/class?homeroom=" + room + "&schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
		{"GET /api/library/class/reading (the teacher's)", func(*testing.T, *libraryWorld) req {
			return req{Path: "/api/library/class/reading?homeroom=4B&schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, 200, 200, F, 200}, nil},
		{"GET /api/library/class/reading (another class)", func(t *testing.T, w *libraryWorld) req {
			room := fmt.Sprintf("M%dR", unique())
			if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.admin,
				Body: fmt.Sprintf(`{"school_id":%q,"name":"Reading Pupil %s","homeroom":%q}`, w.schoolA, room, room)}); r.Status != 201 {
				t.Fatalf("a student of another class: %d %s", r.Status, r.Body)
			}
			return req{Path: "/api/library/class/reading?homeroom=" + room + "&schoolId=" + w.schoolA}
		}, [7]int{A, F, 200, F, 200, F, 200}, nil},
	}
	teacherA := s.login(demoTeacher, demoPassword).Access
	tokens := []string{"", w.studentA, w.staffA, teacherA, w.libA, w.libB, w.admin}
	for _, row := range rows {
		for i, actor := range matrixActors {
			rq := row.prepare(t, w)
			rq.Token = tokens[i]
			r := s.do(rq)
			if r.Status != row.want[i] {
				t.Errorf("%s as %s: %d, want %d (%.200s)", row.name, actor, r.Status, row.want[i], r.Body)
				continue
			}
			if r.Status >= 400 {
				r.apiError(t)
				if row.after != nil {
					row.after(t, w, rq)
				}
			}
		}
	}
}

// emptyRange is a stocktake range of call numbers no book has.
func emptyRange(n int) string {
	return fmt.Sprintf(`{"from":"ZZ MATRIX %d","to":"ZZ MATRIX %d"}`, n, n)
}
