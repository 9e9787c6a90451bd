package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// ----- what a school is made of -----

// Word lists of the generated school. Titles and names carry accents the
// way a real catalog does, and the measured searches pick words whose share
// is known: the public catalog's "lantern" is in one library title in ten at
// 100 books and one in forty from 400 books on; /v1's "hidd chât" (folded:
// "Hidden" and "Château") is one reading book in 400, so 1 at 100 books and
// 25 at 10,000; each student surname is one student in 30. The report
// prints the totals each search really found.
var (
	titleAdj = []string{"Silent", "Golden", "Hidden", "Crimson", "Wandering", "Frozen", "Midnight", "Little", "Forgotten", "Brave"}
	// titleNoun[1] is what the catalog search looks for; titleNoun[3] is
	// the accented half of the /v1 search.
	titleNoun = []string{
		"Harbour", "Lantern", "Café", "Château", "Forest", "Mirror", "Garden", "Fjord", "Meadow", "Compass",
		"Orchard", "Lighthouse", "Kingdom", "Island", "Mountain", "Dragon", "Library", "Violin", "Carnival", "Glacier",
		"Señorita", "Bakery", "Observatory", "Caravan", "Canal", "Tapestry", "Comet", "Workshop", "Village", "Market",
		"Piñata", "Riverboat", "Clocktower", "Greenhouse", "Festival", "Pavilion", "Citadel", "Ballad", "Voyage", "Labyrinth",
	}
	titleTail = []string{"", "", " of Åsgård", " at Villa Noire", " and the Old Señor", " in Kraków", " by the Rhône",
		" under São Paulo Skies", "", " beyond Zürich", " on Île Verte", " for Zoë", " of Mañana Street", "", " near Dún Laoghaire", " in Tromsø"}
	firstNames = []string{"José", "Zoë", "Søren", "François", "Małgorzata", "Chloé", "Björn", "Aoife", "Nuño", "Inès", "Ana", "Oliver",
		"Amélie", "Jürgen", "Siobhán", "Renée", "Dmitri", "Emeka", "Priya", "Hélène", "Kenji", "Lucía", "Tomás", "Ingrid"}
	// lastNames[9], [8] and [12] are the desk's student searches.
	lastNames = []string{"Núñez", "Brontë", "Ødegård", "Lefèvre", "Wójcik", "Dubois", "Åström", "Ní Bhriain", "García", "Müller",
		"Okafor", "Nakamura", "Dvořák", "Kowalski", "Ferreira", "O'Connor", "Horváth", "Svensson", "Rossi", "Papadopoulos",
		"Andersen", "Fernández", "Novák", "Lindqvist", "Moreau", "Schäfer", "Costa", "Ivanova", "Haddad", "Kim"}
	genres = []string{"fantasy", "mystery", "history", "science-fiction", "animals"}
	levels = []string{"beginner", "intermediate", "advanced"}
)

// The measured queries (see the word lists above).
const (
	catalogSearch = "lantern"
	booksSearch   = "hidd chât"
	booksFilter   = "genre=mystery&reading_level=advanced&sort=-rating&page=2"
)

var studentSearches = []string{"mull", "garc", "dvor"}

func authorName(i int) string {
	return firstNames[i%len(firstNames)] + " " + lastNames[(i/len(firstNames)+i)%len(lastNames)]
}

// libraryTitle is library book i; its noun changes every 10 books so that a
// small school still has every adjective with the first nouns.
func libraryTitle(i int) string {
	return fmt.Sprintf("The %s %s%s", titleAdj[i%10], titleNoun[(i/10)%len(titleNoun)], titleTail[(i*7/3)%len(titleTail)])
}

// readingTitle is reading book i: adjective i%10, noun i/10%40, so a pair
// of them is one book in 400.
func readingTitle(i int) string {
	return fmt.Sprintf("The %s %s%s", titleAdj[i%10], titleNoun[(i/10)%len(titleNoun)], titleTail[(i/400)%len(titleTail)])
}

// isbn13 is a valid ISBN-13 (978 prefix, checksum) unique to i.
func isbn13(i int) string {
	d := fmt.Sprintf("978%09d", 100_000_000+i)
	sum := 0
	for k, c := range d {
		w := 1
		if k%2 == 1 {
			w = 3
		}
		sum += w * int(c-'0')
	}
	return d + fmt.Sprint((10-sum%10)%10)
}

