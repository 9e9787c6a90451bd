package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest/ferret"
)

// replica is one service process (the built binary) of a scale-out test.
type replica struct {
	name string
	URL  string
	cmd  *exec.Cmd
	out  *lockedBuffer // stdout and stderr
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result, valid once done is closed
}

// startReplica runs bin on a free loopback port with env (on top of the
// test's environment without its LIBRARY_ variables). It does not wait for
// readiness; see waitReady.
func startReplica(t *testing.T, bin, name string, env []string) *replica {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LIBRARY_") {
			base = append(base, kv)
		}
	}
	cmd := exec.Command(bin)
	cmd.Env = append(append(base, env...), "LIBRARY_ADDR="+addr, "LIBRARY_METRICS_ADDR=127.0.0.1:0")
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	r := &replica{name: name, URL: "http://" + addr, cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, tail(out.String(), 8000))
		}
	})
	return r
}

func (r *replica) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// waitReady polls /readyz until it answers 200 and the replica says it
// listens on its port; it fails early when the process exits.
func (r *replica) waitReady(timeout time.Duration) error {
	return pollOwnReady(r.URL, timeout, func() error {
		if r.exited() {
			return fmt.Errorf("%s exited before it was ready: %v", r.name, r.err)
		}
		return nil
	}, r.out.String)
}

// stop sends SIGTERM and waits up to 30 s for the process to exit.
func (r *replica) stop() error {
	if r.exited() {
		return fmt.Errorf("%s had already exited: %v", r.name, r.err)
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-r.done:
		if r.err != nil {
			return fmt.Errorf("%s exit after SIGTERM: %v", r.name, r.err)
		}
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s did not exit within 30 s of SIGTERM", r.name)
	}
}

// tail returns the last n bytes of a process's output without its access-log
// lines.
func tail(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, `"msg":"request"`) && !strings.Contains(l, `"msg":"starting"`) {
			keep = append(keep, l)
		}
	}
	s = strings.Join(keep, "\n")
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// send is doWith for goroutines: it reports errors instead of failing.
func send(client *http.Client, base string, r req) (response, error) {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequest(method, base+r.Path, body)
	if err != nil {
		return response{}, err
	}
	if r.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := client.Do(hr)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b, resp: resp}, nil
}

// errorCode returns the error envelope's code, or "".
func errorCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

