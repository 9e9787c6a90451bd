package test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/readinglibrary/service/core/i18n"
)

// The pages speak Spanish and Arabic to a browser that asks for them
// (Accept-Language): every page of the librarian's, the student's and the
// administrator's navigation has its lang and dir, says its navigation as
// the catalogue translates it, passes axe, and in Arabic is laid out right
// to left (the first section of the navigation is its rightmost). The
// desk, the student's page and the catalogue are kept as screenshots.
func TestBrowserPagesInSpanishAndArabic(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	for _, lang := range []i18n.Lang{i18n.Spanish, i18n.Arabic} {
		t.Run(string(lang), func(t *testing.T) {
			bctx := newChromium(t)
			run(t, bctx, "the browser asks for "+string(lang), chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
				_, err := cdp.Call(ctx, tgt, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": string(lang) + ";q=0.9, en;q=0.5"}})
				return err
			}))
			// checkPage checks the page the browser is on is said in lang.
			checkPage := func(step string) {
				t.Helper()
				got := get(t, bctx, step+": lang and dir", chromedp.Evaluate[string](`document.documentElement.lang + " " + document.documentElement.dir`))
				if got != string(lang)+" "+lang.Dir() {
					t.Errorf("%s: <html lang dir> is %q, want %q", step, got, string(lang)+" "+lang.Dir())
				}
				skip := get(t, bctx, step+": skip link", chromedp.Evaluate[string](`document.getElementById("skip-link").textContent`))
				if skip != lang.T("Skip to main content") || skip == "Skip to main content" {
					t.Errorf("%s: the skip link says %q, want %q", step, skip, lang.T("Skip to main content"))
				}
			}
			// everySection opens each section of the page's navigation
			// (run checks each with axe) and returns the navigation's labels.
			everySection := func(who string) []string {
				t.Helper()
				hrefs := get(t, bctx, who+": the navigation", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#site-nav a")].map(a => a.href)`))
				labels := get(t, bctx, who+": its labels", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#site-nav a")].map(a => a.textContent)`))
				if len(hrefs) == 0 {
					t.Fatalf("%s: no navigation", who)
				}
				for _, href := range hrefs {
					run(t, bctx, who+": "+href, chromedp.Navigate(href), chromedp.WaitVisible(chromedp.ID("main")))
					checkPage(who + ": " + href)
				}
				return labels
			}
			signOut := func() {
				run(t, bctx, "sign out", chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
					_, err := cdp.Call(ctx, tgt, network.ClearBrowserCookies, cdp.Empty{})
					return err
				}))
			}

			run(t, bctx, "the sign-in page", chromedp.Navigate(s.URL+"/library"), chromedp.WaitVisible(chromedp.ID("signin-email")))
			checkPage("the sign-in page")

			signInDemoLibrarian(t, bctx, s)
			checkPage("the desk")
			labels := everySection("the librarian")
			if labels[0] != lang.T("Desk") || !strings.Contains(strings.Join(labels, "|"), lang.T("Students")) {
				t.Errorf("the librarian's navigation says %q, want %q first and %q in it", labels, lang.T("Desk"), lang.T("Students"))
			}
			if lang.Dir() == "rtl" {
				// Right to left: the first section is the rightmost.
				first := get(t, bctx, "the first section's place", chromedp.Evaluate[float64](`document.querySelector("#site-nav li:first-child").getBoundingClientRect().left`))
				second := get(t, bctx, "the second section's place", chromedp.Evaluate[float64](`document.querySelector("#site-nav li:nth-child(2)").getBoundingClientRect().left`))
				if first <= second {
					t.Errorf("in Arabic the navigation runs left to right: the first section at x=%v, the second at x=%v", first, second)
				}
			}
			// A refused form, in the language: the settings sent back with
			// their field marked (the browser's own check set aside, as a
			// script could), and the desk's refusal of an unknown copy.
			run(t, bctx, "the settings", chromedp.Navigate(s.URL+"/library/"+domain+"/settings"), chromedp.WaitVisible(chromedp.ID("settings-loan-days")))
			run(t, bctx, "the settings refused",
				chromedp.Evaluate[chromedp.Void](`document.getElementById("settings-form").noValidate = true; document.getElementById("settings-loan-days").value = "999"`),
				loads(chromedp.Click(chromedp.ID("settings-submit"))),
				chromedp.WaitVisible(chromedp.ID("settings-loan-days-error")),
			)
			checkPage("the settings refused")
			refusal := get(t, bctx, "the field's message", chromedp.Evaluate[string](`document.getElementById("settings-loan-days-error").textContent`))
			if prefix, _, _ := strings.Cut(lang.T("Loan period %s.", "\x00"), "\x00"); !strings.HasPrefix(refusal, prefix) || strings.Contains(refusal, "must") {
				t.Errorf("the refused loan period says %q, want it in %s", refusal, lang)
			}
			run(t, bctx, "the desk again", chromedp.Navigate(s.URL+"/library/"+domain), chromedp.WaitVisible(chromedp.ID("checkout-code")))
			run(t, bctx, "an unknown copy at the desk",
				chromedp.SendKeys(chromedp.ID("checkout-code"), "NO-SUCH-COPY"),
				loads(typeAndEnter("checkout-student", "Theo")),
				chromedp.WaitVisible(chromedp.ID("flash")),
			)
			checkPage("the desk's refusal")
			run(t, bctx, "the desk once more", chromedp.Navigate(s.URL+"/library/"+domain), chromedp.WaitVisible(chromedp.ID("checkout-code")))
			screenshot(t, bctx, "desk-"+string(lang))
			run(t, bctx, "the catalogue", chromedp.Navigate(s.URL+"/library/"+domain+"/catalog"), chromedp.WaitVisible(chromedp.ID("main")))
			checkPage("the catalogue")
			screenshot(t, bctx, "catalogue-"+string(lang))

			signOut()
			signInDemoStudent(t, bctx, s)
			checkPage("the student's page")
			screenshot(t, bctx, "student-"+string(lang))
			everySection("the student")

			signOut()
			run(t, bctx, "the administrator signs in",
				chromedp.Navigate(s.URL+"/library"),
				chromedp.WaitVisible(chromedp.ID("signin-email")),
				chromedp.SendKeys(chromedp.ID("signin-email"), demoAdmin),
				loads(typeAndEnter("signin-password", demoPassword)),
			)
			checkPage("the administrator's first page")
			run(t, bctx, "a school as the administrator", chromedp.Navigate(s.URL+"/library/"+domain), chromedp.WaitVisible(chromedp.ID("site-nav")))
			everySection("the administrator")
		})
	}

	// Who chooses: with a browser that asks for nothing but English, the
	// school's language decides, and a person's own choice beats it.
	t.Run("the school, then the person", func(t *testing.T) {
		librarian := s.login(demoLibrarian, demoPassword).Access
		if r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: librarian, Body: settingsWith(`"language":"ar"`)}); r.Status != 200 {
			t.Fatalf("the school chooses Arabic: %d %s", r.Status, r.Body)
		}
		student := s.login(demoStudent, demoPassword).Access
		if r := s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: student, Body: `{"preferences":{"language":"es"}}`}); r.Status != 200 {
			t.Fatalf("the student chooses Spanish: %d %s", r.Status, r.Body)
		}
		bctx := newChromium(t)
		langDir := func(step string) string {
			return get(t, bctx, step, chromedp.Evaluate[string](`document.documentElement.lang + " " + document.documentElement.dir`))
		}
		signInDemoLibrarian(t, bctx, s)
		if got := langDir("the librarian's desk"); got != "ar rtl" {
			t.Errorf("the desk of a school that chose Arabic is %q, want ar rtl", got)
		}
		run(t, bctx, "sign out", chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
			_, err := cdp.Call(ctx, tgt, network.ClearBrowserCookies, cdp.Empty{})
			return err
		}))
		signInDemoStudent(t, bctx, s)
		if got := langDir("the student's page"); got != "es ltr" {
			t.Errorf("the page of a student who chose Spanish, in a school that chose Arabic, is %q, want es ltr", got)
		}
		if heading := get(t, bctx, "the student's navigation", chromedp.Evaluate[string](`document.querySelector("#site-nav a").textContent`)); heading != i18n.Spanish.T("My loans") {
			t.Errorf("the student's first section says %q, want %q", heading, i18n.Spanish.T("My loans"))
		}
	})
}

