package library_test

import (
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
)

// A school may set any language the service speaks, or none (a school
// stored before the setting), which reads as English; anything else is
// refused naming language, with the codes it may be.
func TestValidateSettingsLanguage(t *testing.T) {
	for _, code := range append([]string{""}, i18n.Codes()...) {
		s := library.DefaultSettings()
		s.Language = code
		if err := library.ValidateSettings(s); err != nil {
			t.Errorf("language %q refused: %v", code, err)
		}
	}
	for _, code := range []string{"fr", "ES", "es-MX", " es", "english"} {
		s := library.DefaultSettings()
		s.Language = code
		fields := fieldsOf(t, library.ValidateSettings(s))
		// The message is a literal, for the catalogues; it names every code.
		if want := "must be one of " + strings.Join(i18n.Codes(), ", "); !sameFieldSet(fields, []string{"language"}) || fields["language"] != want {
			t.Errorf("language %q: fields = %v, want language: %s", code, fields, want)
		}
	}
	if got := (library.Settings{}).Lang(); got != i18n.English {
		t.Errorf("a school that chose no language speaks %q, want English", got)
	}
	if got := (library.Settings{Language: "ar"}).Lang(); got != i18n.Arabic {
		t.Errorf("a school that chose ar speaks %q", got)
	}
	// The log compares the language in force: a school that chose none
	// and then English changed nothing.
	if none, en := (library.Settings{}).AuditFields()["language"], (library.Settings{Language: "en"}).AuditFields()["language"]; none != "en" || en != "en" {
		t.Errorf("audit fields: none chosen %q, en %q; want en for both", none, en)
	}
	// A change that leaves the language out keeps it.
	if got := (library.SettingsChange{}).Apply(library.Settings{Language: "es"}); got.Language != "es" {
		t.Errorf("a change without a language left %q, want es", got.Language)
	}
}
