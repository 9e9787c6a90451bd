package test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A write the service acknowledged survives kill -9 of the process. The
// test talks HTTP to the real binary on its embedded store, so it does not
// care which store that is: several clients keep adding students, books
// with one copy and loans of those copies; the process is killed with
// SIGKILL while requests are in flight and restarted on the same data
// directory. Every answered write must then be readable with the data it was
// answered with, and nothing may be stored that was neither answered nor in
// flight. The cycle runs several times, so a store recovered once is killed
// and recovered again; whatever one recovery showed must survive the next.
// SIGKILL takes what the process held in memory, not what it had handed to
// the kernel: this is the crash of the process, not a power cut.
func TestKillNineKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if testStore() == "mongo" {
		t.Skip("the embedded store's durability; this run is on MongoDB")
	}
	const (
		cycles  = 3
		clients = 8
		// The process is killed once a cycle has this many answered writes,
		// or after killMaxLoad on a slow machine: enough writes that the
		// store is busy committing when the kill comes, few enough that the
		// reads after each restart stay quick.
		killAfterAcked = 250
		killMaxLoad    = 4 * time.Second
	)
	env := []string{
		"LIBRARY_ADDR=127.0.0.1:" + strconv.Itoa(freePort(t)),
		"LIBRARY_DATA_DIR=" + filepath.Join(t.TempDir(), "data"),
		"LIBRARY_MONGODB_URI=", // the embedded store, whatever the environment says
		"LIBRARY_DEMO_DATA=true",
		"LIBRARY_COOKIE_SECURE=false",
		"LIBRARY_RATE_ANONYMOUS=10000000-H", "LIBRARY_RATE_AUTHENTICATED=10000000-H", "LIBRARY_RATE_PREMIUM=10000000-H",
	}

	var runs []*runningBinary
	// Registered before the first runBinary, so it runs after the processes
	// are gone and their output is complete.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, b := range runs {
			t.Logf("output of run %d (%s):\n%s", i+1, b.base, killLogTail(b.output(), 40))
		}
	})
	start := func() (*runningBinary, *service, string) {
		t.Helper()
		b := runBinary(t, env...)
		runs = append(runs, b)
		s := &service{URL: b.base, t: t}
		waitReady(t, b)
		return b, s, s.login(demoLibrarian, demoPassword).Access
	}

	b, s, token := start()
	must := newKillStore()
	began := time.Now()
	for cycle := 1; cycle <= cycles; cycle++ {
		load := newKillLoad()
		var stop atomic.Bool
		var wg sync.WaitGroup
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				load.run(t, b.base, token, cycle, w, &stop)
			}()
		}
		loadStart := time.Now()
		for load.ackedWrites() < killAfterAcked && time.Since(loadStart) < killMaxLoad {
			time.Sleep(10 * time.Millisecond)
		}
		if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("cycle %d: SIGKILL: %v (did the process die by itself?)", cycle, err)
		}
		// Set after the signal, so the clients' requests of the moment are
		// the ones the kill cuts.
		stop.Store(true)
		select {
		case <-b.exited:
		case <-time.After(10 * time.Second):
			t.Fatalf("cycle %d: process still running 10 s after SIGKILL", cycle)
		}
		wg.Wait()
		loadFor := time.Since(loadStart)

		b, s, token = start()
		found := verifyAfterKill(t, s, token, must, load)
		t.Logf("cycle %d: load %s before SIGKILL; %s", cycle, loadFor.Round(time.Millisecond), load.summary(found))
		if t.Failed() {
			t.FailNow() // later cycles would only repeat the loss
		}
		// What a recovery showed is durable from now on: the next kill must
		// not take it away.
		must = found
	}
	t.Logf("%d kill -9 cycles in %s; stored after the last restart: %d students, %d books, %d loans",
		cycles, time.Since(began).Round(time.Millisecond), len(must.students), len(must.books), len(must.loans))
}

// Marks of the objects this test makes, so that its reads find them among
// the demo data.
const (
	killNumberPrefix = "KILL9-"
	killTitlePrefix  = "Kill Nine "
	killAuthor       = "Ada Durable"
)

type killStudent struct{ ID, Number, Name string }

type killBook struct {
	ID, Title, Author string
	Copies            int    // total copies the catalog must show
	CopyID, CopyCode  string // empty for a book first seen after a restart (the catalog shows no codes)
}

