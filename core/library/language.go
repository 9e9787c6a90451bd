package library

import "github.com/readinglibrary/service/core/i18n"

// Lang is the school's language: Language, or i18n.Default for a school
// that set none.
func (s Settings) Lang() i18n.Lang {
	if l, ok := i18n.Parse(s.Language); ok {
		return l
	}
	return i18n.Default
}

// validLanguage reports whether code names a language the service speaks,
// or is "" (none chosen).
func validLanguage(code string) bool {
	_, ok := i18n.Parse(code)
	return ok || code == ""
}
