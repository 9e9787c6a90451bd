package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
)

// The offline desk in Chromium: the service stops in the middle of a
// session, the desk goes on scanning (the service worker keeps the desk
// page and the scans), the service comes back, the page uploads the scans
// by itself, and the loans are exactly what the scans made them; the
// scans the rules refused wait on the Offline scans page to be settled.

// deskScan is one scan typed at the desk's forms: the copy's code, and
// the student's number for a check-out.
type deskScan struct {
	kind, code, student string
}

// keptScan is a scan as the service worker keeps it in IndexedDB.
type keptScan struct {
	Seq       int    `json:"seq,omitempty"`
	ID        string `json:"id"`
	Desk      string `json:"desk"`
	Kind      string `json:"kind"`
	Code      string `json:"code"`
	Student   string `json:"student"`
	ScannedAt string `json:"scanned_at"`
}

// openScansJS opens the desk's IndexedDB as app.js does (a page that opens
// it first creates the store) and hands it to the function body that
// follows as db, inside a promise with resolve and reject.
const openScansJS = `new Promise((resolve, reject) => {
  const open = indexedDB.open("library-offline", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("scans", { keyPath: "seq", autoIncrement: true });
  open.onerror = () => reject(open.error);
  open.onsuccess = () => { const db = open.result; %s };
})`

// keptScans reads the scans the browser keeps, oldest first.
func keptScans(t *testing.T, bctx context.Context, step string) []keptScan {
	t.Helper()
	js := fmt.Sprintf(openScansJS, `const all = db.transaction("scans").objectStore("scans").getAll();
    all.onsuccess = () => { db.close(); resolve(all.result); };
    all.onerror = () => { db.close(); reject(all.error); };`)
	return get(t, bctx, step, chromedp.Evaluate[[]keptScan](js, chromedp.EvalAwaitPromise))
}

