package catalog_test

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

var textFuzzSeeds = []string{
	"Harry Potter and the Philosopher's Stone",
	"harr pott",
	"don't stop the well-known rock’n’roll",
	"a-b-c -x- y- -z 'q' a--b a-'b",
	"Émile Zola, Ærøskøbing, Straße, İstanbul, ΣΟΦΙΑ, Ёлка",
	"supercalifragilisticexpialidocious antidisestablishmentarianism",
	"日本語のテキスト 中文 한국어",
	"हिन्दी पाठ",
	"ﬁnance Ǆemal ǅ",
	"x\u0301\u0302\u0303 \u0301 \u0384\u0301 \u0482\u0483 \u2adc \u1fed",
	"Ⅻ ² ½ ١٢٣",
	"1984 2001: A Space Odyssey",
	"\u200b\u200d\ufeff",
	"a\x00b\xffc",
	"",
	"   ",
	"'-’",
	strings.Repeat("ab ", 20),
	strings.Repeat("é", 40),
}

// isWord is catalog's word rune: a letter, a digit or a combining mark.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) }

// referenceCountWords counts runs of word runes, where an apostrophe,
// right single quote or hyphen with a word rune on both sides joins them.
func referenceCountWords(s string) int {
	runes := []rune(s)
	n := 0
	for i := 0; i < len(runes); i++ {
		if !isWord(runes[i]) {
			continue
		}
		n++
		for i+1 < len(runes) && (isWord(runes[i+1]) ||
			(runes[i+1] == '\'' || runes[i+1] == '’' || runes[i+1] == '-') && i+2 < len(runes) && isWord(runes[i+2])) {
			i++
		}
	}
	return n
}

// simpleText reports whether s is valid UTF-8 of runes below U+0250 (Latin
// letters, whose accents Fold strips, and no combining marks).
func simpleText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r >= 0x250 {
			return false
		}
	}
	return true
}

// FuzzTextSearch checks the search and word-count helpers: every query term
// is a prefix of at most MaxPrefixLength runes that the same text's
// SearchTerms contain; CountWords is never negative and counts the text's
// runs of word runes (joined at inner apostrophes and hyphens).
//
// CountWords(s) == 0 exactly when Words(s) is empty does NOT hold in general
// (CountWords reads the raw text, Words the folded one): "\u0384\u0301"
// counts one word but has no Words, "\u2adc" counts none but Words gives
// ["\u0338"]. It is asserted only for text of Latin letters, where it holds,
// apostrophes and hyphens included.
func FuzzTextSearch(f *testing.F) {
	for _, s := range textFuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		search := catalog.SearchTerms(s)
		terms := catalog.QueryTerms(s)
		seen := map[string]bool{}
		for _, term := range terms {
			if term == "" || utf8.RuneCountInString(term) > catalog.MaxPrefixLength {
				t.Fatalf("QueryTerms(%q) has the term %q, empty or longer than %d runes", s, term, catalog.MaxPrefixLength)
			}
			if seen[term] {
				t.Fatalf("QueryTerms(%q) repeats %q", s, term)
			}
			seen[term] = true
			if !slices.Contains(search, term) {
				t.Fatalf("QueryTerms(%q) has %q, which SearchTerms of the same text (%q) lacks", s, term, search)
			}
		}
		words := catalog.Words(s)
		if len(terms) > len(words) {
			t.Fatalf("QueryTerms(%q) = %q, more terms than words %q", s, terms, words)
		}
		for _, p := range search {
			if p == "" || utf8.RuneCountInString(p) > catalog.MaxPrefixLength {
				t.Fatalf("SearchTerms(%q) has %q, empty or longer than %d runes", s, p, catalog.MaxPrefixLength)
			}
		}

		n := catalog.CountWords(s)
		if n < 0 {
			t.Fatalf("CountWords(%q) = %d", s, n)
		}
		if want := referenceCountWords(s); n != want {
			t.Fatalf("CountWords(%q) = %d, want %d", s, n, want)
		}
		if raw := strings.FieldsFunc(s, func(r rune) bool { return !isWord(r) }); (n == 0) != (len(raw) == 0) || n > len(raw) {
			t.Fatalf("CountWords(%q) = %d, but the text has %d runs of letters and digits", s, n, len(raw))
		}
		if simpleText(s) {
			if (n == 0) != (len(words) == 0) || n > len(words) {
				t.Fatalf("CountWords(%q) = %d but Words = %q", s, n, words)
			}
		}
	})
}

