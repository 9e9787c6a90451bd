package i18n

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestFromAcceptLanguagePicksWhatTheReaderAsksFor(t *testing.T) {
	cases := []struct {
		header string
		want   Lang
		ok     bool
	}{
		{"es", Spanish, true},
		{"es-MX,es;q=0.9,en;q=0.8", Spanish, true},
		{"ar-EG", Arabic, true},
		{"fr-FR, ar;q=0.5", Arabic, true},
		{"en-GB", English, true},
		{"de, es;q=0.1", Spanish, true},
		{"en;q=0.2, es;q=0.9", Spanish, true},
		{"es;q=0, ar", Arabic, true},
		{"fr", "", false},
		{"", "", false},
		{"*", "", false},
		{";;;q=x", "", false},
	}
	for _, c := range cases {
		got, ok := FromAcceptLanguage(c.header)
		if got != c.want || ok != c.ok {
			t.Errorf("FromAcceptLanguage(%q) = %q, %v; want %q, %v", c.header, got, ok, c.want, c.ok)
		}
	}
}

func TestParseTakesOnlyTheServicesCodes(t *testing.T) {
	for _, code := range []string{"en", "es", "ar"} {
		if l, ok := Parse(code); !ok || string(l) != code {
			t.Errorf("Parse(%q) = %q, %v", code, l, ok)
		}
	}
	for _, code := range []string{"", "EN", "es-MX", "fr", "arabic"} {
		if l, ok := Parse(code); ok {
			t.Errorf("Parse(%q) = %q, want refused", code, l)
		}
	}
	if Arabic.Dir() != "rtl" || Spanish.Dir() != "ltr" || English.Dir() != "ltr" {
		t.Error("only Arabic is written right to left")
	}
}

func TestTranslateFormatsForTheLanguageAndFallsBackToEnglish(t *testing.T) {
	if got := Spanish.T("Skip to main content"); got != "Saltar al contenido principal" {
		t.Errorf("Spanish: %q", got)
	}
	if got := Arabic.T("Skip to main content"); got != "انتقل إلى المحتوى الرئيسي" {
		t.Errorf("Arabic: %q", got)
	}
	if got := English.T("Skip to main content"); got != "Skip to main content" {
		t.Errorf("English: %q", got)
	}
	// A key no catalogue has comes back in English, its arguments
	// formatted as the reader's language writes numbers.
	if got := Spanish.T("%d copies are not in any catalogue", 12345); got != "12.345 copies are not in any catalogue" {
		t.Errorf("missing key: %q", got)
	}
	if got := English.Number(1234567); got != "1,234,567" {
		t.Errorf("English number: %q", got)
	}
	if got := Arabic.Number(1234); got != "١٬٢٣٤" {
		t.Errorf("Arabic number: %q", got)
	}
	if From(context.Background()) != English || From(With(context.Background(), Arabic)) != Arabic {
		t.Error("the context carries the language, English when none")
	}
}

func TestDatesAreWrittenAsTheLanguageWritesThem(t *testing.T) {
	day := time.Date(2026, time.December, 2, 23, 30, 0, 0, time.UTC)
	want := map[Lang]string{English: "2 December 2026", Spanish: "2 de diciembre de 2026", Arabic: "٢ ديسمبر ٢٠٢٦"}
	for l, w := range want {
		if got := l.Date(day); got != w {
			t.Errorf("%s: %q, want %q", l, got, w)
		}
	}
	// The day is the one of the time's own zone (the school's).
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Skip("no time zone database")
	}
	if got := English.Date(day.In(auckland)); got != "3 December 2026" {
		t.Errorf("in the school's zone: %q", got)
	}
}

// verb matches one formatting verb; %% is not one.
var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

func verbs(s string) []string {
	var out []string
	for _, v := range verb.FindAllString(s, -1) {
		if v == "%%" {
			continue
		}
		// The argument index may change with the word order; the verb
		// itself may not.
		out = append(out, regexp.MustCompile(`\[\d+\]`).ReplaceAllString(v, ""))
	}
	slices.Sort(out)
	return out
}

