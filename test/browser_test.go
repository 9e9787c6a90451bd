package test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// Browser tests drive Debian's headless Chromium through the Chrome DevTools
// Protocol (chromedp). .ci/run installs Chromium and sets
// LIBRARY_TEST_BROWSER=required, so in CI a missing browser is a failure;
// elsewhere the tests are skipped and say why. Screenshots of the main pages
// go to LIBRARY_TEST_ARTIFACTS (default test/artifacts/browser).

// chromiumPath finds the browser or skips (fails when required). Chromium's
// headless shell (Debian's chromium-headless-shell) comes first: it is the
// same Blink and V8 without the browser's own interface, and a run of the
// suite's browser tests took 88 CPU-s with it against 198 with the full
// chromium in headless mode.
func chromiumPath(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("LIBRARY_TEST_CHROMIUM"), "chromium-headless-shell", "chromium", "chromium-browser", "/usr/bin/chromium"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	msg := "headless Chromium was not found (install Debian's chromium-headless-shell or chromium package, or set LIBRARY_TEST_CHROMIUM to its path)"
	if os.Getenv("LIBRARY_TEST_BROWSER") == "required" {
		t.Fatalf("%s; LIBRARY_TEST_BROWSER=required", msg)
	}
	t.Skipf("browser tests skipped: %s", msg)
	return ""
}

// newChromium returns a tab of its own in a browser context of its own
// (its own cookies, storage and cache, as a fresh profile has) in the test
// process's one headless Chromium. Starting a Chromium costs about 1.7 s of
// CPU, and the suite opens twenty browsers in each of its four runs. A
// browser that has died is started again.
func newChromium(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath(t)
	for attempt := 1; ; attempt++ {
		browser, err := sharedChromium(path)
		if err == nil {
			ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
			if err = chromedp.Do(ctx); err == nil { // opens the tab
				t.Cleanup(cancel)
				axeRecordDocuments(ctx)
				return ctx
			}
			cancel()
		}
		stopChromium()
		if attempt == 2 {
			t.Fatalf("start Chromium: %v", err)
		}
	}
}

// chromium is the test process's browser, started by the first test that
// needs one and stopped by TestMain.
var chromium struct {
	mu      sync.Mutex
	browser context.Context
	stop    func()
}

func sharedChromium(path string) (context.Context, error) {
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	if chromium.browser != nil {
		return chromium.browser, nil
	}
	dir, err := os.MkdirTemp("", "libraryd-chromium-")
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // tests run as root on CI machines
		chromedp.DisableGPU,
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	stop := func() { cancelBrowser(); cancelAlloc(); _ = os.RemoveAll(dir) }
	if err := chromedp.Do(browser); err != nil { // starts the browser
		stop()
		return nil, err
	}
	chromium.browser, chromium.stop = browser, stop
	return browser, nil
}

// stopChromium stops the shared browser, if one runs.
func stopChromium() {
	chromium.mu.Lock()
	defer chromium.mu.Unlock()
	if chromium.stop != nil {
		chromium.stop()
	}
	chromium.browser, chromium.stop = nil, nil
}

// run executes browser actions with a deadline and fails the test with the
// step's name and what the page showed.
func run(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	runWithin(t, ctx, 30*time.Second, step, actions...)
}

// runWithin is run with a time of its own, for a step that waits on
// background work (a job) rather than on the page. The state the step
// ends on is then checked for accessibility (axeCheck).
func runWithin(t *testing.T, ctx context.Context, within time.Duration, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		url, _ := chromedp.Run(ctx, chromedp.Location())
		text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v\nat %s:\n%.1500s", step, err, url, text)
	}
	axeCheck(t, ctx, step)
}

// get runs one action that answers a value.
func get[T any](t *testing.T, ctx context.Context, step string, a chromedp.Action[T]) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, a)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	return v
}

