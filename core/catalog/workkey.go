package catalog

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WorkKey says which work a record describes whatever its edition or the
// system that catalogued it: the folded words of the title before any
// subtitle, "|", then the author's folded words without the ones holding
// digits (a heading's dates, "1916-1990") and the parenthesised fuller
// form of a name, sorted. Runs of initials read as one word ("B.F.G." is
// "bfg", "E. B." is "eb"). So the library's "Matilda / Dahl, Roald,
// 1916-1990." and the reading app's "Matilda" by "Roald Dahl" share one
// key. "" when the title or the author has no word: such a record is never
// linked by key.
func WorkKey(title, author string) string {
	if i := strings.IndexAny(title, ":;/="); i > 0 && len(Words(title[:i])) > 0 {
		title = title[:i] // ISBD's subtitle, parallel title and statement of responsibility
	}
	t := joinInitials(Words(title))
	var a []string
	for _, w := range joinInitials(Words(withoutParentheses(author))) {
		if !strings.ContainsFunc(w, unicode.IsDigit) {
			a = append(a, w)
		}
	}
	if len(t) == 0 || len(a) == 0 {
		return ""
	}
	slices.Sort(a)
	return strings.Join(t, " ") + "|" + strings.Join(a, " ")
}

// joinInitials merges each run of one-letter words into one word.
func joinInitials(words []string) []string {
	out := words[:0:0]
	run := ""
	for _, w := range words {
		if utf8.RuneCountInString(w) == 1 {
			run += w
			continue
		}
		if run != "" {
			out, run = append(out, run), ""
		}
		out = append(out, w)
	}
	if run != "" {
		out = append(out, run)
	}
	return out
}

// withoutParentheses drops every parenthesised part of s.
func withoutParentheses(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