type killLoan struct{ ID, BookID, CopyID, CopyCode, StudentID, DueAt string }

// killStore is a set of stored objects: what must exist after a restart, or
// what a restart showed.
type killStore struct {
	students map[string]killStudent // by student number
	books    map[string]killBook    // by title
	loans    map[string]killLoan    // by copy id: each copy is lent once in this test
}

func newKillStore() *killStore {
	return &killStore{students: map[string]killStudent{}, books: map[string]killBook{}, loans: map[string]killLoan{}}
}

// writeOutcome is what a client knows about one write.
type writeOutcome int

const (
	outcomeAcked   writeOutcome = iota // a complete 2xx answer: the write must be stored
	outcomeUnknown                     // cut by the kill: may or may not be stored
	outcome5xx                         // a 5xx answer: may or may not be stored either
	outcomeNotSent                     // connection refused: it never reached the process
	outcomeRefused                     // a 4xx answer: nothing was stored
)

// killCounts counts outcomes; unknown includes the 5xx answers.
type killCounts struct{ acked, unknown, answered5xx, notSent, refused int }

// killLoad is one load phase: the writes that were answered, and those sent
// without an answer.
type killLoad struct {
	mu           sync.Mutex
	acked        killStore
	unknownNums  map[string]bool   // student numbers
	unknownBooks map[string]bool   // titles
	unknownLoans map[string]string // copy id -> student id
	counts       [3]killCounts     // students, books, loans
}

func newKillLoad() *killLoad {
	return &killLoad{acked: *newKillStore(), unknownNums: map[string]bool{}, unknownBooks: map[string]bool{}, unknownLoans: map[string]string{}}
}

const (
	kindStudent = iota
	kindBook
	kindLoan
)

var kindNames = [3]string{"students", "books", "loans"}

func (l *killLoad) note(kind int, o writeOutcome) {
	c := &l.counts[kind]
	switch o {
	case outcomeAcked:
		c.acked++
	case outcomeUnknown:
		c.unknown++
	case outcome5xx:
		c.unknown++
		c.answered5xx++
	case outcomeNotSent:
		c.notSent++
	case outcomeRefused:
		c.refused++
	}
}

func (l *killLoad) ackedWrites() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[0].acked + l.counts[1].acked + l.counts[2].acked
}

// run is one client: student, book with a copy, loan of that copy to that
// student, again and again until stop. A loan is only tried when both of
// its objects were acknowledged.
func (l *killLoad) run(t *testing.T, base, token string, cycle, worker int, stop *atomic.Bool) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	for seq := 0; !stop.Load(); seq++ {
		tag := fmt.Sprintf("%d-%d-%d", cycle, worker, seq)

		number, name := killNumberPrefix+tag, "Kill Student "+tag
		var sr struct {
			Student struct {
				ID     string `json:"student_id"`
				Name   string `json:"name"`
				Number string `json:"student_number"`
			} `json:"student"`
		}
		so, detail := killPost(client, base, token, "/api/library/students", map[string]any{"name": name, "student_number": number}, &sr)
		if so == outcomeAcked && (sr.Student.ID == "" || sr.Student.Number != number || sr.Student.Name != name) {
			t.Errorf("student %s: answer does not echo the write: %+v", number, sr.Student)
		}
		l.record(t, kindStudent, so, detail, func() {
			if so == outcomeAcked {
				l.acked.students[number] = killStudent{ID: sr.Student.ID, Number: number, Name: name}
			} else {
				l.unknownNums[number] = true
			}
		})
		if stop.Load() {
			return
		}

		title := killTitlePrefix + tag
		var br struct {
			Book struct {
				ID     string `json:"id"`
				Title  string `json:"title"`
				Author string `json:"author"`
			} `json:"book"`
			Copies []struct {
				ID     string `json:"id"`
				BookID string `json:"book_id"`
				Code   string `json:"code"`
			} `json:"copies"`
		}
		bo, detail := killPost(client, base, token, "/api/library/books", map[string]any{"title": title, "author": killAuthor, "copies": 1}, &br)
		if bo == outcomeAcked && (br.Book.ID == "" || br.Book.Title != title || len(br.Copies) != 1 || br.Copies[0].BookID != br.Book.ID) {
			t.Errorf("book %s: answer does not echo the write: %+v", title, br)
			bo = outcomeRefused
		}
		l.record(t, kindBook, bo, detail, func() {
			if bo == outcomeAcked {
				l.acked.books[title] = killBook{ID: br.Book.ID, Title: title, Author: killAuthor, Copies: 1, CopyID: br.Copies[0].ID, CopyCode: br.Copies[0].Code}
			} else {
				l.unknownBooks[title] = true
			}
		})
		if so != outcomeAcked || bo != outcomeAcked || stop.Load() {
			continue
		}

		var lr struct {
			Loan struct {
				ID        string `json:"id"`
				BookID    string `json:"book_id"`
				CopyID    string `json:"copy_id"`
				CopyCode  string `json:"copy_code"`
				StudentID string `json:"student_id"`
				DueAt     string `json:"due_at"`
				Status    string `json:"status"`
			} `json:"loan"`
		}
		copyID, studentID := br.Copies[0].ID, sr.Student.ID
		lo, detail := killPost(client, base, token, "/api/library/loans", map[string]any{"book_id": br.Book.ID, "copy_id": copyID, "student_id": studentID}, &lr)
		if lo == outcomeAcked && (lr.Loan.ID == "" || lr.Loan.CopyID != copyID || lr.Loan.StudentID != studentID || lr.Loan.BookID != br.Book.ID ||
			lr.Loan.CopyCode != br.Copies[0].Code || lr.Loan.DueAt == "" || lr.Loan.Status != "active") {
			t.Errorf("loan of %s: answer does not echo the write: %+v", title, lr.Loan)
		}
		l.record(t, kindLoan, lo, detail, func() {
			if lo == outcomeAcked {
				v := lr.Loan
				l.acked.loans[copyID] = killLoan{ID: v.ID, BookID: v.BookID, CopyID: v.CopyID, CopyCode: v.CopyCode, StudentID: v.StudentID, DueAt: v.DueAt}
			} else {
				l.unknownLoans[copyID] = studentID
			}
		})
	}
}

