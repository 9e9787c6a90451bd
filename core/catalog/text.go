package catalog

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxPrefixLength bounds the stored prefixes of a word: a query word longer
// than this is matched on its first MaxPrefixLength letters.
const MaxPrefixLength = 16

// Fold lowercases s and strips accents from Latin, Greek and Cyrillic
// letters ("Émile" → "emile"), so search and sorting ignore case and
// diacritics. Marks of other scripts (Devanagari vowel signs, for example)
// are part of their letters and stay. Greek final sigma becomes σ, the
// letter Σ lowercases to, so "ΟΜΗΡΟΣ" and "Όμηρος" fold alike.
func Fold(s string) string {
	var b strings.Builder
	var base rune
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) && unicode.In(base, unicode.Latin, unicode.Greek, unicode.Cyrillic) {
			continue // an accent on a letter of an alphabet that folds them
		}
		if !unicode.IsMark(r) {
			base = r
		}
		if r == 'ς' {
			r = 'σ'
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return norm.NFC.String(b.String())
}

// Words splits s into folded words of letters and digits.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !isWordRune(r) })
}

// CountWords counts the words of a text as a reader would: runs of letters
// and digits, with apostrophes and hyphens inside a word ("don't",
// "well-known") not splitting it.
func CountWords(text string) int {
	runes := []rune(text)
	n, in := 0, false
	for i, r := range runes {
		switch {
		case isWordRune(r):
			if !in {
				n++
				in = true
			}
		case in && (r == '\'' || r == '’' || r == '-') && i+1 < len(runes) && isWordRune(runes[i+1]):
			// joins two parts of one word
		default:
			in = false
		}
	}
	return n
}

// isWordRune: letters, digits, and the combining marks that belong to them.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

// SearchTerms returns every prefix (up to MaxPrefixLength letters) of every
// folded word of s, without duplicates. Stored on a book and indexed, they
// let "harr pott" find "Harry Potter" with one index lookup.
func SearchTerms(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range Words(s) {
		r := []rune(w)
		for n := 1; n <= len(r) && n <= MaxPrefixLength; n++ {
			p := string(r[:n])
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// QueryTerms turns a search query into the terms every matching book must
// have: each folded word, cut to MaxPrefixLength letters.
func QueryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range Words(q) {
		r := []rune(w)
		if len(r) > MaxPrefixLength {
			w = string(r[:MaxPrefixLength])
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
