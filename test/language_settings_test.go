package test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
)

// A school's librarian sets its language in the settings: a school that
// never chose one answers en; es is stored and answered to everyone of the
// school; a code the service does not speak (fr, ES, or "") is 422 naming
// language and changes nothing; a change that leaves the language out
// keeps it; staff cannot change it, and another school's stays its own.
func TestSchoolLanguageSetting(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	put := func(tok, more string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: tok, Body: settingsWith(more)})
	}
	if got := w.settings(w.libA, "")["language"]; got != "en" {
		t.Fatalf("language of a school that never chose one = %v, want en", got)
	}

	r := put(w.libA, `"language":"es"`)
	if r.Status != 200 || r.json(t)["language"] != "es" {
		t.Fatalf("PUT language es: %d %s", r.Status, r.Body)
	}
	for who, tok := range map[string]string{"librarian": w.libA, "staff": w.staffA} {
		if got := w.settings(tok, "")["language"]; got != "es" {
			t.Errorf("%s reads language %v after the PUT, want es", who, got)
		}
	}
	if school, err := s.App.Repos.Schools.Get(context.Background(), w.schoolA); err != nil || school.Settings.Language != "es" {
		t.Fatalf("stored language = %q (%v), want es", school.Settings.Language, err)
	}

	before := w.settings(w.libA, "")
	for _, bad := range []string{`"fr"`, `"ES"`, `""`, `"es-MX"`} {
		wantFieldRefused(t, "language "+bad, put(w.libA, `"language":`+bad), "language")
	}
	if r := put(w.staffA, `"language":"ar"`); r.Status != 403 {
		t.Errorf("staff PUT language: %d, want 403", r.Status)
	}
	if now := w.settings(w.libA, ""); fmt.Sprint(now) != fmt.Sprint(before) {
		t.Fatalf("a refused PUT changed the settings:\nbefore %v\nafter  %v", before, now)
	}

	if r := put(w.libA, `"max_copies_per_book":50`); r.Status != 200 || r.json(t)["language"] != "es" {
		t.Fatalf("a PUT without language: %d %s, want es kept", r.Status, r.Body)
	}
	if got := w.settings(w.libB, "")["language"]; got != "en" {
		t.Errorf("the other school's language = %v, want en", got)
	}
	// An admin names the school.
	r = s.do(req{Method: http.MethodPut, Path: "/api/library/settings?schoolId=" + w.schoolB, Token: w.admin, Body: settingsWith(`"language":"ar"`)})
	if r.Status != 200 || r.json(t)["language"] != "ar" || w.settings(w.libB, "")["language"] != "ar" || w.settings(w.libA, "")["language"] != "es" {
		t.Fatalf("admin PUT language ar for school B: %d %s", r.Status, r.Body)
	}
}

// Each person may choose their own language in their preferences, apart
// from their school's: none chosen is "", es is stored and answered and
// kept by a change that leaves it out, fr or ES is 422 naming
// preferences.language and changes nothing, and "" clears the choice.
func TestPersonalLanguagePreference(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	for who, tok := range map[string]string{"reader": s.login(demoReader, demoPassword).Access, "student": w.studentA} {
		t.Run(who, func(t *testing.T) {
			me := func() map[string]any { return s.do(req{Path: "/v1/users/me", Token: tok}).json(t) }
			prefs := func(body map[string]any) map[string]any { return body["preferences"].(map[string]any) }
			patch := func(body string) response {
				return s.do(req{Method: http.MethodPatch, Path: "/v1/users/me", Token: tok, Body: body})
			}
			if got := prefs(me())["language"]; got != "" {
				t.Fatalf("language of a person who chose none = %v, want \"\"", got)
			}

			r := patch(`{"preferences":{"language":"es"}}`)
			if r.Status != 200 || prefs(r.json(t))["language"] != "es" || prefs(r.json(t))["font_size"] != float64(16) {
				t.Fatalf("PATCH language es: %d %s", r.Status, r.Body)
			}
			if got := prefs(me())["language"]; got != "es" {
				t.Fatalf("language after the PATCH = %v, want es", got)
			}

			before := me()
			for _, bad := range []string{`"fr"`, `"ES"`, `"es-MX"`, `null`} {
				wantFieldRefused(t, "language "+bad, patch(`{"name":"Changed","preferences":{"language":`+bad+`}}`), "preferences.language")
			}
			if now := me(); fmt.Sprint(now) != fmt.Sprint(before) {
				t.Fatalf("a refused PATCH changed the profile:\nbefore %v\nafter  %v", before, now)
			}

			if r := patch(`{"preferences":{"theme":"dark"}}`); r.Status != 200 || prefs(r.json(t))["language"] != "es" {
				t.Fatalf("a PATCH without language: %d %s, want es kept", r.Status, r.Body)
			}
			if r := patch(`{"preferences":{"language":""}}`); r.Status != 200 || prefs(r.json(t))["language"] != "" {
				t.Fatalf("PATCH language \"\": %d %s, want the choice cleared", r.Status, r.Body)
			}
			if got := prefs(me())["language"]; got != "" {
				t.Fatalf("language after clearing = %v, want \"\"", got)
			}
		})
	}
	// A person's choice is theirs: the school's language is as it was.
	if got := w.settings(w.libA, "")["language"]; got != "en" {
		t.Errorf("the school's language after its student chose = %v, want en", got)
	}
}