// record counts an outcome and keeps what it says about the store. Only
// writes that may be stored (acknowledged or unknown) are kept.
func (l *killLoad) record(t *testing.T, kind int, o writeOutcome, detail string, keep func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.note(kind, o)
	switch o {
	case outcomeAcked, outcomeUnknown, outcome5xx:
		keep()
	case outcomeRefused:
		// The load only sends valid writes of fresh objects with generous
		// rate limits, so a refusal is a fault of its own.
		t.Errorf("%s write refused: %s", kindNames[kind], detail)
	}
}

func (l *killLoad) summary(found *killStore) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	stored := [3]int{}
	for n := range found.students {
		if _, ok := l.acked.students[n]; ok || l.unknownNums[n] {
			stored[kindStudent]++
		}
	}
	for title := range found.books {
		if _, ok := l.acked.books[title]; ok || l.unknownBooks[title] {
			stored[kindBook]++
		}
	}
	for copyID := range found.loans {
		if _, ok := l.acked.loans[copyID]; ok || l.unknownLoans[copyID] != "" {
			stored[kindLoan]++
		}
	}
	var parts []string
	for k, c := range l.counts {
		parts = append(parts, fmt.Sprintf("%s: %d acknowledged, %d unknown (%d answered 5xx, the rest cut by the kill), %d of both found after restart, %d never sent",
			kindNames[k], c.acked, c.unknown, c.answered5xx, stored[k], c.notSent))
	}
	return strings.Join(parts, "; ")
}