// TestScaleOutTwoProcesses runs two service processes (the built binary) on
// one database and one Redis, as replicas behind a load balancer would run,
// started at the same moment on an empty database with demo data on. It
// checks that the rate budget is shared, that exactly one of simultaneous
// loans of a copy sent to both succeeds, and that tokens and logouts cross
// between them.
func TestScaleOutTwoProcesses(t *testing.T) {
	redisURL := os.Getenv("LIBRARY_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("LIBRARY_TEST_REDIS_URL is not set; .ci/run sets it (redis://127.0.0.1:6379/0)")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	sameInEveryRun(t)

	began := time.Now()
	bin := filepath.Join(t.TempDir(), "libraryd")
	build := exec.Command("go", "build", "-o", bin, "../cmd/libraryd")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("built the binary in %s", time.Since(began).Round(time.Millisecond))

	began = time.Now()
	dbAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	db, err := ferret.Start(context.Background(), ferret.Options{DataDir: t.TempDir(), Addr: dbAddr})
	if err != nil {
		t.Fatalf("start the embedded database: %v", err)
	}
	t.Cleanup(db.Stop) // registered first, so it runs after the processes are gone
	t.Logf("embedded database on %s in %s", dbAddr, time.Since(began).Round(time.Millisecond))

	const issuer = "https://library.example.org" // replicas share the public URL
	env := []string{
		"LIBRARY_MONGODB_URI=mongodb://" + dbAddr + "/",
		"LIBRARY_MONGODB_DATABASE=scaleout",
		"LIBRARY_REDIS_URL=" + redisURL,
		"LIBRARY_ISSUER_URL=" + issuer,
		"LIBRARY_DEMO_DATA=true",
		"LIBRARY_COOKIE_SECURE=false",
		"LIBRARY_SECRET_KEY=" + testSecretKey,
		"LIBRARY_RATE_AUTHENTICATED=9-H",
		// Anonymous requests (sign-ins, the public catalog) are counted per
		// client address, and 127.0.0.1's counters in the shared Redis
		// outlive this run; keep them out of the way.
		"LIBRARY_RATE_ANONYMOUS=100000-H",
		"LIBRARY_RATE_SIGNIN=100000-H",
	}

	// Both processes start on the empty database at the same moment, so both
	// find it empty and seed the demo data at once.
	began = time.Now()
	a, b := startReplica(t, bin, "A", env), startReplica(t, bin, "B", env)
	reps := []*replica{a, b}
	readyErr := make([]error, 2)
	readyAfter := make([]time.Duration, 2)
	var wg sync.WaitGroup
	for i, r := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readyErr[i] = r.waitReady(120 * time.Second)
			readyAfter[i] = time.Since(began)
		}()
	}
	wg.Wait()
	for i, r := range reps {
		if readyErr[i] != nil {
			// Report it, then start the process again on the now seeded
			// database so the remaining checks still run.
			t.Errorf("concurrent start with demo data on an empty database: %v\n%s", readyErr[i], tail(r.out.String(), 4000))
			again := startReplica(t, bin, r.name+" (restarted)", env)
			if err := again.waitReady(120 * time.Second); err != nil {
				t.Fatalf("restart: %v\n%s", err, tail(again.out.String(), 4000))
			}
			reps[i] = again
		} else {
			t.Logf("%s ready %s after the concurrent start; its output so far:\n%s", r.name, readyAfter[i].Round(time.Millisecond), tail(r.out.String(), 3000))
		}
	}
	a, b = reps[0], reps[1]

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(client.CloseIdleConnections)
	on := func(t *testing.T, r *replica, rq req) response {
		t.Helper()
		return doWith(t, client, r.URL, rq)
	}
	login := func(t *testing.T, r *replica, email string) session {
		t.Helper()
		resp := on(t, r, req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, demoPassword)})
		if resp.Status != 200 {
			t.Fatalf("login %s on %s: %d %s", email, r.name, resp.Status, resp.Body)
		}
		rc := resp.cookie("sb-refresh-token")
		if rc == nil {
			t.Fatalf("login %s on %s set no refresh cookie", email, r.name)
		}
		return session{Access: resp.json(t)["access_token"].(string), Refresh: rc.Value, Resp: resp}
	}

	// The admin (premium tier, 10000-H) signs in on B and works on A too.
	admin := login(t, b, demoAdmin).Access

	// ----- what concurrent seeding left behind -----
	// One demo school, 21 demo books, the demo library (3 titles, 9
	// copies, 1 loan) and the demo reader's history, each exactly once.
	var schools struct {
		Schools []map[string]any `json:"schools"`
	}
	if err := json.Unmarshal(on(t, a, req{Path: "/api/admin/schools", Token: admin}).Body, &schools); err != nil || len(schools.Schools) != 1 || schools.Schools[0]["domain"] != "maplegrove.example.org" {
		t.Fatalf("schools after concurrent seeding: %v %v, want only maplegrove.example.org", err, schools.Schools)
	}
	schoolID := schools.Schools[0]["id"].(string)
	var books struct {
		Data       []map[string]any `json:"data"`
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(on(t, b, req{Path: "/v1/books?limit=100&sort=title", Token: admin}).Body, &books); err != nil || books.Pagination.Total != 21 {
		t.Errorf("demo books after concurrent seeding: %d (%v), want 21", books.Pagination.Total, err)
	}
	catalogOn := func(t *testing.T, r *replica) []map[string]any {
		t.Helper()
		resp := on(t, r, req{Path: "/api/library/catalog/maplegrove.example.org"})
		if resp.Status != 200 {
			t.Fatalf("catalog on %s: %d %s", r.name, resp.Status, resp.Body)
		}
		var c struct {
			Books []map[string]any `json:"books"`
		}
		_ = json.Unmarshal(resp.Body, &c)
		return c.Books
	}
	total, available := 0, 0
	titles := catalogOn(t, a)
	for _, bk := range titles {
		total += int(bk["total_copies"].(float64))
		available += int(bk["available_copies"].(float64))
	}
	if len(titles) != 3 || total != 9 || available != 8 {
		t.Errorf("demo library after concurrent seeding: %d titles, %d copies, %d available; want 3, 9, 8", len(titles), total, available)
	}
	loansOn := func(t *testing.T, r *replica, tok, query string) []map[string]any {
		t.Helper()
		resp := on(t, r, req{Path: "/api/library/loans" + query, Token: tok})
		if resp.Status != 200 {
			t.Fatalf("loans on %s: %d %s", r.name, resp.Status, resp.Body)
		}
		var l struct {
			Loans []map[string]any `json:"loans"`
		}
		_ = json.Unmarshal(resp.Body, &l)
		return l.Loans
	}
	if l := loansOn(t, a, admin, "?schoolId="+schoolID); len(l) != 1 {
		t.Errorf("demo loans after concurrent seeding: %d, want 1", len(l))
	}
	// The demo reader: two fantasy books finished, one started, four listed;
	// its reading time is the sum of the seeded sessions, once.
	reader := login(t, a, demoReader).Access
	// (Titles once each, as a single seeding saw them.)
	var fantasy, other []map[string]any
	seen := map[any]bool{}
	for _, bk := range books.Data {
		if seen[bk["title"]] {
			continue
		}
		seen[bk["title"]] = true
		if bk["access"] == "free" && bk["genre"] == "fantasy" {
			fantasy = append(fantasy, bk)
		} else if bk["access"] == "free" {
			other = append(other, bk)
		}
	}
	if len(fantasy) >= 2 && len(other) >= 1 {
		pages := func(bk map[string]any) int { return int(bk["pages"].(float64)) }
		p0, p1, p2 := pages(fantasy[0]), pages(fantasy[1]), pages(other[0])
		want := 0
		for _, pg := range []int{p0 / 2, p0, p1 / 3, p1, p2 / 4} {
			want += 600 + 60*pg
		}
		stats := on(t, b, req{Path: "/v1/users/me/stats", Token: reader}).json(t)
		if stats["total_reading_time"] != float64(want) || stats["books_completed"] != float64(2) {
			t.Errorf("demo reader's stats after concurrent seeding: reading time %v (want %d), books completed %v (want 2)",
				stats["total_reading_time"], want, stats["books_completed"])
		}
	}
	var list struct {
		Data []any `json:"data"`
	}
	_ = json.Unmarshal(on(t, a, req{Path: "/v1/users/me/reading-list", Token: reader}).Body, &list)
	if len(list.Data) != 4 {
		t.Errorf("demo reader's reading list after concurrent seeding: %d entries, want 4", len(list.Data))
	}

	// ----- (1) one rate budget across both processes -----
	t.Run("SharedRateBudget", func(t *testing.T) {
		// Each run uses a fresh database, so the account id (the limiter key)
		// is new and earlier runs against the same Redis do not count.
		staff := login(t, a, "staff@maplegrove.example.org").Access
		var seq []string
		for i := 0; i < 12; i++ {
			r := []*replica{a, b}[i%2]
			resp := on(t, r, req{Path: "/v1/users/me", Token: staff})
			rem := resp.Header.Get("X-RateLimit-Remaining")
			seq = append(seq, fmt.Sprintf("%s:%d/%s", r.name, resp.Status, rem))
			if lim := resp.Header.Get("X-RateLimit-Limit"); lim != "9" {
				t.Errorf("request %d on %s: X-RateLimit-Limit = %q, want 9", i+1, r.name, lim)
			}
			if i < 9 {
				if resp.Status != 200 || rem != strconv.Itoa(8-i) {
					t.Errorf("request %d on %s: %d, remaining %s; want 200, remaining %d", i+1, r.name, resp.Status, rem, 8-i)
				}
			} else if code := errorCode(resp.Body); resp.Status != 429 || code != "rate_limit_exceeded" || rem != "0" {
				t.Errorf("request %d on %s: %d %s, remaining %s; want 429 rate_limit_exceeded, remaining 0", i+1, r.name, resp.Status, code, rem)
			}
		}
		t.Logf("alternating A/B, status/remaining: %s", strings.Join(seq, " "))
	})

	// ----- (2) simultaneous loans of one copy across both processes -----
	t.Run("SimultaneousLoans", func(t *testing.T) {
		// The librarian (standard tier, 9 per hour) adds the book and reads
		// the lists; the admin (premium) sends the 50 loans.
		lib := login(t, a, demoLibrarian).Access
		if got := on(t, b, req{Path: "/api/library/settings", Token: lib}).json(t)["school_id"]; got != schoolID {
			t.Fatalf("librarian's school = %v, want %s", got, schoolID)
		}
		resp := on(t, b, req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Two Desks, One Copy","author":"Ana Lopes","copies":1}`})
		if resp.Status != 201 {
			t.Fatalf("add book: %d %s", resp.Status, resp.Body)
		}
		var added struct {
			Book   map[string]any   `json:"book"`
			Copies []map[string]any `json:"copies"`
		}
		if err := json.Unmarshal(resp.Body, &added); err != nil || len(added.Copies) != 1 {
			t.Fatalf("add book body: %v %s", err, resp.Body)
		}
		bookID, copyID := added.Book["id"].(string), added.Copies[0]["id"].(string)

		var students struct {
			Students []map[string]any `json:"students"`
		}
		_ = json.Unmarshal(on(t, a, req{Path: "/api/library/students?schoolId=" + schoolID, Token: admin}).Body, &students)
		studentID := ""
		for _, s := range students.Students {
			if s["email"] == demoStudent {
				studentID = s["student_id"].(string)
			}
		}
		if studentID == "" {
			t.Fatalf("demo student not among the school's students: %v", students.Students)
		}

		const n = 50
		body := fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, schoolID, bookID, copyID, studentID)
		results := make([]response, n)
		sendErrs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i], sendErrs[i] = send(client, []*replica{a, b}[i%2].URL, req{Method: http.MethodPost, Path: "/api/library/loans", Token: admin, Body: body})
			}()
		}
		began := time.Now()
		close(start)
		wg.Wait()
		t.Logf("%d simultaneous loans across A and B answered in %s", n, time.Since(began).Round(time.Millisecond))
		won, winner, lost := 0, "", 0
		for i, r := range results {
			if sendErrs[i] != nil {
				t.Fatalf("loan %d: %v", i, sendErrs[i])
			}
			switch {
			case r.Status == 201:
				won++
				var l struct {
					Loan map[string]any `json:"loan"`
				}
				_ = json.Unmarshal(r.Body, &l)
				winner = l.Loan["id"].(string)
				t.Logf("the winning loan went through %s", []*replica{a, b}[i%2].name)
			case r.Status == 409 && errorCode(r.Body) == "copy_unavailable":
				lost++
			default:
				t.Errorf("loan %d on %s: %d %s, want 201 or 409 copy_unavailable", i, []*replica{a, b}[i%2].name, r.Status, r.Body)
			}
		}
		if won != 1 || lost != n-1 {
			t.Fatalf("%d of %d simultaneous loans succeeded and %d were refused with copy_unavailable; want exactly 1 and %d", won, n, lost, n-1)
		}

		for _, r := range []*replica{a, b} {
			for who, tok := range map[string]string{"librarian": lib, "admin": admin} {
				query := ""
				if who == "admin" {
					query = "?schoolId=" + schoolID
				}
				var forCopy []string
				for _, l := range loansOn(t, r, tok, query) {
					if l["copy_id"] == copyID {
						forCopy = append(forCopy, l["id"].(string))
					}
				}
				if len(forCopy) != 1 || forCopy[0] != winner {
					t.Errorf("%s's open loans of the copy on %s: %v, want only %s", who, r.name, forCopy, winner)
				}
			}
			var found map[string]any
			for _, bk := range catalogOn(t, r) {
				if bk["id"] == bookID {
					found = bk
				}
			}
			if found == nil || found["available_copies"] != float64(0) || found["total_copies"] != float64(1) {
				t.Errorf("public catalog on %s lists the book as %v, want 1 copy, 0 available", r.name, found)
			}
		}
	})

	// ----- (3) sessions cross between the processes -----
	t.Run("TokensAndLogoutAcrossProcesses", func(t *testing.T) {
		sess := login(t, a, demoStudent)
		if resp := on(t, b, req{Path: "/v1/users/me", Token: sess.Access}); resp.Status != 200 || resp.json(t)["email"] != demoStudent {
			t.Fatalf("A's access token on B: %d %s", resp.Status, resp.Body)
		}
		resp := on(t, b, req{Method: http.MethodPost, Path: "/api/auth/logout", Body: fmt.Sprintf(`{"refresh_token":%q}`, sess.Refresh)})
		if resp.Status != 204 {
			t.Fatalf("logout on B with A's refresh token: %d %s", resp.Status, resp.Body)
		}
		resp = on(t, a, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, sess.Refresh)})
		if code, _ := resp.apiError(t); resp.Status != 401 || code != "invalid_refresh_token" {
			t.Fatalf("refresh on A after logout on B: %d %s, want 401 invalid_refresh_token", resp.Status, resp.Body)
		}
		// The access token too, at once, on the other process.
		if resp := on(t, a, req{Path: "/v1/users/me", Token: sess.Access}); resp.Status != 401 {
			t.Fatalf("A's access token on A after logout on B: %d, want 401", resp.Status)
		}
	})

	// ----- both stop cleanly on SIGTERM -----
	client.CloseIdleConnections()
	began = time.Now()
	stopErr := make([]error, 2)
	for i, r := range []*replica{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stopErr[i] = r.stop()
		}()
	}
	wg.Wait()
	for _, err := range stopErr {
		if err != nil {
			t.Error(err)
		}
	}
	t.Logf("both processes exited after SIGTERM in %s", time.Since(began).Round(time.Millisecond))
}