// FuzzNewQuery checks list parameters: NewQuery gives a query within the
// limits or an Invalid error, and Skip is never negative, for any page and
// limit.
func FuzzNewQuery(f *testing.F) {
	f.Add(1, 20, "", "", "", "")
	f.Add(2, 100, "fiction", "beginner", "harry potter", "-rating")
	f.Add(0, 0, "Fiction", "expert", "!!!", "rating")
	f.Add(-1, 101, strings.Repeat("g", 51), "BEGINNER", strings.Repeat("w ", 11), "-published_date")
	f.Add(1<<62, 100, "", "advanced", "a", "title")
	f.Add(-1<<63, -1<<63, "", "", strings.Repeat("x", 201), " title")
	f.Add(1<<63-1, 1, "", "intermediate", "don't", "")
	f.Add(21474837, 100, "", "", "é ü", "")
	f.Fuzz(func(t *testing.T, page, limit int, genre, level, search, sort string) {
		checkSkip(t, catalog.Query{Page: page, Limit: limit})
		q, err := catalog.NewQuery(page, limit, genre, level, search, sort)
		if err != nil {
			if k := errs.KindOf(err); k != errs.Invalid {
				t.Fatalf("NewQuery(%d, %d, %q, %q, %q, %q): kind %q (%v), want invalid", page, limit, genre, level, search, sort, k, err)
			}
			return
		}
		switch {
		case q.Page != page || q.Page < 1:
			t.Fatalf("page %d gave %+v", page, q)
		case q.Limit != limit || q.Limit < 1 || q.Limit > catalog.MaxLimit:
			t.Fatalf("limit %d gave %+v", limit, q)
		case q.Genre != genre || len(genre) > 50:
			t.Fatalf("genre %q gave %+v", genre, q)
		case q.ReadingLevel != level || level != "" && !user.ValidReadingLevel(level):
			t.Fatalf("reading level %q gave %+v", level, q)
		case q.Sort != catalog.SortTitle && q.Sort != catalog.SortRatingDesc && q.Sort != catalog.SortPublishedDesc,
			sort != "" && string(q.Sort) != sort:
			t.Fatalf("sort %q gave %+v", sort, q)
		case search == "" && q.Terms != nil,
			search != "" && (len(q.Terms) < 1 || len(q.Terms) > 10 || len(search) > 200 || !slices.Equal(q.Terms, catalog.QueryTerms(search))):
			t.Fatalf("search %q gave %+v", search, q)
		}
		checkSkip(t, q)
	})
}

// checkSkip: Skip is (page-1)*limit, clamped to [0, 2^31].
func checkSkip(t *testing.T, q catalog.Query) {
	t.Helper()
	got := q.Skip()
	if got < 0 || got > 1<<31 {
		t.Fatalf("%+v: Skip() = %d, outside 0..2^31", q, got)
	}
	if q.Page < 1 || q.Limit < 1 {
		if got != 0 {
			t.Fatalf("%+v: Skip() = %d, want 0", q, got)
		}
		return
	}
	want := new(big.Int).Mul(big.NewInt(int64(q.Page)-1), big.NewInt(int64(q.Limit)))
	if want.Cmp(big.NewInt(1<<31)) > 0 {
		want = big.NewInt(1 << 31)
	}
	if int64(got) != want.Int64() {
		t.Fatalf("%+v: Skip() = %d, want %d", q, got, want)
	}
}
