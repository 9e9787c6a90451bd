package webapp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/user"
)

// scriptKeys are the keys app.js says its texts by: text("key", ...).
func scriptKeys(t *testing.T) []string {
	t.Helper()
	js, err := staticFiles.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`\btext\(("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(string(js), -1) {
		key, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("app.js: %s: %v", m[1], err)
		}
		keys = append(keys, key)
	}
	if len(keys) < 20 {
		t.Fatalf("app.js says only %d texts: the search for them is broken", len(keys))
	}
	return keys
}

// The page gives the script every text it says, and only those: each
// under the English key app.js names it by, with {1}, {2}… where the key
// has its %s, in every language; in English the text is its key.
func TestPageTextsAreTheScriptsTexts(t *testing.T) {
	for _, lang := range i18n.Langs() {
		texts := newPageTexts(lang)
		used := map[string]bool{}
		for _, key := range scriptKeys(t) {
			used[key] = true
			if _, ok := texts.Texts[key]; !ok {
				t.Errorf("%s: app.js says %q, which the page does not give it", lang, key)
			}
		}
		for key, text := range texts.Texts {
			if !used[key] {
				t.Errorf("%s: the page gives the script %q, which app.js never says", lang, key)
			}
			slots := strings.Count(key, "%s")
			for i := 1; i <= 3; i++ {
				want := 0
				if i <= slots {
					want = 1
				}
				if n := strings.Count(text, "{"+strconv.Itoa(i)+"}"); n != want {
					t.Errorf("%s: %q is %q, with {%d} %d times, want %d", lang, key, text, i, n, want)
				}
			}
			if strings.Contains(text, "%") {
				t.Errorf("%s: %q is %q, with a verb left", lang, key, text)
			}
			if lang != i18n.English {
				continue
			}
			english := key[strings.Index(key, "|")+1:]
			n := 0
			english = regexp.MustCompile(`%s`).ReplaceAllStringFunc(english, func(string) string { n++; return "{" + strconv.Itoa(n) + "}" })
			if text != english {
				t.Errorf("in English %q is %q, want %q", key, text, english)
			}
		}
		if len(texts.Digits) != 10 {
			t.Errorf("%s: digits %q", lang, texts.Digits)
		}
	}
}

// The desk in Arabic gives its script the texts as JSON data the page's
// CSP lets be (not run): Arabic texts, Arabic-Indic digits and grouping.
func TestTheDeskGivesItsScriptTheTextsInItsLanguage(t *testing.T) {
	f := newFixture(t)
	for _, lang := range []i18n.Lang{i18n.English, i18n.Spanish, i18n.Arabic} {
		r := httptest.NewRequest(http.MethodGet, "/library/maple.example.org", nil)
		r.Header.Set("Accept-Language", string(lang))
		r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(f.librarian)))
		rec := httptest.NewRecorder()
		f.router.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			t.Fatalf("the desk in %s: %d", lang, rec.Code)
		}
		block := byID(parse(t, rec.Body.String()), "page-texts")
		if block == nil || block.Data != "script" || attr(block, "type") != "application/json" || attr(block, "src") != "" || block.FirstChild == nil {
			t.Fatalf("the desk in %s has no texts for its script: %s", lang, render(block))
		}
		var got pageTexts
		if err := json.Unmarshal([]byte(block.FirstChild.Data), &got); err != nil {
			t.Fatalf("the desk's texts in %s are no JSON: %v\n%s", lang, err, block.FirstChild.Data)
		}
		if want := lang.T("%s students match.", "{1}"); got.Texts["%s students match."] != want {
			t.Errorf("in %s the lookup's count says %q, want %q", lang, got.Texts["%s students match."], want)
		}
		if want := lang.T("1 student matches."); got.Texts["1 student matches."] != want {
			t.Errorf("in %s the lookup's one says %q, want %q", lang, got.Texts["1 student matches."], want)
		}
		if lang != i18n.English && got.Texts["1 student matches."] == "1 student matches." {
			t.Errorf("in %s the lookup speaks English", lang)
		}
		if n := strings.Join(got.Digits, "") + " " + got.Group; n != map[i18n.Lang]string{i18n.English: "0123456789 ,", i18n.Spanish: "0123456789 .", i18n.Arabic: "٠١٢٣٤٥٦٧٨٩ ٬"}[lang] {
			t.Errorf("in %s the script's digits and group are %q", lang, n)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("the desk's CSP is %q", csp)
		}
	}
}

// The texts are escaped as JSON in a script element: a text with a tag
// in it cannot end the element.
func TestPageTextsCannotEndTheirElement(t *testing.T) {
	f := newFixture(t)
	b := base{Lang: i18n.English, Texts: pageTexts{Texts: map[string]string{"x": `</script><script>alert(1)</script>`}}}
	page, err := f.app.execute(i18n.English, "error", errorView{base: b, Status: 404, Heading: "h", Text: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "<script>alert") {
		t.Fatalf("a text ended its element:\n%s", page)
	}
	block := byID(parse(t, string(page)), "page-texts")
	var got pageTexts
	if block == nil || block.FirstChild == nil || json.Unmarshal([]byte(block.FirstChild.Data), &got) != nil || got.Texts["x"] != `</script><script>alert(1)</script>` {
		t.Fatalf("the text did not come through as JSON: %s", render(block))
	}
}