// killPost sends one write and classifies what came back.
func killPost(client *http.Client, base, token, path string, body, into any) (writeOutcome, string) {
	raw, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	hr, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(raw))
	if err != nil {
		panic(err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(hr)
	if err != nil {
		// A refused connection carried nothing; any other failure may have
		// delivered the whole request before the process died.
		if errors.Is(err, syscall.ECONNREFUSED) {
			return outcomeNotSent, err.Error()
		}
		return outcomeUnknown, err.Error()
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return outcomeUnknown, fmt.Sprintf("%d, body cut: %v", resp.StatusCode, err)
	}
	detail := fmt.Sprintf("POST %s: %d %s", path, resp.StatusCode, answer)
	switch {
	case resp.StatusCode/100 == 2:
		if err := json.Unmarshal(answer, into); err != nil {
			return outcomeRefused, detail + ": " + err.Error()
		}
		return outcomeAcked, detail
	case resp.StatusCode >= 500:
		// A request past its deadline answers 503 with its write possibly
		// done; on a busy machine that can happen without the kill.
		return outcome5xx, detail
	default:
		return outcomeRefused, detail
	}
}

// verifyAfterKill reads back, through the API of the restarted process,
// everything this test made, checks it against what must exist and what the
// last load may have stored, and returns what it found.
func verifyAfterKill(t *testing.T, s *service, token string, must *killStore, load *killLoad) *killStore {
	t.Helper()
	load.mu.Lock()
	defer load.mu.Unlock()
	// What must exist: everything earlier restarts showed, and everything
	// the last load had acknowledged.
	want := newKillStore()
	for _, src := range []*killStore{must, &load.acked} {
		for k, v := range src.students {
			want.students[k] = v
		}
		for k, v := range src.books {
			want.books[k] = v
		}
		for k, v := range src.loans {
			want.loans[k] = v
		}
	}
	found := newKillStore()

	// Students, by their number (a search matches the start of a word of
	// the number), from every page of the search.
	for page := 1; ; page++ {
		var students struct {
			Students []struct {
				ID     string `json:"student_id"`
				Name   string `json:"name"`
				Number string `json:"student_number"`
			} `json:"students"`
			Pagination struct {
				TotalPages int `json:"total_pages"`
			} `json:"pagination"`
		}
		killGetJSON(t, s, token, fmt.Sprintf("/api/library/students?limit=100&page=%d&search=%s", page, url.QueryEscape(killNumberPrefix)), &students)
		for _, st := range students.Students {
			if !strings.HasPrefix(st.Number, killNumberPrefix) {
				continue
			}
			if prev, dup := found.students[st.Number]; dup {
				t.Errorf("student number %s stored twice: %s and %s", st.Number, prev.ID, st.ID)
			}
			found.students[st.Number] = killStudent{ID: st.ID, Number: st.Number, Name: st.Name}
		}
		if page >= students.Pagination.TotalPages {
			break
		}
	}
	for n, w := range sortedKeys(want.students) {
		got, ok := found.students[n]
		switch {
		case !ok:
			t.Errorf("LOST student %s (id %s): acknowledged or seen before, missing after restart", n, w.ID)
		case got != w:
			t.Errorf("student %s changed: stored %+v, want %+v", n, got, w)
		}
	}
	for n := range sortedKeys(found.students) {
		if _, ok := want.students[n]; !ok && !load.unknownNums[n] {
			t.Errorf("student %s stored but neither acknowledged nor in flight at the kill", n)
		}
	}

	// Books, from every page of the school's public catalog.
	type catalogBook struct {
		ID        string `json:"id"`
		Title     string `json:"title"`
		Author    string `json:"author"`
		Total     int    `json:"total_copies"`
		Available int    `json:"available_copies"`
	}
	shelf := map[string]catalogBook{}
	for page := 1; ; page++ {
		var cat struct {
			Books      []catalogBook `json:"books"`
			Pagination struct {
				TotalPages int `json:"total_pages"`
			} `json:"pagination"`
		}
		killGetJSON(t, s, token, fmt.Sprintf("/api/library/catalog/maplegrove.example.org?limit=100&page=%d", page), &cat)
		for _, b := range cat.Books {
			if !strings.HasPrefix(b.Title, killTitlePrefix) {
				continue
			}
			if prev, dup := shelf[b.Title]; dup {
				t.Errorf("book %q stored twice: %s and %s", b.Title, prev.ID, b.ID)
			}
			shelf[b.Title] = b
			found.books[b.Title] = killBook{ID: b.ID, Title: b.Title, Author: b.Author, Copies: b.Total}
		}
		if page >= cat.Pagination.TotalPages {
			break
		}
	}
	for title, w := range sortedKeys(want.books) {
		got, ok := shelf[title]
		switch {
		case !ok:
			t.Errorf("LOST book %q (id %s): acknowledged or seen before, missing after restart", title, w.ID)
			continue
		case got.ID != w.ID || got.Author != w.Author || got.Total != w.Copies:
			t.Errorf("book %q changed: stored %+v, want id %s, author %q, %d copies", title, got, w.ID, w.Author, w.Copies)
		}
		fb := found.books[title]
		fb.CopyID, fb.CopyCode = w.CopyID, w.CopyCode
		found.books[title] = fb
	}
	for title, b := range sortedKeys(shelf) {
		if _, ok := want.books[title]; ok {
			continue
		}
		if !load.unknownBooks[title] {
			t.Errorf("book %q stored but neither acknowledged nor in flight at the kill", title)
		}
		// A book cut between the book and its copy may have no copy.
		if b.Total > 1 {
			t.Errorf("book %q in flight at the kill has %d copies, want 0 or 1", title, b.Total)
		}
	}

	// Open loans of the school, from every page of the list.
	type openLoan struct {
		ID         string  `json:"id"`
		BookID     string  `json:"book_id"`
		CopyID     string  `json:"copy_id"`
		CopyCode   string  `json:"copy_code"`
		StudentID  string  `json:"student_id"`
		DueAt      string  `json:"due_at"`
		ReturnedAt *string `json:"returned_at"`
		Status     string  `json:"status"`
		Book       struct {
			Title string `json:"title"`
		} `json:"book"`
	}
	var open []openLoan
	for page := 1; ; page++ {
		var loans struct {
			Loans      []openLoan `json:"loans"`
			Pagination struct {
				TotalPages int `json:"total_pages"`
			} `json:"pagination"`
		}
		killGetJSON(t, s, token, fmt.Sprintf("/api/library/loans?limit=100&page=%d", page), &loans)
		open = append(open, loans.Loans...)
		if page >= loans.Pagination.TotalPages {
			break
		}
	}
	lentPerBook := map[string]int{}
	for _, l := range open {
		if !strings.HasPrefix(l.Book.Title, killTitlePrefix) {
			continue
		}
		if prev, dup := found.loans[l.CopyID]; dup {
			t.Errorf("copy %s lent twice: loans %s and %s", l.CopyID, prev.ID, l.ID)
		}
		if l.Status != "active" || l.ReturnedAt != nil {
			t.Errorf("loan %s is %s (returned_at %v), want active: nothing returned it", l.ID, l.Status, l.ReturnedAt)
		}
		found.loans[l.CopyID] = killLoan{ID: l.ID, BookID: l.BookID, CopyID: l.CopyID, CopyCode: l.CopyCode, StudentID: l.StudentID, DueAt: l.DueAt}
		lentPerBook[l.BookID]++
	}
	for copyID, w := range sortedKeys(want.loans) {
		got, ok := found.loans[copyID]
		switch {
		case !ok:
			t.Errorf("LOST loan %s of copy %s to student %s: acknowledged or seen before, missing after restart", w.ID, w.CopyCode, w.StudentID)
		case got != w:
			t.Errorf("loan of copy %s changed: stored %+v, want %+v", copyID, got, w)
		}
	}
	for copyID, got := range sortedKeys(found.loans) {
		if _, ok := want.loans[copyID]; ok {
			continue
		}
		if student, sent := load.unknownLoans[copyID]; !sent || student != got.StudentID {
			t.Errorf("loan %s of copy %s to student %s stored but neither acknowledged nor in flight at the kill", got.ID, got.CopyCode, got.StudentID)
		}
	}
	// The catalog's availability agrees with the loans.
	for title, b := range sortedKeys(shelf) {
		if want := b.Total - lentPerBook[b.ID]; b.Available != want {
			t.Errorf("book %q: catalog shows %d of %d copies available, the loans leave %d", title, b.Available, b.Total, want)
		}
	}

	// Each copy the last load had acknowledged, as the desk scanner finds it
	// by its code: its book, and its loan if one is stored, which the loan
	// list filtered by the student also finds. Older objects were checked
	// by the same reads after their own restart and are re-checked above by
	// the listings; one read per object for all of them would make each
	// cycle slower than the last, as these reads cost more as the store
	// grows. The reads run on a few clients at once to keep the test quick.
	const filterSample = 8
	type copyCheck struct {
		book killBook
		loan killLoan
		lent bool
	}
	var checks []copyCheck
	for title, b := range sortedKeys(load.acked.books) {
		if _, ok := found.books[title]; !ok {
			continue // reported lost above
		}
		l, lent := found.loans[b.CopyID]
		checks = append(checks, copyCheck{book: b, loan: l, lent: lent})
	}
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		errsMu  sync.Mutex
		errList []string
	)
	fail := func(format string, args ...any) {
		errsMu.Lock()
		errList = append(errList, fmt.Sprintf(format, args...))
		errsMu.Unlock()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			defer client.CloseIdleConnections()
			for i := int(next.Add(1)) - 1; i < len(checks); i = int(next.Add(1)) - 1 {
				c := checks[i]
				var got struct {
					Copy struct {
						ID     string `json:"id"`
						BookID string `json:"book_id"`
						Status string `json:"status"`
					} `json:"copy"`
					Loan *struct {
						ID        string `json:"id"`
						StudentID string `json:"student_id"`
					} `json:"loan"`
				}
				if err := killGet(client, s.URL, token, "/api/library/copies?code="+url.QueryEscape(c.book.CopyCode), &got); err != nil {
					fail("copy %s of %q: %v", c.book.CopyCode, c.book.Title, err)
					continue
				}
				wantStatus := "available"
				if c.lent {
					wantStatus = "on_loan"
				}
				if got.Copy.ID != c.book.CopyID || got.Copy.BookID != c.book.ID || got.Copy.Status != wantStatus {
					fail("copy %s of %q: found %+v, want id %s of book %s, %s", c.book.CopyCode, c.book.Title, got.Copy, c.book.CopyID, c.book.ID, wantStatus)
				}
				if c.lent && (got.Loan == nil || got.Loan.ID != c.loan.ID || got.Loan.StudentID != c.loan.StudentID) {
					fail("copy %s of %q: the desk shows loan %+v, want %s to student %s", c.book.CopyCode, c.book.Title, got.Loan, c.loan.ID, c.loan.StudentID)
				}
				// The loan list filtered by the student, or by the book, finds
				// that loan alone: each has one loan in this test. A sample
				// only, as the pages of the list above already hold every loan.
				if c.lent && i%filterSample == 0 {
					for _, filter := range []string{"student_id=" + c.loan.StudentID, "book_id=" + c.loan.BookID} {
						var filtered struct {
							Loans []struct {
								ID string `json:"id"`
							} `json:"loans"`
						}
						if err := killGet(client, s.URL, token, "/api/library/loans?"+filter, &filtered); err != nil {
							fail("loans with %s: %v", filter, err)
						} else if len(filtered.Loans) != 1 || filtered.Loans[0].ID != c.loan.ID {
							fail("loans with %s: %+v, want loan %s alone", filter, filtered.Loans, c.loan.ID)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	sort.Strings(errList)
	for _, e := range errList {
		t.Error(e)
	}

	// In numbers: at least what must exist, at most that plus the writes
	// whose outcome the kill left unknown.
	for k, pair := range [3][2]int{
		{len(found.students), len(want.students)},
		{len(found.books), len(want.books)},
		{len(found.loans), len(want.loans)},
	} {
		got, atLeast := pair[0], pair[1]
		atMost := atLeast + load.counts[k].unknown
		if got < atLeast || got > atMost {
			t.Errorf("%s stored after restart: %d, want between %d (acknowledged or seen before) and %d (plus those cut by the kill)", kindNames[k], got, atLeast, atMost)
		}
	}
	return found
}

// waitReady waits until the process answers /readyz with 200: after a kill
// the store may first have to recover.
func waitReady(t *testing.T, b *runningBinary) {
	t.Helper()
	if err := pollReady(b.base, 60*time.Second, nil); err != nil {
		t.Fatal(err)
	}
}

func killGetJSON(t *testing.T, s *service, token, path string, into any) {
	t.Helper()
	if err := killGet(http.DefaultClient, s.URL, token, path, into); err != nil {
		t.Fatal(err)
	}
}

// killGet reads path into into; usable from any goroutine.
func killGet(client *http.Client, base, token, path string, into any) error {
	hr, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	hr.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(hr)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: %w: %s", path, err, body)
	}
	return nil
}

// sortedKeys ranges over a map in key order, so failures list in a stable
// order.
func sortedKeys[V any](m map[string]V) func(func(string, V) bool) {
	return func(yield func(string, V) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

// killLogTail is the end of a process's output without the access-log lines
// of successful requests, which would otherwise bury the start-up and error
// lines that explain a failure.
func killLogTail(out string, n int) string {
	var kept []string
	omitted := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"msg":"request"`) && !strings.Contains(line, `"level":"ERROR"`) {
			omitted++
			continue
		}
		kept = append(kept, line)
	}
	if len(kept) > n {
		omitted += len(kept) - n
		kept = kept[len(kept)-n:]
	}
	return fmt.Sprintf("(%d lines omitted: successful requests and earlier lines)\n%s", omitted, strings.Join(kept, "\n"))
}
