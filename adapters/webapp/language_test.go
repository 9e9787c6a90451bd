package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/user"
)

// TestSettingsFormSetsLanguage: the settings page offers the languages by
// their own names under a label, with the school's selected (English for a
// school that chose none); saving the form leaves a school that chose none
// so until another language is picked, stores the one picked, and refuses
// a code the service does not speak on the form with nothing saved. Staff
// see the language by its name.
func TestSettingsFormSetsLanguage(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	const path = "/library/maple.example.org/settings"
	form := func(lang string) url.Values {
		return url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"}, "language": {lang}}
	}
	stored := func() string {
		t.Helper()
		s, err := f.lib.Schools.Settings(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return s.Settings.Language
	}
	choices := func(page string) (names []string, selected string) {
		t.Helper()
		doc := parse(t, page)
		list := byID(doc, "settings-language")
		if list == nil || list.Data != "select" || attr(list, "name") != "language" {
			t.Fatalf("no language list: %s", render(list))
		}
		// The page is in the school's language once it has chosen one.
		pageLang := i18n.Lang(attr(all(doc, "html")[0], "lang"))
		labelled := false
		for _, l := range all(doc, "label") {
			labelled = labelled || (attr(l, "for") == "settings-language" && textOf(l) == pageLang.T("Language"))
		}
		if !labelled {
			t.Errorf("the language list has no label %q (the page is in %q)", pageLang.T("Language"), pageLang)
		}
		for _, o := range all(list, "option") {
			names = append(names, attr(o, "value")+"="+textOf(o))
			if hasAttr(o, "selected") {
				selected = attr(o, "value")
			}
		}
		return names, selected
	}

	names, selected := choices(f.do(&f.librarian, http.MethodGet, path, nil).Body.String())
	if got, want := strings.Join(names, " "), "en=English es=Español ar=العربية"; got != want {
		t.Fatalf("languages offered: %s, want %s", got, want)
	}
	if selected != "en" || stored() != "" {
		t.Fatalf("a school that chose none shows %q selected (stored %q), want en", selected, stored())
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form("en")); rec.Code != http.StatusSeeOther || stored() != "" {
		t.Fatalf("saving with English shown: %d, stored %q; want none chosen still", rec.Code, stored())
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form("es")); rec.Code != http.StatusSeeOther || stored() != "es" {
		t.Fatalf("save es: %d, stored %q", rec.Code, stored())
	}
	if _, selected := choices(f.do(&f.librarian, http.MethodGet, path, nil).Body.String()); selected != "es" {
		t.Fatalf("after saving es the page selects %q", selected)
	}
	rec := f.do(&f.librarian, http.MethodPost, path, form("fr"))
	page := parse(t, rec.Body.String())
	if rec.Code != http.StatusUnprocessableEntity || attr(byID(page, "settings-language"), "aria-invalid") != "true" ||
		!strings.Contains(textOf(byID(page, "settings-language-error")), i18n.Spanish.T("must be one of en, es, ar")) {
		t.Fatalf("fr: %d, want 422 with the field marked and the languages named, in the school's Spanish: %s", rec.Code, render(byID(page, "settings-language-error")))
	}
	if stored() != "es" {
		t.Fatalf("a refused language changed it to %q", stored())
	}
	if rec := f.do(&f.librarian, http.MethodPost, path, form("en")); rec.Code != http.StatusSeeOther || stored() != "en" {
		t.Fatalf("back to English: %d, stored %q", rec.Code, stored())
	}
	f.do(&f.librarian, http.MethodPost, path, form("ar"))
	view := byTestID(parse(t, f.do(&f.staff, http.MethodGet, path, nil).Body.String()), "setting-language")
	if len(view) != 1 {
		t.Fatalf("staff see %d languages, want 1", len(view))
	}
	if textOf(view[0]) != "العربية" || attr(view[0], "lang") != "ar" || attr(view[0], "dir") != "rtl" {
		t.Fatalf("staff see the language as %s", render(view[0]))
	}
}
