package test

import (
	"net/http"
	"reflect"
	"testing"
)

// The API says its error messages, and each field's message, in the first
// language of the request's Accept-Language header that the service
// speaks (English otherwise), and names that language in
// Content-Language; the code, the field names and the status never change
// with the language: clients match on them.
func TestAPIMessagesFollowAcceptLanguage(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	reader := s.login(demoReader, demoPassword).Access
	admin := s.login(demoAdmin, demoPassword).Access

	cases := []struct {
		name, acceptLanguage, lang string
		// fields are the field messages of a list query out of range;
		// duplicate is the message of a body that names a key twice.
		fields    map[string]any
		duplicate string
	}{
		{"Spanish", "es-MX,es;q=0.9", "es",
			map[string]any{"limit": "debe estar entre 1 y 100", "sort": "debe ser title, -rating o -published_date"},
			`La clave "title" aparece más de una vez.`},
		{"Arabic", "ar", "ar",
			map[string]any{"limit": "يجب أن يكون بين ١ و١٠٠", "sort": "يجب أن يكون title أو -rating أو -published_date"},
			`المفتاح "title" مكرر أكثر من مرة.`},
		{"a language the service does not speak", "fr", "en",
			map[string]any{"limit": "must be between 1 and 100", "sort": "must be title, -rating or -published_date"},
			`The key "title" appears more than once.`},
		{"no language asked for", "", "en",
			map[string]any{"limit": "must be between 1 and 100", "sort": "must be title, -rating or -published_date"},
			`The key "title" appears more than once.`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			headers := map[string]string{}
			if c.acceptLanguage != "" {
				headers["Accept-Language"] = c.acceptLanguage
			}

			// A validation failure: the field messages are said in the
			// language, under the same field names and code.
			r := s.do(req{Path: "/v1/books?limit=101&sort=author", Token: reader, Headers: headers})
			code, details := r.apiError(t)
			if r.Status != http.StatusUnprocessableEntity || code != "validation_failed" {
				t.Fatalf("out-of-range query: %d %s", r.Status, r.Body)
			}
			if got := details["fields"]; !reflect.DeepEqual(got, c.fields) {
				t.Errorf("field messages = %v, want %v", got, c.fields)
			}
			if got := r.Header.Get("Content-Language"); got != c.lang {
				t.Errorf("Content-Language = %q, want %q", got, c.lang)
			}

			// A body the service cannot take: the message itself, with
			// its argument formatted into it, is said in the language.
			r = s.do(req{Method: http.MethodPost, Path: "/v1/books", Body: `{"title":"A","title":"B"}`, Token: admin, Headers: headers})
			code, _ = r.apiError(t)
			if r.Status != http.StatusBadRequest || code != "malformed_json" {
				t.Fatalf("duplicate key: %d %s", r.Status, r.Body)
			}
			if got := r.json(t)["error"].(map[string]any)["message"]; got != c.duplicate {
				t.Errorf("message = %q, want %q", got, c.duplicate)
			}
			if got := r.Header.Get("Content-Language"); got != c.lang {
				t.Errorf("Content-Language = %q, want %q", got, c.lang)
			}
		})
	}
}