// loads is action, which loads another page (a link followed, a form
// sent), and then waits until that page has loaded: the steps after it
// look for their elements in the new page, never in the one being left,
// whose elements vanish under a query ("Could not find node with given
// id").
func loads(action chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var none chromedp.Void
		if _, err := chromedp.Evaluate[bool](`window.leavingForTest = true`)(ctx, tg); err != nil {
			return none, err
		}
		if _, err := action(ctx, tg); err != nil {
			return none, err
		}
		for {
			// An evaluation in the page being replaced may fail: ask again.
			loaded, err := chromedp.Evaluate[bool](`!window.leavingForTest && document.readyState === "complete"`)(ctx, tg)
			if err == nil && loaded {
				return none, nil
			}
			select {
			case <-ctx.Done():
				return none, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}

// focusedID returns the id of the element with the focus once it is want,
// or whatever has it after a few seconds. The browser moves the focus to
// an autofocus field at its next rendering update, a moment after the page
// has loaded and shown its content.
func focusedID(t *testing.T, ctx context.Context, step, want string) string {
	t.Helper()
	const focused = `document.activeElement ? document.activeElement.id : ""`
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[bool](fmt.Sprintf(`(%s) === %q`, focused, want), chromedp.WithPollingInterval(20*time.Millisecond))); err == nil {
		return want
	}
	return get(t, ctx, step, chromedp.Evaluate[string](focused))
}

// screenshot saves a full-page PNG under the artifacts directory.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !takesScreenshots() {
		return
	}
	dir := os.Getenv("LIBRARY_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("artifacts", "browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png := get(t, ctx, "screenshot "+name, wholePage)
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// wholePage captures the whole page. A page no taller than the window is
// captured as the window shows it: captured "beyond the viewport",
// Chromium shifts a short right-to-left page sideways and the shot misses
// its start.
func wholePage(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
	size, err := chromedp.Evaluate[[]float64](`[document.documentElement.clientWidth, Math.max(document.documentElement.scrollHeight, document.body.scrollHeight), window.innerHeight]`)(ctx, tg)
	if err != nil {
		return nil, err
	}
	params := cdppage.CaptureScreenshotParams{Format: cdppage.CaptureScreenshotFormatPng, FromSurface: ptrTo(true)}
	if size[1] > size[2] {
		params.CaptureBeyondViewport = ptrTo(true)
		params.Clip = &cdppage.Viewport{X: 0, Y: 0, Width: size[0], Height: size[1], Scale: 1}
	}
	r, err := cdp.Call(ctx, tg, cdppage.CaptureScreenshot, params)
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}

func ptrTo[T any](v T) *T { return &v }

// takesScreenshots reports whether this run keeps the pages' screenshots:
// the run on the embedded store in process does. The container runs and
// the MongoDB run show the same pages, and each full-page PNG costs about
// 0.2 CPU-s and half a second of its test (LIBRARY_TEST_SCREENSHOTS=always
// takes them in every run).
func takesScreenshots() bool {
	return os.Getenv("LIBRARY_TEST_SCREENSHOTS") == "always" || (testTarget() == "process" && testStore() == "sqlite")
}

// typeAndEnter focuses a field and types like a barcode scanner: the
// characters, then Enter.
func typeAndEnter(id, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Focus(chromedp.ID(id)),
		chromedp.SendKeys(chromedp.ID(id), text+kb.Enter),
	)
}

// demoBookWithOneCopy adds a book with one copy to the demo school, as its
// librarian, and returns the book and the copy's code.
func demoBookWithOneCopy(t *testing.T, s *service, title string) (library.Book, string) {
	t.Helper()
	book, copies := demoBookAndCopies(t, s, title)
	return book, copies[0].Code
}