// The desk's script speaks the page's language: in Arabic the student
// lookup's status (what a screen reader reads out as the librarian types
// a name) says the catalogue's Arabic, its count in the digits the pages
// count in, with the texts the page gives the script as JSON data, which
// the page's CSP lets be: the console has no CSP error.
func TestBrowserDeskScriptSpeaksTheLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	for _, name := range []string{"Zaid Haddad", "Zaid Nasser"} {
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"` + name + `"}`}); r.Status != 201 {
			t.Fatalf("add %s: %d %s", name, r.Status, r.Body)
		}
	}
	const lang = i18n.Arabic
	bctx := newChromium(t)
	var (
		mu      sync.Mutex
		console []string
	)
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && e.Entry.Level == cdplog.EntryLevelError {
			mu.Lock()
			console = append(console, string(e.Entry.Source)+": "+e.Entry.Text)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	run(t, bctx, "the browser asks for Arabic and keeps its console", chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tgt, cdplog.Enable, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tgt, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": string(lang) + ";q=0.9, en;q=0.5"}})
		return err
	}))
	signInDemoLibrarian(t, bctx, s)
	if got := get(t, bctx, "lang and dir", chromedp.Evaluate[string](`document.documentElement.lang + " " + document.documentElement.dir`)); got != "ar rtl" {
		t.Fatalf("the desk is %q, want ar rtl", got)
	}
	statusIs := func(step, want string) {
		t.Helper()
		script := `document.getElementById("student-lookup-status").textContent`
		if !waitTrue(bctx, 15*time.Second, script+` === `+strconv.Quote(want)) {
			t.Errorf("%s: the lookup says %q, want %q", step, get(t, bctx, step, chromedp.Evaluate[string](script)), want)
		}
	}
	run(t, bctx, "type a name two students have", chromedp.SendKeys(chromedp.ID("checkout-student"), "Zaid"))
	two := lang.T("%s students match.", lang.Number(2))
	if two == "2 students match." || !strings.Contains(two, "٢") {
		t.Fatalf("the catalogue's Arabic for two students is %q", two)
	}
	statusIs("two students", two)
	run(t, bctx, "type one student's whole name", chromedp.SendKeys(chromedp.ID("checkout-student"), " Haddad"))
	statusIs("one student", lang.T("1 student matches."))
	if one := lang.T("1 student matches."); one == "1 student matches." {
		t.Errorf("the catalogue has no Arabic for one student: %q", one)
	}

	// The page's texts are data, not a script the CSP refuses; an inline
	// script is refused, and so seen here.
	mu.Lock()
	seen := append([]string(nil), console...)
	mu.Unlock()
	for _, line := range seen {
		if strings.Contains(line, "Content Security Policy") || strings.Contains(line, "Content-Security-Policy") {
			t.Errorf("the desk breaks its CSP: %s", line)
		}
	}
	get(t, bctx, "an inline script", chromedp.Evaluate[bool](`(() => { const s = document.createElement("script"); s.textContent = "window.ranInline = true"; document.body.appendChild(s); return true; })()`))
	if get(t, bctx, "did it run", chromedp.Evaluate[bool](`window.ranInline === true`)) {
		t.Error("an inline script ran: the CSP is not in force")
	}
	refused := false
	for i := 0; i < 50 && !refused; i++ {
		mu.Lock()
		for _, line := range console {
			refused = refused || strings.Contains(line, "Content Security Policy")
		}
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	if !refused {
		t.Errorf("the console shows no CSP refusal of an inline script, so it would not show one of the texts either: %q", console)
	}
}
