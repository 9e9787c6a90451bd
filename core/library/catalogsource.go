package library

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// DefaultCatalogEndpoint is the SRU base URL a new school looks ISBNs up
// at: the Library of Congress's online catalogue (database LCDB, UTF-8
// records), the usual public SRU server. A school may set its own (a
// union catalogue, its own Koha) or none.
const DefaultCatalogEndpoint = "http://lx2.loc.gov:210/LCDB"

// maxCatalogEndpoint bounds the setting like a cover URL.
const maxCatalogEndpoint = 2048

// ValidCatalogEndpoint reports whether s may be a school's catalogue
// server: "" (lookup off) or an absolute http(s) URL with a host and no
// user name or password. The server fetches this URL on a librarian's
// behalf, so other schemes (file:, gopher:, ...) are refused outright, and
// credentials are refused because the setting is shown on the desk and
// named in logs.
func ValidCatalogEndpoint(s string) bool {
	if s == "" {
		return true
	}
	if len(s) > maxCatalogEndpoint || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.User != nil || u.Fragment != "" || u.Hostname() == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

// DraftFromRecord is the book draft a catalogue record gives for isbn: its
// title and first author without the record's closing ISBD punctuation
// ("Matilda /", "Dahl, Roald,"), cut to what a book may hold, with the
// scanned ISBN (a record lists every edition's) and the record's details.
func DraftFromRecord(rec HoldingRecord, isbn string) BookDraft {
	d := BookDraft{Title: clip(trimISBD(rec.Title), maxBookTitle), ISBN: NormalizeISBN(strings.TrimSpace(isbn)), BookDetails: rec.BookDetails}
	if len(rec.Authors) > 0 {
		d.Author = clip(trimISBD(rec.Authors[0]), MaxBookAuthor)
	}
	d.Subjects = append([]string(nil), rec.Subjects...)
	for i, s := range d.Subjects {
		d.Subjects[i] = trimISBD(s)
	}
	d.Publisher = trimISBD(d.Publisher)
	return d
}

// trimISBD drops the punctuation MARC cataloguers end a subfield with
// before the next one (" /", " :", ",", ";", "=") and a final full stop,
// keeping one that ends an initial ("Tolkien, J. R. R.").
func trimISBD(s string) string {
	s = strings.TrimSpace(s)
	for s != "" {
		last := s[len(s)-1]
		if strings.IndexByte("/:;,=", last) >= 0 {
			s = strings.TrimSpace(s[:len(s)-1])
			continue
		}
		if last == '.' && !endsWithInitial(s) {
			s = strings.TrimSpace(s[:len(s)-1])
		}
		break
	}
	return s
}

// endsWithInitial reports whether s ends like "J." or "R. R.": one letter
// and a full stop.
func endsWithInitial(s string) bool {
	if len(s) < 2 || s[len(s)-1] != '.' {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:len(s)-1])
	rest := strings.TrimSuffix(s[:len(s)-1], string(r))
	return r != utf8.RuneError && (rest == "" || strings.HasSuffix(rest, " ") || strings.HasSuffix(rest, ".")) && !strings.ContainsRune("0123456789", r)
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}

// ErrCatalogLookupOff is the refusal of a lookup when the school set no
// catalogue server.
func ErrCatalogLookupOff() error {
	return errs.E(errs.Conflict, errs.CodeCatalogLookupOff,
		"This school has no catalogue server set (sru_endpoint); type the book in, or set one in the settings.")
}

// ErrCatalogRecordNotFound is the answer for an ISBN the server has no
// record of.
func ErrCatalogRecordNotFound(isbn string) error {
	e := errs.E(errs.NotFound, errs.CodeCatalogRecordNotFound,
		"The catalogue server has no record of ISBN %s; type the book in.", isbn)
	e.Details = map[string]any{"isbn": isbn}
	return e
}