// demoBookAndCopies adds a book with one copy to the demo school, as its
// librarian, and returns the book and its copies.
func demoBookAndCopies(t *testing.T, s *service, title string) (library.Book, []library.Copy) {
	t.Helper()
	book, copies, err := s.App.Library.Holdings.AddBook(asDemoLibrarian(t, s), "", library.BookDraft{Title: title, Author: "Chromium Tester", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	return book, copies
}

// asDemoLibrarian is a context whose caller is the demo librarian, for
// setting up through the use cases.
func asDemoLibrarian(t *testing.T, s *service) context.Context {
	t.Helper()
	acct, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoLibrarian)
	if err != nil {
		t.Fatal(err)
	}
	return user.WithPrincipal(context.Background(), user.PrincipalOf(acct))
}

// checkOutAtDesk lends the copy with code to the student typed (a number
// or a name) at the desk's check-out form of domain, and returns the
// message the desk shows.
func checkOutAtDesk(t *testing.T, bctx context.Context, s *service, domain, step, code, student string) string {
	t.Helper()
	run(t, bctx, step,
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(chromedp.ID("checkout-code")),
		chromedp.SendKeys(chromedp.ID("checkout-code"), code),
		loads(typeAndEnter("checkout-student", student)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	return flashText(t, bctx, step)
}

// flashText reads the message of the page the browser is on, read by the
// page's own script each try: a node id taken between a redirect's two
// documents may be gone when its text is asked for ("No node with given
// id found"), while the live document is always there to read.
func flashText(t *testing.T, bctx context.Context, step string) string {
	t.Helper()
	const read = `(() => { const f = document.getElementById("flash"); return f ? f.textContent : ""; })()`
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, cancel := context.WithTimeout(bctx, 5*time.Second)
		text, err := chromedp.Run(c, chromedp.Evaluate[string](read))
		cancel()
		if err == nil && strings.TrimSpace(text) != "" {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s message: none on the page (%v)", step, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clickForFlash clicks the button with id and returns the message the page
// it leads to shows.
func clickForFlash(t *testing.T, bctx context.Context, step, id string) string {
	t.Helper()
	run(t, bctx, step,
		loads(chromedp.Click(chromedp.ID(id))),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	return flashText(t, bctx, step)
}

// signInDemoLibrarian signs the browser in as the demo librarian and waits
// for the desk.
func signInDemoLibrarian(t *testing.T, bctx context.Context, s *service) {
	t.Helper()
	run(t, bctx, "sign in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoLibrarian),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("checkout-code")),
	)
}

// checkOutByKeyboard checks a copy out at the desk from the keyboard only:
// the code, Tab, the student's name, Enter; it waits for the loan's row on
// the desk and returns its selector.
func checkOutByKeyboard(t *testing.T, bctx context.Context, code, student string) chromedp.CSS {
	t.Helper()
	row := chromedp.CSS(`tr[data-copy-code="` + code + `"]`)
	run(t, bctx, "check out by keyboard",
		chromedp.Focus(chromedp.ID("checkout-code")),
		chromedp.KeyEvent(code),
		chromedp.KeyEvent(kb.Tab),
		chromedp.KeyEvent(student),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(row),
	)
	return row
}

// A librarian signs in, checks a copy out by typing its code, sees the loan
// on the desk, returns it by typing the code again, and the public catalog's
// availability follows each step. The forms are driven from the keyboard
// only, as a scanner would.
func TestBrowserCheckoutAndReturn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"

	// A fresh title with one copy, so the counts are this test's own.
	title := "Browser Test Atlas"
	book, code := demoBookWithOneCopy(t, s, title)
	catalogURL := s.URL + "/library/" + domain + "/catalog?search=" + strings.ReplaceAll(title, " ", "+")
	availability := func(step string) string {
		t.Helper()
		run(t, bctx, step, chromedp.Navigate(catalogURL))
		cell := chromedp.CSS(`tr[data-book-id="` + book.ID + `"] [data-testid="catalog-availability"]`)
		return strings.TrimSpace(get(t, bctx, step, chromedp.Text(cell)))
	}

	if got := availability("public catalog before"); got != "1 of 1 available" {
		t.Fatalf("catalog before check-out: %q, want 1 of 1 available", got)
	}
	screenshot(t, bctx, "catalog-public")

	// Sign in: the form posts to /api/auth/login and follows its redirect.
	run(t, bctx, "sign-in page",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
	)
	screenshot(t, bctx, "signin")
	run(t, bctx, "sign in",
		chromedp.SendKeys(chromedp.ID("signin-email"), demoLibrarian),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("checkout-code")),
	)
	if url := get(t, bctx, "location", chromedp.Location()); url != s.URL+"/library/"+domain {
		t.Fatalf("after sign-in the browser is at %s, want %s/library/%s", url, s.URL, domain)
	}
	screenshot(t, bctx, "desk")

	// The code field has the focus on arrival: a scanner can start at once.
	if id := focusedID(t, bctx, "focus", "checkout-code"); id != "checkout-code" {
		t.Errorf("focused element on the desk: %q, want checkout-code", id)
	}
	// Keyboard focus is visible: Tab from the code field lands on the
	// student field, which then shows a solid outline at least 2 px wide.
	run(t, bctx, "tab to the student field", chromedp.Focus(chromedp.ID("checkout-code")), chromedp.KeyEvent(kb.Tab))
	outline := get(t, bctx, "focus outline", chromedp.Evaluate[string](`(() => { const e = document.activeElement; const s = getComputedStyle(e); return e.id + " " + s.outlineStyle + " " + s.outlineWidth; })()`))
	if f := strings.Fields(outline); len(f) != 3 || f[0] != "checkout-student" || f[1] == "none" || f[2] == "0px" || f[2] == "1px" {
		t.Errorf("after Tab from the code field: focused element, outline style and width %q; want checkout-student with a visible outline", outline)
	}
	// The due date is prefilled from the school's settings (14 days).
	if due, want := get(t, bctx, "due date", chromedp.Value(chromedp.ID("checkout-due"))), time.Now().UTC().AddDate(0, 0, 14).Format("2006-01-02"); due != want {
		t.Errorf("prefilled due date %q, want %q", due, want)
	}

	// Check out from the keyboard only: the code, Tab, the student's name,
	// Enter.
	row := checkOutByKeyboard(t, bctx, code, "Theo Student")
	if flash := flashText(t, bctx, "check-out message"); !strings.Contains(flash, code) && !strings.Contains(strings.ToLower(flash), "checked out") {
		t.Errorf("message after check-out: %q", flash)
	}
	screenshot(t, bctx, "desk-after-checkout")
	// The API agrees: one loan of this book, of this copy.
	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Path: "/api/library/loans?book_id=" + book.ID, Token: lib}); r.Status != 200 || strings.Count(string(r.Body), `"copy_code":"`+code+`"`) != 1 {
		t.Fatalf("loans of the book after the browser's check-out: %d %s", r.Status, r.Body)
	}
	if got := availability("public catalog during the loan"); got != "None of 1 available" {
		t.Fatalf("catalog during the loan: %q, want None of 1 available", got)
	}

	// Return by scanning the code into the return field.
	run(t, bctx, "back to the desk",
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(row),
	)
	run(t, bctx, "return by keyboard",
		typeAndEnter("return-code", code),
		chromedp.WaitVisible(chromedp.ID("flash")),
		chromedp.WaitNotPresent(row),
	)
	screenshot(t, bctx, "desk-after-return")
	if got := availability("public catalog after the return"); got != "1 of 1 available" {
		t.Fatalf("catalog after the return: %q, want 1 of 1 available", got)
	}

	// The other main pages render for the librarian.
	for _, page := range []string{"books", "students", "settings", "accounts"} {
		run(t, bctx, "page "+page,
			chromedp.Navigate(s.URL+"/library/"+domain+"/"+page),
			chromedp.WaitVisible(chromedp.ID("main")),
		)
		screenshot(t, bctx, "page-"+page)
	}

	// On a phone-sized screen the desk needs no sideways scrolling.
	run(t, bctx, "phone width",
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(chromedp.ID("checkout-code")),
	)
	screenshot(t, bctx, "desk-phone")
	if get(t, bctx, "overflow", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
		t.Errorf("the desk scrolls sideways at 375 px wide")
	}
}

// A form on another origin that posts to the desk with the librarian's
// cookies is refused by the CSRF rule, and nothing changes. 127.0.0.1 on
// another port is the same site, so the browser does send the SameSite=Lax
// access cookie: only the Origin check stands in the way.
func TestBrowserCSRFRefusesForeignForms(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"

	// The demo loan's copy is on loan; an attacker's page tries to return it.
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Path: "/api/library/loans", Token: lib})
	loans, _ := r.json(t)["loans"].([]any)
	if r.Status != 200 || len(loans) == 0 {
		t.Fatalf("demo loans: %d %s", r.Status, r.Body)
	}
	loan := loans[0].(map[string]any)
	loanID, code := loan["id"].(string), loan["copy_code"].(string)

	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>prize</title>
<form id="f" method="post" action="%s/library/%s/return"><input name="code" value="%s"></form>
<script>document.getElementById('f').submit()</script>`, s.URL, domain, code)
	}))
	defer evil.Close()

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "foreign form",
		chromedp.Navigate(evil.URL),
		chromedp.Sleep(time.Second), // the page submits itself
		chromedp.WaitReady(chromedp.CSS("body")),
	)
	url := get(t, bctx, "location", chromedp.Location())
	body := get(t, bctx, "page text", chromedp.Text(chromedp.CSS("body")))
	screenshot(t, bctx, "csrf-refused")
	if !strings.HasPrefix(url, s.URL) || !strings.Contains(body, "This form was not accepted") {
		t.Fatalf("after the foreign form the browser is at %s showing %.300q; want the service's CSRF refusal", url, body)
	}
	// The loan is still active.
	r = s.do(req{Path: "/api/library/loans", Token: lib})
	if !strings.Contains(string(r.Body), `"id":"`+loanID+`"`) || strings.Contains(string(r.Body), `"returned_at":"`) && !strings.Contains(string(r.Body), `"status":"active"`) {
		t.Fatalf("the demo loan changed after a refused cross-origin form: %s", r.Body)
	}
}

