package test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The accessibility check: axe-core, at the version test/axe/package.json
// pins, runs in the browser tests' Chromium on every page state they
// reach. run and runWithin call axeCheck when their step is done, so a
// state is checked as the test sees it: a page just loaded, a form sent
// back with its errors, the desk after a check-out, a banner shown by the
// page's script. A state is its page (the path, the names of the query's
// parameters) and what the page shows (each element rendered, by its tag,
// id, role, test id and state attributes, numbers and ids left out), so
// that the same state reached again, by this test or another, is checked
// once per test process: the desk with one loan and with two is one state,
// the desk with a banner another.
//
// test/axe.sh installs axe-core into a cache (make test and .ci/run call
// it). Without it the check is skipped with a note, or fails the test with
// LIBRARY_TEST_BROWSER=required (CI). It runs in the run on the embedded
// store in process, which reaches every page state; the container and
// MongoDB runs show the same pages (LIBRARY_TEST_AXE_RUNS=always checks
// them too).

// axeTags are the rules axe runs: WCAG 2.0, 2.1 and 2.2, levels A and AA
// (axe tags the new AA rule of 2.2 wcag22aa; 2.2 has no new A rule in it).
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"}

// axe is the test process's copy of axe-core and the states checked.
var axe struct {
	once    sync.Once
	script  string // axe.min.js
	version string // the pinned version
	missing string // why there is no script
	mu      sync.Mutex
	checked map[string]bool               // state keys
	states  int                           // checked
	changed int                           // left: the page kept changing while it was checked
	tabs    map[target.ID]context.Context // the tabs that serve axeScriptPath
}

// loadAxe reads axe.min.js once: from LIBRARY_TEST_AXE, or from test/axe.sh's
// cache.
func loadAxe() {
	axe.checked, axe.tabs = map[string]bool{}, map[target.ID]context.Context{}
	version, err := axePinned()
	if err != nil {
		axe.missing = err.Error()
		return
	}
	axe.version = version
	path := os.Getenv("LIBRARY_TEST_AXE")
	if path == "" {
		path = filepath.Join(axeCache(), "axe-core-"+version, "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		axe.missing = fmt.Sprintf("axe-core %s is not installed (%v): run test/axe.sh, or set LIBRARY_TEST_AXE to an axe.min.js", version, err)
		return
	}
	axe.script = string(b)
}

// axePinned is the axe-core version test/axe/package.json names.
func axePinned() (string, error) {
	b, err := os.ReadFile(filepath.Join("axe", "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("axe/package.json: %w", err)
	}
	v := pkg.Dependencies["axe-core"]
	if v == "" || strings.ContainsAny(v, "^~<>=* ") {
		return "", fmt.Errorf("axe/package.json pins no exact axe-core version (%q)", v)
	}
	return v, nil
}

// axeCache is test/axe.sh's cache directory.
func axeCache() string {
	if d := os.Getenv("LIBRARY_AXE_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "libraryd")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "libraryd")
}

// axeRuns reports whether this run checks the pages (see above).
func axeRuns() bool {
	return os.Getenv("LIBRARY_TEST_AXE_RUNS") == "always" || (testTarget() == "process" && testStore() == "sqlite")
}

// axeStateJS names the state of the page shown, or answers "" for a page
// that is not one of the web app's (a foreign page, a PDF, JSON): every
// page of the app has body[data-page].
const axeStateJS = `(() => {
  if (document.readyState !== "complete" || !document.body || !document.body.hasAttribute("data-page")) return "";
  const norm = s => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "*").replace(/[0-9]+/g, "#");
  const attrs = ["role", "data-testid", "data-state", "data-status", "data-kind", "type", "aria-invalid", "aria-expanded", "open"];
  const seen = new Set();
  for (const e of document.body.querySelectorAll("*")) {
    if (!e.getClientRects().length) continue;
    let k = e.localName;
    if (e.id) k += "#" + norm(e.id);
    for (const a of attrs) { const v = e.getAttribute(a); if (v !== null) k += "[" + a + "=" + norm(v) + "]"; }
    seen.add(k);
  }
  const params = [...new URLSearchParams(location.search).keys()].sort().join("&");
  // The same page in another language is another state: its texts, and
  // so their names and contrast, are others.
  return document.documentElement.lang + " " + norm(location.pathname) + "?" + params + "\n" + [...seen].sort().join("\n");
})()`

// axeViolation is what the check reports of a rule broken.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	HelpURL string   `json:"helpUrl"`
	Count   int      `json:"count"`
	Targets []string `json:"targets"`
	HTML    []string `json:"html"`
}

// axeRunJS runs axe on the document and answers its violations, each with
// its first three elements.
func axeRunJS() string {
	tags, _ := json.Marshal(axeTags)
	return `axe.run(document, {runOnly: {type: "tag", values: ` + string(tags) + `}, resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl, count: v.nodes.length,
  targets: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
  html: v.nodes.slice(0, 3).map(n => n.html.slice(0, 200)),
})))`
}

// axeCheck runs axe on the page the tab shows, once per state, and fails
// the test (without stopping it) on each violation.
func axeCheck(t *testing.T, ctx context.Context, step string) {
	t.Helper()
	if !axeRuns() {
		return
	}
	axe.once.Do(loadAxe)
	if axe.script == "" {
		if os.Getenv("LIBRARY_TEST_BROWSER") == "required" {
			t.Fatalf("accessibility check: %s; LIBRARY_TEST_BROWSER=required", axe.missing)
		}
		axe.mu.Lock()
		if !axe.checked["missing"] {
			axe.checked["missing"] = true
			t.Logf("accessibility check skipped: %s", axe.missing)
		}
		axe.mu.Unlock()
		return
	}
	if axeCheckState(t, ctx, step) {
		url, _ := chromedp.Run(ctx, chromedp.Location())
		lang, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
		axeCheckTwins(t, ctx, step, url, lang)
	}
}

// axeCheckState runs axe on the state the tab of ctx shows unless it was
// checked before, fails the test (without stopping it) on each violation,
// and answers whether it checked a new state.
func axeCheckState(t *testing.T, ctx context.Context, step string) bool {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// A page still at work when the step ends (a script drawing a list
	// again) may change under the check: its state is left, and the state
	// it settles in is checked instead.
	for attempt := 1; ; attempt++ {
		key := axeState(c)
		if key == "" {
			return false
		}
		axe.mu.Lock()
		seen := axe.checked[key]
		axe.checked[key] = true
		axe.mu.Unlock()
		if seen {
			return false
		}
		url, _ := chromedp.Run(c, chromedp.Location())
		axeServe(ctx)
		violations, err := axeOn(c)
		if c.Err() != nil {
			t.Errorf("accessibility check after %q at %s: %v", step, url, c.Err())
			return false
		}
		if axeState(c) != key {
			axe.mu.Lock()
			delete(axe.checked, key)
			if attempt == 3 {
				axe.changed++
			}
			axe.mu.Unlock()
			if attempt == 3 {
				t.Logf("accessibility check after %q at %s left: the page kept changing", step, url)
				return false
			}
			continue
		}
		if err != nil {
			t.Errorf("accessibility check after %q at %s: %v", step, url, err)
			return false
		}
		axe.mu.Lock()
		axe.states++
		axe.mu.Unlock()
		for _, v := range violations {
			t.Errorf("accessibility (axe-core %s) after %q at %s: %s (%s): %s; %d %s, first %s; %s\n%s",
				axe.version, step, url, v.ID, v.Impact, v.Help, v.Count, plural(v.Count, "element", "elements"),
				strings.Join(v.Targets, ", "), v.HelpURL, strings.Join(v.HTML, "\n"))
		}
		return true
	}
}

// axeState is the key of the state of the page the tab shows, or "" for
// none of the web app's (or a page going away).
func axeState(ctx context.Context) string {
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](axeStateJS))
	if err != nil || state == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(state))
	return string(sum[:])
}

