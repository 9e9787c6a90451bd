package httpapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/i18n"
)

// The document offers exactly the languages the service speaks: the
// school's as an enumeration, a person's as a pattern that also takes ""
// (no choice of their own).
func TestOpenAPILanguagesAreTheServices(t *testing.T) {
	doc := loadDocument(t)
	for _, schema := range []string{"Settings", "SettingsInput"} {
		p := doc.Components.Schemas[schema].Value.Properties["language"]
		if p == nil {
			t.Errorf("%s has no language", schema)
			continue
		}
		var enum []string
		for _, v := range p.Value.Enum {
			s, _ := v.(string)
			enum = append(enum, s)
		}
		if !slices.Equal(enum, i18n.Codes()) {
			t.Errorf("%s.language enumerates %v, want %v", schema, enum, i18n.Codes())
		}
	}
	want := "^(" + strings.Join(i18n.Codes(), "|") + ")?$"
	for _, schema := range []string{"Preferences", "PreferencesPatch"} {
		p := doc.Components.Schemas[schema].Value.Properties["language"]
		if p == nil || p.Value.Pattern != want {
			t.Errorf("%s.language = %+v, want the pattern %s", schema, p, want)
		}
	}
}