func studentName(j int) string {
	return firstNames[(j/len(lastNames)+j)%len(firstNames)] + " " + lastNames[j%len(lastNames)]
}

// ----- the seeded school -----

type seededCopy struct{ BookID, ID, Code string }

type seedStep struct {
	What     string
	Count    int // objects made
	Requests int // HTTP requests sent
	Took     time.Duration
}

// school is one seeded school and the sessions that use it.
type school struct {
	n, students, pastLoans int

	lib, admin, reader string // bearer tokens
	libCookie          string // the librarian's web app session
	schoolID           string

	copies     []seededCopy // every seeded copy, two per book, in book order
	studentIDs []string
	renewPool  []string     // active loans the renew phases use
	free       []seededCopy // copies that are free when measuring starts
	steps      []seedStep
	seedTook   time.Duration
}

// progress logs what % of a seed step is done every 5 seconds.
func progress(what string, total int) (tick func(), stop func()) {
	var done atomic.Int64
	start := time.Now()
	quit := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				d := done.Load()
				log.Printf("  seed %s: %d/%d (%.0f%%, %.0f/s)", what, d, total, 100*float64(d)/float64(max(total, 1)), float64(d)/time.Since(start).Seconds())
			}
		}
	}()
	return func() { done.Add(1) }, func() { close(quit) }
}