// Every translation formats the same arguments as its English key: a
// verb lost or changed would print "%!d(string=...)" or drop a value.
func TestEveryTranslationKeepsItsKeysVerbs(t *testing.T) {
	for _, l := range []Lang{Spanish, Arabic} {
		if len(entries[l]) == 0 {
			t.Fatalf("%s has an empty catalogue", l)
		}
		for key, e := range entries[l] {
			want := verbs(key)
			for _, text := range e.texts() {
				if strings.TrimSpace(text) == "" {
					t.Errorf("%s %q: an empty translation", l, key)
					continue
				}
				got := verbs(text)
				if e.Plural != nil {
					// A plural form may leave the count out ("un libro").
					for _, v := range got {
						if !slices.Contains(want, v) {
							t.Errorf("%s %q: the form %q has the verb %s, which the key does not", l, key, text, v)
						}
					}
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s %q: the translation %q has the verbs %v, the key %v", l, key, text, got, want)
				}
			}
		}
	}
}

func TestCataloguesRefuseAKeyTranslatedTwiceOtherwiseAndBadEntries(t *testing.T) {
	same := fstest.MapFS{
		"catalog/es/a.json": {Data: []byte(`{"Hello": "Hola"}`)},
		"catalog/es/b.json": {Data: []byte(`{"Hello": "Hola"}`)},
	}
	if _, err := loadCatalogues(same); err != nil {
		t.Errorf("a key two files translate alike: %v", err)
	}
	twice := fstest.MapFS{
		"catalog/es/a.json": {Data: []byte(`{"Hello": "Hola"}`)},
		"catalog/es/b.json": {Data: []byte(`{"Hello": "Buenas"}`)},
	}
	if _, err := loadCatalogues(twice); err == nil || !strings.Contains(err.Error(), `"Hello"`) {
		t.Errorf("a key in two files: %v", err)
	}
	for name, body := range map[string]string{
		"not JSON":          `{"Hello": `,
		"a number":          `{"Hello": 3}`,
		"plural, no other":  `{"%d books": {"plural": {"arg": 1, "cases": {"one": "un libro"}}}}`,
		"plural, no arg":    `{"%d books": {"plural": {"cases": {"other": "%d libros"}}}}`,
		"an unknown object": `{"Hello": {"text": "Hola"}}`,
	} {
		if _, err := loadCatalogues(fstest.MapFS{"catalog/es/a.json": {Data: []byte(body)}}); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	good := fstest.MapFS{"catalog/ar/a.json": {Data: []byte(`{"%d books": {"plural": {"arg": 1, "cases": {"one": "كتاب واحد", "two": "كتابان", "few": "%d كتب", "other": "%d كتابًا"}}}}`)}}
	got, err := loadCatalogues(good)
	if err != nil || got[Arabic]["%d books"].Plural == nil {
		t.Fatalf("a plural entry: %v %+v", err, got)
	}
}

// One English word that means two things gets a context in its key: the
// English shows the word alone, a catalogue tells the two apart.
func TestAContextTellsTwoMeaningsApart(t *testing.T) {
	if got := English.T("stocktake|open"); got != "open" {
		t.Errorf("English: %q", got)
	}
	if got := Spanish.T("stocktake|open"); got != "abierto" || got == "stocktake|open" || got == Spanish.T("open") {
		t.Errorf("Spanish tells the stocktake's open from a charge's: %q and %q", got, Spanish.T("open"))
	}
	if got := Spanish.T("no-such-context|%d waiting", 1234); got != "1,234 waiting" {
		t.Errorf("a key no catalogue has is its English text: %q", got)
	}
	for _, key := range []string{"Either|or", "A|b", "|x", "line 1|line 2"} {
		if got := English.T(key); got != key {
			t.Errorf("%q is no context: %q", key, got)
		}
	}
}