// keepAgain puts scans back in the browser's IndexedDB, as a desk whose
// upload's answer was lost still holds them.
func keepAgain(t *testing.T, bctx context.Context, scans []keptScan) {
	t.Helper()
	b, err := json.Marshal(scans)
	if err != nil {
		t.Fatal(err)
	}
	js := fmt.Sprintf(openScansJS, `const tx = db.transaction("scans", "readwrite");
    for (const s of `+string(b)+`) { delete s.seq; tx.objectStore("scans").add(s); }
    tx.oncomplete = () => { db.close(); resolve(true); };
    tx.onerror = () => { db.close(); reject(tx.error); };`)
	get(t, bctx, "keep the scans again", chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
}

// waitTrue evaluates expr in the page until it is true or within has
// passed, and returns whether it became true. Each try is a fresh
// evaluation, so a navigation in between does no harm.
func waitTrue(bctx context.Context, within time.Duration, expr string, opts ...chromedp.EvaluateOption) bool {
	deadline := time.Now().Add(within)
	for {
		c, cancel := context.WithTimeout(bctx, 5*time.Second)
		ok, err := chromedp.Run(c, chromedp.Evaluate[bool](expr, opts...))
		cancel()
		if err == nil && ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const (
	waitingCodesJS  = `Array.from(document.querySelectorAll('[data-testid="offline-waiting-row"]'), r => r.getAttribute("data-code"))`
	offlineStatusJS = `(() => { const e = document.getElementById("offline-status"); return e ? e.textContent : ""; })()`
)

// activeLoanHolders lists the school's active loans through the API: the
// student each copy (by code) is lent to.
func activeLoanHolders(t *testing.T, s *service, tok string) map[string]string {
	t.Helper()
	holders := map[string]string{}
	for page := 1; ; page++ {
		r := s.do(req{Path: fmt.Sprintf("/api/library/loans?limit=100&page=%d", page), Token: tok})
		if r.Status != 200 {
			t.Fatalf("list loans: %d %s", r.Status, r.Body)
		}
		var out struct {
			Loans []struct {
				CopyCode  string `json:"copy_code"`
				StudentID string `json:"student_id"`
				Status    string `json:"status"`
			} `json:"loans"`
			Pagination struct {
				TotalPages int `json:"total_pages"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatal(err)
		}
		for _, l := range out.Loans {
			if l.Status != "active" && l.Status != "overdue" {
				t.Fatalf("the loans list holds a loan with status %q", l.Status)
			}
			if _, dup := holders[l.CopyCode]; dup {
				t.Fatalf("copy %s is on loan twice", l.CopyCode)
			}
			holders[l.CopyCode] = l.StudentID
		}
		if page >= out.Pagination.TotalPages {
			return holders
		}
	}
}

// diffHolders describes how got differs from want, "" when they agree.
func diffHolders(got, want map[string]string) string {
	var out []string
	for code, w := range want {
		if g, ok := got[code]; !ok {
			out = append(out, fmt.Sprintf("%s: on the shelf, want lent to %s", code, w))
		} else if g != w {
			out = append(out, fmt.Sprintf("%s: lent to %s, want %s", code, g, w))
		}
	}
	for code, g := range got {
		if _, ok := want[code]; !ok {
			out = append(out, fmt.Sprintf("%s: lent to %s, want on the shelf", code, g))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// A librarian's desk loses its server in the middle of a session: the desk
// page still opens (without the answer to the last scan made online) and
// its forms keep 20 check-outs and returns on the computer, the focus
// following the scans as online; when the server answers again the page
// uploads them by itself and says what came of them. Afterwards every copy
// is exactly where the scans put it, a returned copy someone holds is put
// aside, the three scans the rules refused (a copy lent to someone else, a
// blocked student, an unknown code) wait on the Offline scans page, an
// upload of scans the server has seen changes nothing, and the librarian
// settles the conflicts there.
func TestBrowserOfflineDesk(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	desk := s.URL + "/library/" + demoDomain
	w := &libraryWorld{s: s, libA: s.login(demoLibrarian, demoPassword).Access}

	// Online: students, and a title with 20 copies: 0-9 on the shelf,
	// 10-16 lent to Ada and Bo, 17 lent to Dan, 18 lost by Cy, who owes its
	// price and is blocked, and 19 on the shelf.
	bookID, copies := w.addBook(t, w.libA, `{"title":"Offline Desk Atlas","author":"Chromium Tester","copies":20,"price_cents":1200}`)
	code := func(i int) string { return copies[i]["code"].(string) }
	ada := w.gradedStudent(t, "Ada Offline", "OFL-1", "5")
	bo := w.gradedStudent(t, "Bo Offline", "OFL-2", "5")
	cy := w.gradedStudent(t, "Cy Blocked", "OFL-3", "5")
	dan := w.gradedStudent(t, "Dan Holder", "OFL-4", "5")
	for i := 10; i <= 16; i++ {
		w.lendOK(t, bookID, copies[i], []string{ada, bo}[i%2])
	}
	w.lendOK(t, bookID, copies[17], dan)
	if r := w.act(w.libA, w.lendOK(t, bookID, copies[18], cy)["id"].(string), "lost"); r.Status != 200 {
		t.Fatalf("mark Cy's loan lost: %d %s", r.Status, r.Body)
	}
	w.putCharges(t, w.libA, `,"block_charges_cents":1000`)
	// Another title's only copy is lent to Bo, and Eve waits for it.
	heldBook, heldCopies := w.addBook(t, w.libA, `{"title":"Offline Held Tales","author":"Chromium Tester","copies":1}`)
	heldCode := heldCopies[0]["code"].(string)
	w.lendOK(t, heldBook, heldCopies[0], bo)
	eve := w.gradedStudent(t, "Eve Waiting", "OFL-5", "5")
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, heldBook, eve)}); r.Status != 201 {
		t.Fatalf("Eve's hold: %d %s", r.Status, r.Body)
	}
	// A third title's only copy is lent to Dan, and Ada waits for it: the
	// desk's last answer before the outage is its return, put aside.
	lastBook, lastCopies := w.addBook(t, w.libA, `{"title":"Online Held Tales","author":"Chromium Tester","copies":1}`)
	w.lendOK(t, lastBook, lastCopies[0], dan)
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, lastBook, ada)}); r.Status != 201 {
		t.Fatalf("Ada's hold: %d %s", r.Status, r.Body)
	}

	// The desk, opened while the server answers, puts itself in the
	// service worker's hands; opened once more under it, the page and its
	// assets are kept.
	signInDemoLibrarian(t, bctx, s)
	if !waitTrue(bctx, 30*time.Second, `navigator.serviceWorker.controller !== null`) {
		t.Fatal("the desk's service worker never took control of the desk")
	}
	run(t, bctx, "open the desk under the service worker", chromedp.Navigate(desk), chromedp.WaitVisible(chromedp.ID("checkout-code")))
	keptAll := `Promise.all([location.origin + location.pathname, document.querySelector("script[src]").src, document.querySelector("link[rel=stylesheet]").href]
  .map(u => caches.match(u))).then(hits => hits.every(Boolean))`
	if !waitTrue(bctx, 30*time.Second, keptAll, chromedp.EvalAwaitPromise) {
		t.Fatal("the service worker never kept the desk page, app.js and app.css")
	}
	// The page for a desk not kept here is kept too, as the server says it
	// in the desk's language.
	keptFallback := `caches.match("/library/offline-fallback").then(r => r ? r.headers.get("Content-Language") : "").then(l => l === "en")`
	if !waitTrue(bctx, 30*time.Second, keptFallback, chromedp.EvalAwaitPromise) {
		t.Fatal("the service worker never kept the English page for a desk it has not kept")
	}
	if get(t, bctx, "offline section", chromedp.Evaluate[bool](`document.getElementById("offline-desk").hidden`)) != true {
		t.Errorf("the offline desk shows while the server answers and nothing waits: %q", get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)))
	}
	// An online return: the desk's answer, with its message and the
	// put-aside banner, is the page the service worker keeps.
	run(t, bctx, "return a held copy online",
		loads(typeAndEnter("return-code", lastCopies[0]["code"].(string))),
		chromedp.WaitVisible(chromedp.ID("put-aside-banner")),
	)
	keptBanner := `caches.match(location.origin + location.pathname).then(r => r ? r.text() : "").then(t => t.includes('id="put-aside-banner"'))`
	if !waitTrue(bctx, 30*time.Second, keptBanner, chromedp.EvalAwaitPromise) {
		t.Fatal("the service worker never kept the desk's answer to the return")
	}
	before := activeLoanHolders(t, s, w.libA)

	// The server stops for real: its port refuses connections.
	s.halt()
	if resp, err := http.Get(s.URL + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatalf("the stopped service still answers: %d", resp.StatusCode)
	}
	// A desk never opened here shows the kept page, the server's own.
	run(t, bctx, "open a desk not kept while the server is down", chromedp.Navigate(s.URL+"/library/elsewhere.example.org"),
		chromedp.WaitVisible(chromedp.ID("offline-fallback")))
	if got := get(t, bctx, "the kept page", chromedp.Evaluate[string](`document.documentElement.lang + " " + document.querySelector("h1").textContent`)); got != "en The server cannot be reached" {
		t.Errorf("a desk not kept, offline, shows %q, want the kept page in English", got)
	}
	run(t, bctx, "open the desk while the server is down", chromedp.Navigate(desk), chromedp.WaitVisible(chromedp.ID("checkout-code")))
	if !waitTrue(bctx, 15*time.Second, offlineStatusJS+`.includes("The server cannot be reached")`) {
		t.Fatalf("the desk opened offline says %q, want that the server cannot be reached", get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)))
	}
	// The kept page's answer to the last online scan is old news: it must
	// not send the librarian to put a copy aside again.
	stale := `["flash", "put-aside-banner", "receipt-links", "finished-form"].filter(id => { const e = document.getElementById(id); return e && e.checkVisibility(); })`
	if shown := get(t, bctx, "old answers", chromedp.Evaluate[[]string](stale)); len(shown) != 0 {
		t.Errorf("the desk kept from before the outage shows the answer to the last online scan: %v", shown)
	}

	// 20 scans at the desk's forms, as a scanner types them.
	began := time.Now()
	scans := []deskScan{
		{"checkout", code(0), "OFL-1"},
		{"return", code(10), ""},
		{"checkout", code(1), "OFL-2"},
		{"return", code(11), ""},
		{"checkout", code(2), "OFL-1"},
		{"checkout", code(9), "OFL-2"}, // and back before the server answers
		{"return", code(12), ""},
		{"checkout", code(3), "OFL-2"},
		{"checkout", code(17), "OFL-1"}, // conflict: lent to Dan
		{"return", code(13), ""},
		{"checkout", code(4), "OFL-1"},
		{"checkout", code(19), "OFL-3"}, // conflict: Cy is blocked
		{"return", code(14), ""},
		{"checkout", code(5), "OFL-2"},
		{"return", code(9), ""},
		{"checkout", code(6), "ofl-1"},           // numbers match whatever the case
		{"checkout", "NO-SUCH-COPY-77", "OFL-2"}, // conflict: no such copy
		{"return", heldCode, ""},                 // Eve's hold: to put aside
		{"checkout", code(7), "OFL-1"},
		{"checkout", code(8), "OFL-2"},
	}
	for i, sc := range scans {
		step := fmt.Sprintf("offline scan %d (%s %s)", i+1, sc.kind, sc.code)
		if sc.kind == "checkout" {
			run(t, bctx, step,
				chromedp.WaitVisible(chromedp.ID("checkout-code")),
				chromedp.SendKeys(chromedp.ID("checkout-code"), sc.code),
				loads(typeAndEnter("checkout-student", sc.student)),
			)
		} else {
			run(t, bctx, step,
				chromedp.WaitVisible(chromedp.ID("return-code")),
				loads(typeAndEnter("return-code", sc.code)),
			)
		}
		// The answer is the kept desk page, listing what waits.
		want := fmt.Sprintf(`(() => { const c = %s; return c.length === %d && c[%d] === %q; })()`, waitingCodesJS, i+1, i, sc.code)
		if !waitTrue(bctx, 15*time.Second, want) {
			t.Fatalf("%s: the desk lists %v waiting, want %d ending with %s (status %q)", step,
				get(t, bctx, "waiting", chromedp.Evaluate[[]string](waitingCodesJS)), i+1, sc.code, get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)))
		}
		// As online, the next scan goes where this one went.
		if id := focusedID(t, bctx, step+": focus", sc.kind+"-code"); id != sc.kind+"-code" {
			t.Errorf("%s: the focus is on %q, want %s-code", step, id, sc.kind)
		}
	}
	if url := get(t, bctx, "location", chromedp.Location()); url != desk {
		t.Errorf("after the offline scans the browser is at %s, want the desk %s", url, desk)
	}
	// Then the page tries to upload them, and says what it found.
	if !waitTrue(bctx, 15*time.Second, offlineStatusJS+`.startsWith("The server cannot be reached. Scans are kept on this computer (20 waiting)")`) {
		t.Errorf("offline status after 20 scans: %q", get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)))
	}
	run(t, bctx, "the 20 scans wait", chromedp.WaitVisible(chromedp.CSS(`#offline-waiting-rows tr:nth-child(20)`)))
	screenshot(t, bctx, "desk-offline-waiting")
	checkPageAccessible(t, bctx, "the offline desk with scans waiting")

	// The browser keeps each scan as typed, with an id of its own.
	stored := keptScans(t, bctx, "the kept scans")
	if len(stored) != len(scans) {
		t.Fatalf("the browser keeps %d scans, want %d: %+v", len(stored), len(scans), stored)
	}
	ids := map[string]bool{}
	for i, k := range stored {
		sc := scans[i]
		if k.Kind != sc.kind || k.Code != sc.code || k.Student != sc.student || k.Desk != "/library/"+demoDomain {
			t.Errorf("kept scan %d: %+v, want %s of %s by %q at /library/%s", i+1, k, sc.kind, sc.code, sc.student, demoDomain)
		}
		if _, err := uuid.Parse(k.ID); err != nil || ids[k.ID] {
			t.Errorf("kept scan %d has id %q: want a UUID of its own", i+1, k.ID)
		}
		ids[k.ID] = true
		// The browser's clock is this machine's (to the millisecond).
		if at, err := time.Parse(time.RFC3339, k.ScannedAt); err != nil || at.Before(began.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("kept scan %d was scanned at %q, want during the scans (from %s)", i+1, k.ScannedAt, began.UTC().Format(time.RFC3339))
		}
	}

	// The server comes back on the same address and store; the page, left
	// as it is, uploads the scans by itself.
	s.resume()
	uploaded := func(prefix string) string {
		return offlineStatusJS + `.startsWith("` + prefix + `") && ` + waitingCodesJS + `.length === 0`
	}
	if !waitTrue(bctx, 90*time.Second, uploaded("Uploaded")) {
		t.Fatalf("90 s after the server came back the desk says %q and lists %v waiting; want the scans uploaded",
			get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)), get(t, bctx, "waiting", chromedp.Evaluate[[]string](waitingCodesJS)))
	}
	status := get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS))
	if want := "Uploaded 20 offline scans: 17 done, 3 to settle on the Offline scans page. Reload the desk to see the loans as they are now."; status != want {
		t.Errorf("status after the upload:\n got %q\nwant %q", status, want)
	}
	if waiting := get(t, bctx, "waiting", chromedp.Evaluate[[]string](waitingCodesJS)); len(waiting) != 0 {
		t.Errorf("after the upload the desk lists %v waiting", waiting)
	}
	if left := keptScans(t, bctx, "the kept scans after the upload"); len(left) != 0 {
		t.Errorf("after the upload the browser still keeps %d scans: %+v", len(left), left)
	}
	// What the upload did stays on the screen, with the way to the
	// conflicts.
	run(t, bctx, "the upload's outcome shows",
		chromedp.WaitVisible(chromedp.CSS(`#offline-conflicts-link a`)),
		chromedp.WaitVisible(chromedp.CSS(`#offline-results li`)),
	)
	for _, id := range []string{"offline-status", "offline-conflicts-link"} {
		if !get(t, bctx, id+" shown", chromedp.Evaluate[bool](`document.getElementById("`+id+`").checkVisibility()`)) {
			t.Errorf("after an upload with conflicts #%s does not show", id)
		}
	}
	screenshot(t, bctx, "desk-offline-uploaded")
	checkPageAccessible(t, bctx, "the desk after the upload")

	// Exactly what the scans made, through the API (the token from before
	// the outage still works: the signing keys are in the store).
	want := map[string]string{}
	for c, st := range before {
		want[c] = st
	}
	for i := 10; i <= 14; i++ {
		delete(want, code(i))
	}
	delete(want, heldCode)
	for i, st := range []string{ada, bo, ada, bo, ada, bo, ada, ada, bo} {
		want[code(i)] = st
	}
	if d := diffHolders(activeLoanHolders(t, s, w.libA), want); d != "" {
		t.Errorf("the loans after the upload differ from what the scans made:\n%s", d)
	}
	for _, c := range []string{code(9), code(10), code(11), code(12), code(13), code(14), code(19), heldCode} {
		if st := w.copyStatus(t, c); st["status"] != "available" {
			t.Errorf("copy %s after the upload: %v, want on the shelf", c, st["status"])
		}
	}
	// The copy Eve waits for is put aside for her, and the desk says so.
	if holds := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + heldBook, Token: w.libA})); len(holds) != 1 ||
		holds[0]["student_id"] != eve || holds[0]["status"] != "ready" || holds[0]["copy_code"] != heldCode {
		t.Errorf("Eve's hold after the upload: %v, want ready with %s", holds, heldCode)
	}
	if got, want := get(t, bctx, "put aside", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#offline-results li"), li => li.textContent)`)),
		[]string{heldCode + ": put it aside for Eve Waiting, who holds this book."}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the desk's word on the returns:\n got %q\nwant %q", got, want)
	}
	byID := map[string]int{}
	for i, k := range stored {
		byID[k.ID] = i
	}
	wantConflicts := map[int]string{8: "copy_unavailable", 11: "borrowing_blocked", 16: "copy_not_found"}
	conflicts := w.offlineConflicts(t, w.libA)
	if len(conflicts) != len(wantConflicts) {
		t.Errorf("%d conflicts listed, want %d: %+v", len(conflicts), len(wantConflicts), conflicts)
	}
	for i, reason := range wantConflicts {
		got, ok := conflicts[stored[i].ID]
		if !ok || got.Reason != reason || got.Code != scans[i].code || got.Student != scans[i].student || got.Message == "" || got.Status != "conflict" {
			t.Errorf("scan %d (%s %s) in the conflicts: %+v (listed: %v), want reason %s", i+1, scans[i].kind, scans[i].code, got, ok, reason)
		}
	}
	for id := range conflicts {
		if _, ours := byID[id]; !ours {
			t.Errorf("conflict %s is not one of the desk's scans", id)
		}
	}

	// Scans the server has seen, uploaded again (a desk whose upload's
	// answer was lost), change nothing even where applying them again
	// would: Bo's check-out of copy 1 is returned meanwhile, and copy 10,
	// returned by the other scan, is lent to Dan again.
	loan1 := w.s.do(req{Path: "/api/library/copies?code=" + code(1), Token: w.libA}).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(w.libA, loan1, "return"); r.Status != 200 {
		t.Fatalf("return copy 1 online: %d %s", r.Status, r.Body)
	}
	w.lendOK(t, bookID, copies[10], dan)
	delete(want, code(1))
	want[code(10)] = dan
	keepAgain(t, bctx, []keptScan{stored[2], stored[1]})
	if !waitTrue(bctx, 60*time.Second, uploaded("Uploaded 2 ")) {
		t.Fatalf("the scans kept again were not uploaded: the desk says %q", get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)))
	}
	if status := get(t, bctx, "status", chromedp.Evaluate[string](offlineStatusJS)); !strings.HasPrefix(status, "Uploaded 2 offline scans: 2 done.") {
		t.Errorf("status after uploading the scans again: %q", status)
	}
	if !get(t, bctx, "status shown", chromedp.Evaluate[bool](`document.getElementById("offline-status").checkVisibility()`)) {
		t.Error("the status of the second upload does not show")
	}
	if left := keptScans(t, bctx, "the kept scans after the second upload"); len(left) != 0 {
		t.Errorf("after the second upload the browser still keeps %d scans", len(left))
	}
	if d := diffHolders(activeLoanHolders(t, s, w.libA), want); d != "" {
		t.Errorf("uploading seen scans again changed the loans:\n%s", d)
	}
	if again := w.offlineConflicts(t, w.libA); len(again) != len(conflicts) {
		t.Errorf("uploading seen scans again left %d conflicts, want %d", len(again), len(conflicts))
	}

	// The desk, reloaded, points to the conflicts; the Offline scans page
	// lists them with their reasons.
	run(t, bctx, "reload the desk", chromedp.Navigate(desk), chromedp.WaitVisible(chromedp.ID("offline-conflicts-note")))
	if note := get(t, bctx, "conflicts note", chromedp.Text(chromedp.ID("offline-conflicts-note"))); !strings.Contains(note, "3 offline scans wait for you to settle") {
		t.Errorf("the desk's note on the conflicts: %q", note)
	}
	if n := get(t, bctx, "loans on the desk", chromedp.Text(chromedp.ID("count-active"))); n != fmt.Sprint(len(want)) {
		t.Errorf("the desk counts %s loans, want %d", n, len(want))
	}
	row := func(c string) string { return `[data-testid="offline-row"][data-code="` + c + `"]` }
	run(t, bctx, "open the Offline scans page",
		loads(chromedp.Click(chromedp.CSS(`#offline-conflicts-note a`))),
		chromedp.WaitVisible(chromedp.ID("offline-table")),
	)
	listed := get(t, bctx, "conflict rows", chromedp.Evaluate[map[string]string](
		`Object.fromEntries(Array.from(document.querySelectorAll('[data-testid="offline-row"]'), r => [r.getAttribute("data-code"), r.getAttribute("data-reason")]))`))
	wantListed := map[string]string{code(17): "copy_unavailable", code(19): "borrowing_blocked", "NO-SUCH-COPY-77": "copy_not_found"}
	if fmt.Sprint(listed) != fmt.Sprint(wantListed) {
		t.Errorf("the Offline scans page lists %v, want %v", listed, wantListed)
	}
	screenshot(t, bctx, "offline-scans")
	checkPageAccessible(t, bctx, "the Offline scans page")

	// Dan brings copy 17 back; Try again lends it to Ada as scanned.
	loan17 := w.s.do(req{Path: "/api/library/copies?code=" + code(17), Token: w.libA}).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(w.libA, loan17, "return"); r.Status != 200 {
		t.Fatalf("return copy 17: %d %s", r.Status, r.Body)
	}
	run(t, bctx, "try the check-out of copy 17 again",
		loads(chromedp.Click(chromedp.CSS(row(code(17))+` [data-testid="offline-retry"]`))),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "retry"); !strings.Contains(flash, "Done") || !strings.Contains(flash, code(17)) || !strings.Contains(flash, "Ada Offline") {
		t.Errorf("message after Try again: %q", flash)
	}
	want[code(17)] = ada
	// The unknown code: dismissed, it leaves the list.
	run(t, bctx, "dismiss the unknown code",
		loads(chromedp.Click(chromedp.CSS(row("NO-SUCH-COPY-77")+` [data-testid="offline-dismiss"]`))),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "dismiss"); !strings.Contains(flash, "Dismissed") || !strings.Contains(flash, "NO-SUCH-COPY-77") {
		t.Errorf("message after Dismiss: %q", flash)
	}
	listed = get(t, bctx, "conflict rows after settling", chromedp.Evaluate[map[string]string](
		`Object.fromEntries(Array.from(document.querySelectorAll('[data-testid="offline-row"]'), r => [r.getAttribute("data-code"), r.getAttribute("data-reason")]))`))
	if fmt.Sprint(listed) != fmt.Sprint(map[string]string{code(19): "borrowing_blocked"}) {
		t.Errorf("after a retry and a dismissal the page lists %v, want only Cy's blocked check-out", listed)
	}
	if left := w.offlineConflicts(t, w.libA); len(left) != 1 || left[stored[11].ID].Reason != "borrowing_blocked" {
		t.Errorf("conflicts after settling: %+v, want only Cy's blocked check-out", left)
	}
	if d := diffHolders(activeLoanHolders(t, s, w.libA), want); d != "" {
		t.Errorf("the loans after settling:\n%s", d)
	}
}