// seedSchool fills the demo school through the HTTP API only: settings,
// students (CSV import, 20 rows a request), library books with 2 copies,
// reading books (admin), past loans (check-out then return), then the
// active loans the renew phases use.
func seedSchool(ctx context.Context, s *svc, n, students, pastLoans, workers int, renewPool int) (*school, error) {
	sc := &school{n: n, students: students, pastLoans: pastLoans}
	t0 := time.Now()
	for _, l := range []struct {
		email string
		tok   *string
	}{{demoLibrarian, &sc.lib}, {demoAdmin, &sc.admin}, {demoReader, &sc.reader}} {
		sess, err := login(s.URL, l.email, app.DemoPassword)
		if err != nil {
			return nil, err
		}
		*l.tok = sess.Access
	}
	var err error
	if sc.libCookie, err = formSignIn(s.URL, demoLibrarian, app.DemoPassword); err != nil {
		return nil, err
	}
	// Renewals are measured on a pool of active loans, each renewed up to
	// 20 times (the most the settings allow).
	a, err := expect(s.URL, rq{Method: http.MethodPut, Path: "/api/library/settings", Token: sc.lib,
		Body: `{"default_loan_days":14,"max_renewals":20,"renewal_days":7,"allow_public_catalog":true}`}, 200)
	if err != nil {
		return nil, err
	}
	sc.schoolID = a.field("school_id")

	step := func(what string, count, requests int, f func(tick func()) error) error {
		log.Printf("  seed %s: %d", what, count)
		st := time.Now()
		tick, stop := progress(what, requests)
		err := f(tick)
		stop()
		sc.steps = append(sc.steps, seedStep{What: what, Count: count, Requests: requests, Took: time.Since(st)})
		if err != nil {
			return fmt.Errorf("seed %s: %w", what, err)
		}
		log.Printf("  seed %s: done in %s", what, time.Since(st).Round(time.Millisecond))
		return nil
	}

	// Students: CSV import in batches of 20 (a quarter with an email). An
	// import checks every row against the school's students, so on a
	// scanning store a batch of 100 with 8 clients ran past the 15 s
	// deadline; a timed-out import may have added part of its rows, so it
	// is not retried.
	const batch = 20
	batches := (students + batch - 1) / batch
	sc.studentIDs = make([]string, students)
	if err := step("students (POST /api/library/students/import, 20 CSV rows each)", students, batches, func(tick func()) error {
		return parallel(ctx, batches, workers, func(ctx context.Context, b int) error {
			var buf strings.Builder
			w := csv.NewWriter(&buf)
			_ = w.Write([]string{"name", "email", "student_number"})
			for j := b * batch; j < min(students, (b+1)*batch); j++ {
				email := ""
				if j%4 == 0 {
					email = fmt.Sprintf("pupil%05d@pupils.maplegrove.example.org", j)
				}
				_ = w.Write([]string{studentName(j), email, fmt.Sprintf("S-%05d", j)})
			}
			w.Flush()
			a, err := expectWhenFree(s.URL, rq{Method: http.MethodPost, Path: "/api/library/students/import", Token: sc.lib,
				ContentType: "text/csv", Body: buf.String()}, 201)
			if err != nil {
				return err
			}
			var body struct {
				Students []struct {
					ID     string `json:"student_id"`
					Number string `json:"student_number"`
				} `json:"students"`
			}
			if err := json.Unmarshal(a.Body, &body); err != nil {
				return err
			}
			for _, st := range body.Students {
				var j int
				if _, err := fmt.Sscanf(st.Number, "S-%d", &j); err != nil || j < 0 || j >= students {
					return fmt.Errorf("import answered student number %q", st.Number)
				}
				sc.studentIDs[j] = st.ID
			}
			tick()
			return nil
		})
	}); err != nil {
		return nil, err
	}

	// Library books, 2 copies each; one in three with an ISBN-13.
	sc.copies = make([]seededCopy, 2*n)
	if err := step("library books (POST /api/library/books, 2 copies each)", n, n, func(tick func()) error {
		return parallel(ctx, n, workers, func(ctx context.Context, i int) error {
			isbn := ""
			if i%3 == 0 {
				isbn = fmt.Sprintf(`,"isbn":%q`, isbn13(i))
			}
			a, err := expect(s.URL, rq{Method: http.MethodPost, Path: "/api/library/books", Token: sc.lib,
				Body: fmt.Sprintf(`{"title":%q,"author":%q,"copies":2%s%s}`, libraryTitle(i), authorName(i), isbn, libraryDetails(i))}, 201)
			if err != nil {
				return err
			}
			var body struct {
				Copies []struct {
					ID     string `json:"id"`
					BookID string `json:"book_id"`
					Code   string `json:"code"`
				} `json:"copies"`
			}
			if err := json.Unmarshal(a.Body, &body); err != nil || len(body.Copies) != 2 {
				return fmt.Errorf("library book %d: %v: %.200s", i, err, a.Body)
			}
			for k, c := range body.Copies {
				sc.copies[2*i+k] = seededCopy{BookID: c.BookID, ID: c.ID, Code: c.Code}
			}
			tick()
			return nil
		})
	}); err != nil {
		return nil, err
	}

	// Reading books for /v1, as the admin adds them.
	if err := step("reading books (POST /v1/books as admin)", n, n, func(tick func()) error {
		return parallel(ctx, n, workers, func(ctx context.Context, i int) error {
			body := fmt.Sprintf(`{"title":%q,"author":%q,"genre":%q,"reading_level":%q,"access":"free","rating":%.1f,"pages":12,`+
				`"published_date":"20%02d-0%d-1%d","language":"en","description":"A story for young readers.",`+
				`"chapters":[{"title":"Beginning","page_start":1,"page_end":6,"text":"Once upon a time the lantern flickered by the harbour."},`+
				`{"title":"Ending","page_start":7,"page_end":12,"text":"And everyone went home for supper."}]}`,
				readingTitle(i), authorName(i+7), genres[i%len(genres)], levels[i%len(levels)], float64(i%51)/10, i%25, 1+i%9, i%10)
			if _, err := expect(s.URL, rq{Method: http.MethodPost, Path: "/v1/books", Token: sc.admin, Body: body}, 201); err != nil {
				return err
			}
			tick()
			return nil
		})
	}); err != nil {
		return nil, err
	}

	// Past loans: loan k takes copy 2k (the first copy of each book, then
	// the second ones) and student k; checked out, then returned.
	c := len(sc.copies)
	pastCopy := func(k int) seededCopy { return sc.copies[(2*k+(2*k/c))%c] }
	if err := step("past loans (POST /api/library/loans, then PATCH return)", pastLoans, 2*pastLoans, func(tick func()) error {
		return parallel(ctx, pastLoans, workers, func(ctx context.Context, k int) error {
			cp := pastCopy(k)
			id, err := checkOut(s.URL, sc.lib, cp, sc.studentIDs[k%students])
			if err != nil {
				return err
			}
			tick()
			if err := giveBack(s.URL, sc.lib, id); err != nil {
				return err
			}
			tick()
			return nil
		})
	}); err != nil {
		return nil, err
	}

	// Active loans for the renew phases: the second copy of books spread
	// over the catalog, to students spread over the school.
	renewPool = min(renewPool, n)
	inPool := map[string]bool{}
	poolCopies := make([]seededCopy, renewPool)
	for k := range renewPool {
		poolCopies[k] = sc.copies[2*(k*n/renewPool)+1]
		inPool[poolCopies[k].ID] = true
	}
	sc.renewPool = make([]string, renewPool)
	if err := step("active loans to renew (POST /api/library/loans)", renewPool, renewPool, func(tick func()) error {
		return parallel(ctx, renewPool, workers, func(ctx context.Context, k int) error {
			id, err := checkOut(s.URL, sc.lib, poolCopies[k], sc.studentIDs[(k*7)%students])
			if err != nil {
				return err
			}
			sc.renewPool[k] = id
			tick()
			return nil
		})
	}); err != nil {
		return nil, err
	}
	// Free copies for check-out, alternating first and second copies of
	// books spread over the catalog.
	for k := range c {
		cp := sc.copies[(k*2+(k*2/c))%c]
		if !inPool[cp.ID] {
			sc.free = append(sc.free, cp)
		}
	}
	sc.seedTook = time.Since(t0)
	return sc, nil
}

