package test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
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
			run(t, bctx, "the desk again", chromedp.Navigate(s.URL+"/library/"+domain), chromedp.WaitVisible(chromedp.ID("checkout-code")))
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
