// Package i18n holds the languages the service speaks and their
// catalogues. Every sentence a person reads is written in English in the
// code and the templates, and that English text is its key: a catalogue
// gives each key its Spanish or Arabic form, with the same formatting
// verbs, and the reader's language formats the arguments (numbers grouped
// as the language groups them).
//
// The catalogues are JSON files under catalog/<language>/, embedded in the
// binary; a value is a string, or an object that picks a form by a count
// for languages with several plural forms (Arabic has six).
//
// Like all of the core it imports only the standard library, other core
// packages and golang.org/x/text (the layer rules of
// test/architecture_test.go).
package i18n

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Lang is a language the service speaks, by its BCP 47 code.
type Lang string

// The languages: English is the source, the others come from catalogues.
const (
	English Lang = "en"
	Spanish Lang = "es"
	Arabic  Lang = "ar"
)

// Default is the language of a school or person who chose none.
const Default = English

// all is every language, English first: the order of the choices a page
// offers and of the matcher's candidates.
var all = []Lang{English, Spanish, Arabic}

// Langs returns every language the service speaks, English first.
func Langs() []Lang { return append([]Lang(nil), all...) }

// Codes returns the languages' codes, for a validation message or an
// enumeration.
func Codes() []string {
	out := make([]string, len(all))
	for i, l := range all {
		out[i] = string(l)
	}
	return out
}

// Parse returns the language whose code is s exactly ("en", "es", "ar");
// a setting names one of them, never a regional variant.
func Parse(s string) (Lang, bool) {
	for _, l := range all {
		if string(l) == s {
			return l, true
		}
	}
	return "", false
}

// Dir is the direction the language is written in: "rtl" or "ltr".
func (l Lang) Dir() string {
	if l == Arabic {
		return "rtl"
	}
	return "ltr"
}

// Name is the language's name in itself, as a choice of language shows it.
func (l Lang) Name() string {
	switch l {
	case Spanish:
		return "Español"
	case Arabic:
		return "العربية"
	default:
		return "English"
	}
}

func (l Lang) tag() language.Tag {
	switch l {
	case Spanish:
		return language.Spanish
	case Arabic:
		return language.Arabic
	default:
		return language.English
	}
}

var matcher = language.NewMatcher([]language.Tag{language.English, language.Spanish, language.Arabic})

// FromAcceptLanguage picks the language an Accept-Language header asks
// for (weights and regional variants included: "es-MX" is Spanish). It
// reports false when the header names none the service speaks.
func FromAcceptLanguage(header string) (Lang, bool) {
	if strings.TrimSpace(header) == "" {
		return "", false
	}
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return "", false
	}
	_, index, confidence := matcher.Match(tags...)
	if confidence == language.No {
		return "", false
	}
	return all[index], true
}

// T returns key in the language, with args formatted into it as the
// language formats them. A key the catalogue lacks falls back to the
// English text (the catalogue test keeps that from happening).
//
// A key may start with a context, "stocktake|open", when one English word
// means two things that other languages say differently: the context is
// part of the key and never shown.
func (l Lang) T(key string, args ...any) string {
	if ctx, _ := cutContext(key); ctx != "" && !l.Has(key) {
		// Without its context the text could be another key: it is said
		// in English, as English says it.
		return printers[English].Sprintf(English.text(key), args...)
	}
	return printers[l].Sprintf(l.text(key), args...)
}

// text is the key the language's printer looks up: English (which has no
// catalogue) formats the key without its context.
func (l Lang) text(key string) string {
	if l == English || l == "" {
		_, text := cutContext(key)
		return text
	}
	return key
}

// cutContext splits "context|text", where the context is lowercase
// letters and hyphens; any other key has no context.
func cutContext(key string) (context, text string) {
	before, after, found := strings.Cut(key, "|")
	if !found || before == "" {
		return "", key
	}
	for _, r := range before {
		if (r < 'a' || r > 'z') && r != '-' {
			return "", key
		}
	}
	return before, after
}

// Has reports whether the language's catalogue holds key (English holds
// every key: it is the source).
func (l Lang) Has(key string) bool {
	if l == English || l == "" {
		return true
	}
	_, ok := entries[l][key]
	return ok
}

type ctxKey struct{}

// With returns ctx carrying the language a request is answered in.
func With(ctx context.Context, l Lang) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the language ctx carries, or Default.
func From(ctx context.Context) Lang {
	if l, ok := ctx.Value(ctxKey{}).(Lang); ok && l != "" {
		return l
	}
	return Default
}

//go:embed catalog
var catalogFiles embed.FS

// entry is one key's translation: a plain text, or forms picked by the
// plural category of one argument.
type entry struct {
	Text   string
	Plural *pluralEntry
}