// A student locked out by wrong passwords is unlocked at the desk: the
// librarian finds the student on the students page and presses "Unlock
// sign-in" (a same-origin form post, under the CSRF rule), the page says
// so, and the student then signs in with the sign-in form.
func TestBrowserUnlockStudentSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	student, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}

	// Five wrong passwords from one address lock the account there.
	for i := range 5 {
		if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(demoStudent, "wrong-password-1")}); r.Status != 401 {
			t.Fatalf("wrong password %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	signIn := func(step, email, password string, then chromedp.Action[chromedp.Void]) {
		t.Helper()
		run(t, bctx, step,
			chromedp.Navigate(s.URL+"/library"),
			chromedp.WaitVisible(chromedp.ID("signin-email")),
			chromedp.SendKeys(chromedp.ID("signin-email"), email),
			typeAndEnter("signin-password", password),
			then,
		)
	}
	signIn("the locked student signs in", demoStudent, demoPassword, chromedp.WaitVisible(chromedp.ID("signin-error")))
	if body := get(t, bctx, "page text", chromedp.Text(chromedp.CSS("body"))); !strings.Contains(body, "Too many attempts to sign in") {
		t.Fatalf("the locked student's sign-in page says %.500q, want the throttled message", body)
	}

	signIn("the librarian signs in", demoLibrarian, demoPassword, chromedp.WaitVisible(chromedp.ID("checkout-code")))
	row := `tr[data-student-id="` + student.ID + `"]`
	run(t, bctx, "find the student",
		chromedp.Navigate(s.URL+"/library/"+domain+"/students?search=Theo"),
		chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="unlock-button"]`)),
	)
	screenshot(t, bctx, "students-unlock")
	run(t, bctx, "unlock",
		chromedp.Click(chromedp.CSS(row+` [data-testid="unlock-button"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "unlock message"); !strings.Contains(flash, "Sign-in unlocked for Theo Student") {
		t.Fatalf("message after unlocking: %q", flash)
	}
	if id := focusedID(t, bctx, "focus after unlocking", "flash"); id != "flash" {
		t.Errorf("after unlocking the focus is on %q, want the message", id)
	}
	if url := get(t, bctx, "location", chromedp.Location()); url != s.URL+"/library/"+domain+"/students?search=Theo" {
		t.Errorf("after unlocking the browser is at %s, want back on the students page with the search", url)
	}
	screenshot(t, bctx, "students-unlocked")

	// Signed out (a fresh cookie jar), the student signs in with the form.
	run(t, bctx, "sign out", chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tgt, network.ClearBrowserCookies, cdp.Empty{})
		return err
	}))
	signIn("the student signs in after the unlock", demoStudent, demoPassword, chromedp.WaitVisible(chromedp.ID("my-loans-count")))
	if url := get(t, bctx, "location", chromedp.Location()); url != s.URL+"/library/"+domain {
		t.Errorf("after the student's sign-in the browser is at %s, want the school's page", url)
	}
}