// retries is how often a seed request that ran past the service's
// deadline is tried again, when trying again is safe.
const retries = 3

// isTimeout tells a request that ran past the service's deadline (or the
// client's), or that a store too busy to answer refused with 503, from
// other failures: both are worth another try after a pause.
func isTimeout(a answer, err error) bool {
	if timedOut(a.Status, a.Body, err, 0) {
		return true
	}
	if err == nil && a.Status == http.StatusServiceUnavailable {
		time.Sleep(time.Second)
		return true
	}
	return false
}

// checkOut lends a copy and returns the loan's id. A check-out that timed
// out may have lent the copy all the same: the copy lookup then names the
// loan; otherwise it is tried again.
func checkOut(base, token string, cp seededCopy, studentID string) (string, error) {
	r := rq{Method: http.MethodPost, Path: "/api/library/loans", Token: token, Body: loanBody(cp, studentID)}
	for try := 0; ; try++ {
		a, err := do(base, r)
		if err == nil && a.Status == 201 {
			if id := a.field("loan", "id"); id != "" {
				return id, nil
			}
			return "", fmt.Errorf("check-out answered no loan id: %.200s", a.Body)
		}
		if !isTimeout(a, err) || try == retries {
			return "", fmt.Errorf("POST /api/library/loans: status %d, err %v: %.300s", a.Status, err, a.Body)
		}
		log.Printf("  check-out of %s timed out; looking the copy up", cp.Code)
		if l, err := expect(base, rq{Path: "/api/library/copies?code=" + cp.Code, Token: token}, 200); err == nil {
			if id := l.field("loan", "id"); id != "" {
				return id, nil
			}
		}
	}
}

// giveBack returns a loan; returning a returned loan changes nothing, so a
// return that timed out is simply tried again.
func giveBack(base, token, loanID string) error {
	r := rq{Method: http.MethodPatch, Path: "/api/library/loans", Token: token, Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, loanID)}
	for try := 0; ; try++ {
		a, err := do(base, r)
		if err == nil && a.Status == 200 {
			return nil
		}
		if !isTimeout(a, err) || try == retries {
			return fmt.Errorf("PATCH /api/library/loans return: status %d, err %v: %.300s", a.Status, err, a.Body)
		}
		log.Printf("  return of %s timed out; trying again", loanID)
	}
}

func loanBody(cp seededCopy, studentID string) string {
	return fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, cp.BookID, cp.ID, studentID)
}

// seedBookDetails gives the library books catalogue details (-reports), so
// the collection reports group real values.
var seedBookDetails bool

// libraryDetails is the JSON of library book i's genre, reading level and
// year (every seventh book has none: the reports' unknown groups), or
// nothing without seedBookDetails.
func libraryDetails(i int) string {
	if !seedBookDetails || i%7 == 0 {
		return ""
	}
	return fmt.Sprintf(`,"genre":%q,"reading_level":"%d.%d","published_year":%d`, genres[i%len(genres)], 1+i%12, i%10, 1950+i%75)
}