// pluralEntry picks a form by the plural category of argument Arg
// (counted from 1, as %[1]d counts) of the formatted message: Cases maps a
// category ("zero", "one", "two", "few", "many", "other") or an exact
// count ("=0") to the text.
type pluralEntry struct {
	Arg   int               `json:"arg"`
	Cases map[string]string `json:"cases"`
}

func (e *entry) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &e.Text); err == nil {
		return nil
	}
	var p struct {
		Plural *pluralEntry `json:"plural"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Plural == nil {
		return fmt.Errorf("a translation is a string or {\"plural\": {\"arg\": N, \"cases\": {...}}}")
	}
	if p.Plural.Arg < 1 || len(p.Plural.Cases) == 0 || p.Plural.Cases["other"] == "" {
		return fmt.Errorf("a plural translation needs an argument number from 1 and an \"other\" case")
	}
	e.Plural = p.Plural
	return nil
}

// texts returns every text of the entry, for the checks on its verbs.
func (e entry) texts() []string {
	if e.Plural == nil {
		return []string{e.Text}
	}
	out := make([]string, 0, len(e.Plural.Cases))
	for _, c := range sortedKeys(e.Plural.Cases) {
		out = append(out, e.Plural.Cases[c])
	}
	return out
}

var (
	entries  map[Lang]map[string]entry
	printers map[Lang]*message.Printer
)

func init() {
	var err error
	entries, err = loadCatalogues(catalogFiles)
	if err != nil {
		panic("i18n: " + err.Error())
	}
	builder := catalog.NewBuilder(catalog.Fallback(language.English))
	for l, keys := range entries {
		for key, e := range keys {
			if err := setEntry(builder, l.tag(), key, e); err != nil {
				panic(fmt.Sprintf("i18n: %s %q: %v", l, key, err))
			}
		}
	}
	printers = map[Lang]*message.Printer{}
	for _, l := range all {
		printers[l] = message.NewPrinter(l.tag(), message.Catalog(builder))
	}
	printers[""] = printers[Default]
}

func setEntry(b *catalog.Builder, tag language.Tag, key string, e entry) error {
	if e.Plural == nil {
		return b.SetString(tag, key, e.Text)
	}
	var cases []any
	for _, c := range sortedKeys(e.Plural.Cases) {
		if c == "other" {
			continue
		}
		cases = append(cases, c, e.Plural.Cases[c])
	}
	cases = append(cases, "other", e.Plural.Cases["other"])
	return b.Set(tag, key, plural.Selectf(e.Plural.Arg, "", cases...))
}

// loadCatalogues reads catalog/<code>/*.json. A key two files of one
// language translate differently is an error, so they cannot disagree
// silently (the same words on two pages may be in both).
func loadCatalogues(files fs.FS) (map[Lang]map[string]entry, error) {
	out := map[Lang]map[string]entry{}
	for _, l := range all {
		if l == English {
			continue
		}
		out[l] = map[string]entry{}
		names, err := fs.Glob(files, path.Join("catalog", string(l), "*.json"))
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			body, err := fs.ReadFile(files, name)
			if err != nil {
				return nil, err
			}
			var file map[string]entry
			if err := json.Unmarshal(body, &file); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for key, e := range file {
				if old, dup := out[l][key]; dup && !sameEntry(old, e) {
					return nil, fmt.Errorf("%s: the key %q is in another %s file too, translated otherwise", name, key, l)
				}
				out[l][key] = e
			}
		}
	}
	return out, nil
}

// Keys returns the keys of the language's catalogue, sorted (none for
// English, the source).
func Keys(l Lang) []string {
	return sortedKeys(entries[l])
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Say is T for a key the catalogue holds: it reports false for English
// (the text is already English) and for a key without a translation, so
// the caller keeps the English it has. Its shape is errs.Translator's.
func (l Lang) Say(key string, args ...any) (string, bool) {
	if l == English || l == "" || !l.Has(key) {
		return "", false
	}
	return l.T(key, args...), true
}

// Choose picks the language a person reads in: their own choice, else
// their school's, else the first their browser asks for that the service
// speaks (an Accept-Language header), else English. A choice that names
// no language the service speaks is passed over.
func Choose(personal, school, acceptLanguage string) Lang {
	if l, ok := Parse(personal); ok {
		return l
	}
	if l, ok := Parse(school); ok {
		return l
	}
	if l, ok := FromAcceptLanguage(acceptLanguage); ok {
		return l
	}
	return Default
}

func sameEntry(a, b entry) bool {
	if a.Plural == nil || b.Plural == nil {
		return a.Plural == nil && b.Plural == nil && a.Text == b.Text
	}
	if a.Plural.Arg != b.Plural.Arg || len(a.Plural.Cases) != len(b.Plural.Cases) {
		return false
	}
	for k, v := range a.Plural.Cases {
		if b.Plural.Cases[k] != v {
			return false
		}
	}
	return true
}
