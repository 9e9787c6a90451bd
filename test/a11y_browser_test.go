package test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// What axe-core cannot see (axe_test.go runs it on every page state):
// whether the pages reflow at 320 CSS px, and the contrast of the charts'
// colours (TestBrowserReports measures them with chartColours).

// reflowWidth is 1280 CSS px at 400% zoom (WCAG 1.4.10, Reflow).
const reflowWidth = 320

// Every page of the menu of a student, a teacher, a staff member, a
// librarian and an administrator, and the pages of the signed-out, reflow
// at 320 CSS px: the page never scrolls sideways (a table may scroll
// inside its own region, which WCAG allows for data tables). A screenshot
// of each is an artifact (reflow-320-…).
func TestBrowserReflowAt320(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	book, _ := demoBookWithOneCopy(t, s, "Reflow: A Rather Long Title That Has To Wrap Somewhere On A Narrow Screen")

	// check loads href at 320 px wide and fails when the page is wider.
	check := func(t *testing.T, bctx contextWithName, href string) {
		t.Helper()
		run(t, bctx.ctx, bctx.name+" "+href,
			chromedp.EmulateViewport(reflowWidth, 800),
			chromedp.Navigate(s.URL+href),
			chromedp.WaitVisible(chromedp.ID("main")),
		)
		wide := get(t, bctx.ctx, "width of "+href, chromedp.Evaluate[string](`(() => {
  const w = document.documentElement.scrollWidth;
  if (w <= `+strconv.Itoa(reflowWidth)+`) return "";
  // The outermost elements that stick out (not inside a box of their
  // own that scrolls or clips), for the message.
  const out = [], width = `+strconv.Itoa(reflowWidth)+`;
  const inBox = e => { for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) if (getComputedStyle(p).overflowX !== "visible") return true; return false; };
  const name = e => e.localName + (e.id ? "#" + e.id : "") + (typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\s+/).join(".") : "");
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (inBox(e)) continue;
    if (r.right > width + 1 && !(e.parentElement && e.parentElement.getBoundingClientRect().right > width + 1)) out.push(name(e) + " in " + name(e.parentElement) + " to " + Math.round(r.right) + "px");
    else if (r.right <= width + 1 && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === "visible") out.push("the content of " + name(e) + ", " + (e.scrollWidth - e.clientWidth) + "px too wide");
  }
  return w + "px wide; sticking out: " + out.slice(0, 8).join(", ");
})()`))
		path, _, _ := strings.Cut(href, "?")
		name := "reflow-320-" + bctx.name + strings.NewReplacer("/library/"+domain, "", "/", "-").Replace(path)
		screenshot(t, bctx.ctx, strings.TrimSuffix(name, "-"))
		if wide != "" {
			t.Errorf("%s at %d CSS px: the page scrolls sideways: %s", href, reflowWidth, wide)
		}
	}
	// menu is the pages of the signed-in menu.
	menu := func(t *testing.T, bctx contextWithName) []string {
		t.Helper()
		return get(t, bctx.ctx, "the menu", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#site-nav a")].map(a => a.getAttribute("href"))`))
	}
	signIn := func(t *testing.T, email string) contextWithName {
		t.Helper()
		bctx := contextWithName{ctx: newChromium(t), name: strings.SplitN(email, "@", 2)[0]}
		run(t, bctx.ctx, "sign in as "+email,
			chromedp.Navigate(s.URL+"/library"),
			chromedp.WaitVisible(chromedp.ID("signin-email")),
			chromedp.SendKeys(chromedp.ID("signin-email"), email),
			typeAndEnter("signin-password", demoPassword),
			chromedp.WaitNotPresent(chromedp.ID("signin-email")),
		)
		return bctx
	}

	t.Run("SignedOut", func(t *testing.T) {
		bctx := contextWithName{ctx: newChromium(t), name: "public"}
		for _, href := range []string{"/library", "/library/" + domain + "/catalog", "/library/" + domain + "/catalog/title?id=" + book.ID, "/library/forgot-password"} {
			check(t, bctx, href)
		}
	})
	for _, email := range []string{demoStudent, demoTeacher, "staff@maplegrove.example.org", demoLibrarian, demoAdmin} {
		t.Run(strings.SplitN(email, "@", 2)[0], func(t *testing.T) {
			bctx := signIn(t, email)
			if email == demoAdmin {
				// An administrator arrives at the list of schools, and has
				// a school's menu in that school.
				check(t, bctx, "/library")
				run(t, bctx.ctx, "the school as an administrator", chromedp.Navigate(s.URL+"/library/"+domain), chromedp.WaitVisible(chromedp.ID("site-nav")))
			}
			pages := menu(t, bctx)
			if len(pages) < 2 {
				t.Fatalf("the menu of %s: %v", email, pages)
			}
			for _, href := range pages {
				check(t, bctx, href)
			}
		})
	}
}

// contextWithName is a tab and a short name for its screenshots.
type contextWithName struct {
	ctx  context.Context
	name string
}

// chartColour is a colour drawn in a chart and the colour behind it, as
// the browser computed them.
type chartColour struct {
	Chart string `json:"chart"`
	What  string `json:"what"`
	FG    string `json:"fg"`
	BG    string `json:"bg"`
}

// chartColoursJS answers the colour of every bar and text of the page's
// charts, and the first opaque background behind each chart.
const chartColoursJS = `(() => {
  const opaque = c => c && c !== "transparent" && !/rgba\([^)]*,\s*0\)$/.test(c);
  const behind = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (opaque(c)) return c; } return "rgb(255, 255, 255)"; };
  const out = [];
  for (const svg of document.querySelectorAll("svg.chart")) {
    const bg = behind(svg.parentElement);
    for (const r of svg.querySelectorAll("rect")) out.push({chart: svg.id, what: "bar", fg: getComputedStyle(r).fill, bg});
    for (const x of svg.querySelectorAll("text")) out.push({chart: svg.id, what: "text " + JSON.stringify(x.textContent), fg: getComputedStyle(x).fill, bg});
  }
  return out;
})()`

// checkChartContrast fails the test for a bar of less than 3:1 against
// what is behind it (WCAG 1.4.11, Non-text Contrast) or a text of less
// than 4.5:1 (1.4.3: the charts' text is 13 px), and when there is no bar
// or text to measure.
func checkChartContrast(t *testing.T, colours []chartColour) {
	t.Helper()
	var bars, texts int
	reported := map[string]bool{} // a chart's colour pair, once
	for _, c := range colours {
		ratio, err := contrastRatio(c.FG, c.BG)
		if err != nil {
			t.Errorf("chart %s, %s: %v", c.Chart, c.What, err)
			continue
		}
		want := 4.5
		if c.What == "bar" {
			want, bars = 3, bars+1
		} else {
			texts++
		}
		if key := c.Chart + " " + strings.Fields(c.What)[0] + " " + c.FG + " " + c.BG; ratio < want && !reported[key] {
			reported[key] = true
			t.Errorf("chart %s, %s: %s on %s has a contrast of %.2f:1, want at least %.1f:1", c.Chart, c.What, c.FG, c.BG, ratio, want)
		}
	}
	if bars == 0 || texts == 0 {
		t.Errorf("measured %d bars and %d texts in the charts, want some of each", bars, texts)
	}
}

var rgbPattern = regexp.MustCompile(`^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)\s*(?:[,/]\s*([\d.]+)\s*)?\)$`)

// parseRGB reads a computed CSS colour, rgb(…) or rgba(…).
func parseRGB(s string) (rgb [3]float64, alpha float64, err error) {
	m := rgbPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return rgb, 0, fmt.Errorf("colour %q is not rgb(…)", s)
	}
	for i := range rgb {
		rgb[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	alpha = 1
	if m[4] != "" {
		alpha, _ = strconv.ParseFloat(m[4], 64)
	}
	return rgb, alpha, nil
}

// relativeLuminance is WCAG 2's relative luminance of an sRGB colour.
func relativeLuminance(rgb [3]float64) float64 {
	var l [3]float64
	for i, v := range rgb {
		v /= 255
		if v <= 0.04045 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// contrastRatio is WCAG 2's contrast ratio of fg on bg, both computed CSS
// colours; a translucent fg is first laid on bg.
func contrastRatio(fg, bg string) (float64, error) {
	f, alpha, err := parseRGB(fg)
	if err != nil {
		return 0, err
	}
	b, _, err := parseRGB(bg)
	if err != nil {
		return 0, err
	}
	for i := range f {
		f[i] = alpha*f[i] + (1-alpha)*b[i]
	}
	l1, l2 := relativeLuminance(f), relativeLuminance(b)
	return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05), nil
}

func TestContrastRatio(t *testing.T) {
	tests := []struct {
		name   string
		fg, bg string
		want   float64
	}{
		{"BlackOnWhite", "rgb(0, 0, 0)", "rgb(255, 255, 255)", 21},
		{"Same", "rgb(47, 111, 159)", "rgb(47, 111, 159)", 1},
		{"GreyOnWhite", "rgb(119, 119, 119)", "rgb(255, 255, 255)", 4.48},
		{"Symmetric", "rgb(255, 255, 255)", "rgb(119, 119, 119)", 4.48},
		{"HalfBlackOnWhite", "rgba(0, 0, 0, 0.5)", "rgb(255, 255, 255)", 3.98},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := contrastRatio(tt.fg, tt.bg)
			if err != nil || math.Abs(got-tt.want) > 0.01 {
				t.Errorf("contrastRatio(%q, %q) = %.3f, %v; want %.2f", tt.fg, tt.bg, got, err, tt.want)
			}
		})
	}
	if _, err := contrastRatio("#2f6f9f", "rgb(255, 255, 255)"); err == nil {
		t.Error("a colour that is not rgb(…) is taken")
	}
}