// A librarian closes a weekday and sets a term end on the calendar page,
// and the desk then prefills, and lends with, the due date moved to the
// next open day: the weekday of the loan period's last day is closed, so
// the loan is due a day later.
func TestBrowserCalendarMovesDeskDueDate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	book, code := demoBookWithOneCopy(t, s, "Browser Term Planner")

	// The demo school is on UTC and lends for 14 days.
	today := time.Now().UTC()
	byPeriod := today.AddDate(0, 0, 14)
	closed := strings.ToLower(byPeriod.Weekday().String())
	termEnd := today.AddDate(0, 0, 30).Format(time.DateOnly)
	want := today.AddDate(0, 0, 15).Format(time.DateOnly)

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "calendar page",
		chromedp.Click(chromedp.CSS(`nav a[href="/library/`+domain+`/calendar"]`)),
		chromedp.WaitVisible(chromedp.ID("calendar-form")),
	)
	// A closure that is no date is refused, and the focus lands on it.
	run(t, bctx, "a closure that is no date",
		chromedp.SendKeys(chromedp.ID("calendar-closures"), "the week after Easter"),
		chromedp.Click(chromedp.ID("calendar-submit")),
		chromedp.WaitVisible(chromedp.ID("calendar-closures-error")),
	)
	if id := focusedID(t, bctx, "focus after the refused calendar", "calendar-closures"); id != "calendar-closures" {
		t.Errorf("after the refused calendar the focus is on %q, want the refused field calendar-closures", id)
	}
	run(t, bctx, "close a weekday and end the term",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("calendar-closures").value = ""`),
		chromedp.Click(chromedp.ID("calendar-closed-"+closed)),
		chromedp.SendKeys(chromedp.ID("calendar-term-ends"), termEnd),
		chromedp.Click(chromedp.ID("calendar-submit")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "calendar message"); !strings.Contains(flash, "Calendar saved") {
		t.Fatalf("message after saving the calendar: %q", flash)
	}
	// The answer's message has the focus.
	if id := focusedID(t, bctx, "focus after saving the calendar", "flash"); id != "flash" {
		t.Errorf("after saving the calendar the focus is on %q, want the message", id)
	}
	screenshot(t, bctx, "calendar")
	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Path: "/api/library/calendar", Token: lib}); r.Status != 200 ||
		!strings.Contains(string(r.Body), `"closed_weekdays":["`+closed+`"]`) || !strings.Contains(string(r.Body), `"term_ends":["`+termEnd+`"]`) {
		t.Fatalf("the calendar saved at the desk: %d %s", r.Status, r.Body)
	}

	run(t, bctx, "desk", chromedp.Navigate(s.URL+"/library/"+domain), chromedp.WaitVisible(chromedp.ID("checkout-code")))
	if due := get(t, bctx, "prefilled due date", chromedp.Value(chromedp.ID("checkout-due"))); due != want {
		t.Fatalf("prefilled due date %q, want %q (%s is closed)", due, want, closed)
	}
	checkOutByKeyboard(t, bctx, code, "Theo Student")
	screenshot(t, bctx, "desk-moved-due-date")
	if due := strings.TrimSpace(get(t, bctx, "due date on the desk", chromedp.Text(chromedp.CSS(`tr[data-copy-code="`+code+`"] time`)))); due != want {
		t.Fatalf("the desk shows the loan due %q, want %q", due, want)
	}
	if r := s.do(req{Path: "/api/library/loans?book_id=" + book.ID, Token: lib}); r.Status != 200 || !strings.Contains(string(r.Body), `"due_at":"`+want+`"`) {
		t.Fatalf("the loan made at the desk: %d %s, want due %s", r.Status, r.Body, want)
	}
}

func TestBrowserHoldPutAside(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	addStudent := func(name, number string) string {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
			Body: fmt.Sprintf(`{"name":%q,"student_number":%q}`, name, number)})
		if r.Status != 201 {
			t.Fatalf("add %s: %d %s", name, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	bianca := addStudent("Bianca Holder", "HOLD-100")
	addStudent("Carl Other", "HOLD-200")
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Browser Held Tales","author":"Q. Ueue","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	bookID := created["book"].(map[string]any)["id"].(string)
	cp := created["copies"].([]any)[0].(map[string]any)
	copyID, code := cp["id"].(string), cp["code"].(string)
	theo, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, theo.ID)}); r.Status != 201 {
		t.Fatalf("lend to student A: %d %s", r.Status, r.Body)
	}

	run(t, bctx, "sign in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoLibrarian),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("checkout-code")),
	)
	// From the books page to the title's queue, and a hold for Bianca.
	holdsLink := chromedp.CSS(`tr[data-book-id="` + bookID + `"] [data-testid="holds-link"]`)
	run(t, bctx, "open the title's holds",
		chromedp.Navigate(s.URL+"/library/"+domain+"/books?search=Browser+Held"),
		chromedp.WaitVisible(holdsLink),
		chromedp.Click(holdsLink),
		chromedp.WaitVisible(chromedp.ID("hold-student")),
	)
	run(t, bctx, "place a hold for Bianca",
		typeAndEnter("hold-student", "HOLD-100"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="hold-row"][data-status="waiting"]`)),
	)
	if flash := flashText(t, bctx, "hold message"); !strings.Contains(flash, "Bianca Holder") {
		t.Errorf("message after placing the hold: %q", flash)
	}
	screenshot(t, bctx, "holds-queue")

	// Check-in: the banner says loudly whom the copy is for.
	run(t, bctx, "return the copy",
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(chromedp.ID("return-code")),
		typeAndEnter("return-code", code),
		chromedp.WaitVisible(chromedp.ID("put-aside-banner")),
		// The copy's code ends the banner: once it shows, the banner is
		// all there (a container run read the heading alone).
		chromedp.WaitVisible(chromedp.CSS("#put-aside-banner code")),
	)
	banner := get(t, bctx, "banner", chromedp.Text(chromedp.ID("put-aside-banner")))
	if !strings.Contains(banner, "Put aside for Bianca Holder") || !strings.Contains(banner, "HOLD-100") || !strings.Contains(banner, code) {
		t.Fatalf("banner after the return: %q, want it to name Bianca Holder (HOLD-100) and the copy %s", banner, code)
	}
	if size := get(t, bctx, "banner size", chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#put-aside-title")).fontSize`)); size != "32px" {
		t.Errorf("banner heading font size %s, want 32px (2rem): it must be unmissable", size)
	}
	screenshot(t, bctx, "desk-put-aside")

	// Another student may not take the copy; Bianca may.
	checkout := func(step, student string) string {
		t.Helper()
		return checkOutAtDesk(t, bctx, s, domain, step, code, student)
	}
	if msg := checkout("lend to Carl", "HOLD-200"); !strings.Contains(msg, "put aside") {
		t.Fatalf("lending the held copy to Carl: %q, want a refusal naming the hold", msg)
	}
	if r := s.do(req{Path: "/api/library/loans?book_id=" + bookID, Token: lib}); strings.Contains(string(r.Body), code) {
		t.Fatalf("the refused check-out lent the copy: %s", r.Body)
	}
	if msg := checkout("lend to Bianca", "HOLD-100"); !strings.Contains(msg, "Checked out") || !strings.Contains(msg, "Bianca Holder") {
		t.Fatalf("lending the held copy to Bianca: %q", msg)
	}
	if r := s.do(req{Path: "/api/library/loans?book_id=" + bookID, Token: lib}); !strings.Contains(string(r.Body), bianca) {
		t.Fatalf("loans after lending to Bianca: %s", r.Body)
	}
	if holds := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + bookID, Token: lib})); len(holds) != 0 {
		t.Fatalf("open holds after the pickup: %v", holds)
	}
}