// axeOn loads axe into the page when it is not there and runs it.
func axeOn(ctx context.Context) ([]axeViolation, error) {
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(axeLoadJS, axeScriptPath, axe.version), chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, err
	}
	if !loaded {
		// Not served (a page of another origin, or a service worker in
		// the way): evaluate the source itself.
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axe.script)); err != nil {
			return nil, fmt.Errorf("inject axe-core: %w", err)
		}
	}
	return chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRunJS(), chromedp.EvalAwaitPromise))
}

// axeScriptPath is where the check's script element asks for axe-core;
// the tab's Fetch domain answers (the service has no such route). Loaded
// as a script of the page's origin, as the page's own scripts are (its
// CSP allows no other), axe-core is compiled once and then taken from
// V8's cache by the tab's next pages: 0.03 s to 0.25 s a page, against
// 0.35 s to 0.75 s for evaluating its 550 kB of source each time (2 cores,
// busy).
const axeScriptPath = "/__axe-core__/axe.min.js"

// axeLoadJS loads axe from axeScriptPath (%s) unless the page has it at
// the version (%s), and answers whether it has it then.
const axeLoadJS = `((path, version) => new Promise(answer => {
  if (typeof axe === "object" && axe.version === version) { answer(true); return; }
  const s = document.createElement("script");
  let done = false;
  const end = () => { if (done) return; done = true; s.remove(); answer(typeof axe === "object" && axe.version === version); };
  s.onload = end; s.onerror = end; setTimeout(end, 10000);
  s.src = path + "?v=" + version;
  const parent = document.head || document.documentElement;
  if (parent) parent.appendChild(s); else end();
}))(%q, %q)`

// axeServe makes the tab of ctx answer axeScriptPath with axe.min.js, once
// per tab (ctx is the tab's context, which outlives the step's).
func axeServe(ctx context.Context) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil {
		return
	}
	axe.mu.Lock()
	if prev := axe.tabs[c.Target.TargetID]; prev != nil && prev.Err() == nil {
		axe.mu.Unlock()
		return
	}
	axe.tabs[c.Target.TargetID] = ctx
	axe.mu.Unlock()
	answer := func(id fetch.RequestID) {
		_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: id, ResponseCode: 200,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/javascript; charset=utf-8"}, {Name: "Cache-Control", Value: "private, max-age=86400"}},
				Body:            []byte(axe.script)})
			return err
		}))
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			go answer(e.RequestID) // a listener must not run commands itself
		}
	}); err != nil {
		return
	}
	_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*" + axeScriptPath + "*"}}})
		return err
	}))
}

// plural is one or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