func TestBrowserLostCopyChargeBlockAndPayment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	w := &libraryWorld{s: s, libA: s.login(demoLibrarian, demoPassword).Access}
	acct, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	w.studentAID = acct.ID
	w.putCharges(t, w.libA, `,"block_charges_cents":1000`)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Browser Lost Atlas","author":"Chromium Tester","copies":2,"price_cents":1500}`)
	code := copies[0]["code"].(string)
	loanID := w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string)
	desk := s.URL + "/library/" + demoDomain

	run(t, bctx, "sign in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoLibrarian),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("checkout-code")),
	)
	row := `tr[data-loan-id="` + loanID + `"]`
	run(t, bctx, "mark the loan lost from the desk's table",
		chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.Click(chromedp.CSS(row+` [data-testid="mark-lost"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
		chromedp.WaitNotPresent(chromedp.CSS(row)),
	)
	if flash := flashText(t, bctx, "lost message"); !strings.Contains(flash, "marked lost") {
		t.Errorf("message after marking lost: %q", flash)
	}
	charges := w.chargesOf(t, w.libA, w.studentAID)
	if len(charges) != 1 || charges[0]["status"] != "open" || charges[0]["amount_cents"] != float64(1500) {
		t.Fatalf("the student's charges after the desk marked the loan lost: %v", charges)
	}
	screenshot(t, bctx, "desk-after-lost")

	// Picking the student shows the block; no copy has been scanned.
	run(t, bctx, "pick the blocked student",
		chromedp.Navigate(desk),
		chromedp.WaitVisible(chromedp.ID("checkout-student")),
		chromedp.SendKeys(chromedp.ID("checkout-student"), "Theo Student"),
		chromedp.WaitVisible(chromedp.ID("block-banner")),
	)
	banner := get(t, bctx, "block banner", chromedp.Text(chromedp.ID("block-banner")))
	if !strings.Contains(banner, "may not borrow") || !strings.Contains(banner, "USD 15.00 in open charges") {
		t.Errorf("block banner: %q", banner)
	}
	if scanned := get(t, bctx, "code field", chromedp.Value(chromedp.ID("checkout-code"))); scanned != "" {
		t.Fatalf("the banner showed after a scan (%q), not before", scanned)
	}
	screenshot(t, bctx, "desk-block-banner")
	// The server refuses the loan all the same.
	run(t, bctx, "check out to the blocked student",
		typeAndEnter("checkout-code", copies[1]["code"].(string)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "refusal"); !strings.Contains(flash, "may not borrow") {
		t.Errorf("message when checking out to a blocked student: %q", flash)
	}

	// The lost copy turns up at the Return form.
	run(t, bctx, "scan the lost copy at Return",
		chromedp.Navigate(desk),
		chromedp.WaitVisible(chromedp.ID("return-code")),
		typeAndEnter("return-code", code),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "check-in message"); !strings.Contains(flash, "back on the shelf") || !strings.Contains(flash, "reversed") {
		t.Errorf("message after scanning the lost copy: %q", flash)
	}
	if got := w.chargesOf(t, w.libA, w.studentAID)[0]["status"]; got != "reversed" {
		t.Fatalf("charge after the check-in: %v, want reversed", got)
	}
	if st := w.copyStatus(t, code); st["status"] != "available" {
		t.Fatalf("copy after the check-in: %v", st)
	}
	run(t, bctx, "the block is gone",
		chromedp.Navigate(desk),
		chromedp.WaitVisible(chromedp.ID("checkout-student")),
		chromedp.SendKeys(chromedp.ID("checkout-student"), "Theo Student"),
	)
	// The lookup has answered (one student) and its standing too.
	get(t, bctx, "lookup answered", chromedp.Poll[bool](`document.getElementById("student-lookup-status").textContent === "1 student matches."`))
	get(t, bctx, "standing answered", chromedp.Poll[bool](`document.getElementById("block-banner").getAttribute("data-checked") === "`+w.studentAID+`"`))
	if shown := get(t, bctx, "banner after paying", chromedp.Evaluate[bool](`!document.getElementById("block-banner").hidden`)); shown {
		t.Errorf("the block banner shows after the charge was reversed")
	}

	// A damage charge, marked paid on the charges page.
	second := w.lendOK(t, bookID, copies[1], w.studentAID)["id"].(string)
	r := s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: w.libA,
		Body: fmt.Sprintf(`{"loan_id":%q,"action":"return","damaged":{"note":"cover torn","charge_cents":300}}`, second)})
	if r.Status != 200 {
		t.Fatalf("damaged return: %d %s", r.Status, r.Body)
	}
	var damage string
	for _, c := range w.chargesOf(t, w.libA, w.studentAID) {
		if c["kind"] == "damage" {
			damage = c["id"].(string)
		}
	}
	crow := `tr[data-charge-id="` + damage + `"]`
	run(t, bctx, "charges page",
		chromedp.Navigate(desk+"/charges?student_id="+w.studentAID),
		chromedp.WaitVisible(chromedp.CSS(crow)),
	)
	screenshot(t, bctx, "charges")
	run(t, bctx, "mark the charge paid",
		chromedp.Click(chromedp.CSS(crow+` [data-testid="charge-paid"]`)),
		chromedp.WaitVisible(chromedp.CSS(crow+`[data-status="paid"]`)),
	)
	for _, c := range w.chargesOf(t, w.libA, w.studentAID) {
		if c["id"] == damage && c["status"] != "paid" {
			t.Fatalf("damage charge after Paid: %v", c)
		}
	}

	// Not blocked, but a claimed return is worth a word at the desk.
	w.act(w.libA, w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string), "claims_returned")
	run(t, bctx, "pick the student with a claimed return",
		chromedp.Navigate(desk),
		chromedp.WaitVisible(chromedp.ID("checkout-student")),
		chromedp.SendKeys(chromedp.ID("checkout-student"), "Theo Student"),
		chromedp.WaitVisible(chromedp.ID("block-banner")),
	)
	if note := get(t, bctx, "standing note", chromedp.Text(chromedp.ID("block-banner"))); !strings.Contains(note, "1 claimed return") || strings.Contains(note, "may not borrow") {
		t.Errorf("standing note: %q", note)
	}
}
