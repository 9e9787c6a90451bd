package catalog_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
)

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Émile Zola", "emile zola"},
		{"ÇA VA, GARÇON?", "ca va, garcon?"},
		{"Crème Brûlée", "creme brulee"},
		{"e\u0301te\u0301", "ete"}, // already decomposed
		{"Ñandú", "nandu"},
		{"plain ascii 42", "plain ascii 42"},
		{"ΟΜΗΡΟΣ", "ομηροσ"},
		{"Ὅμηρος", "ομηροσ"}, // final sigma folds with Σ's lowercase
	}
	for _, tt := range tests {
		if got := catalog.Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ,.!  ", nil},
		{"Émile Zola", []string{"emile", "zola"}},
		{"HARRY potter", []string{"harry", "potter"}},
		{"Hello, World! It's 2026.", []string{"hello", "world", "it", "s", "2026"}},
		{"über-cool\tdays\n", []string{"uber", "cool", "days"}},
	}
	for _, tt := range tests {
		if got := catalog.Words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSearchTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Émile Zola", []string{"e", "em", "emi", "emil", "emile", "z", "zo", "zol", "zola"}},
		{"ZOLA, zola! Zola.", []string{"z", "zo", "zol", "zola"}},
		{"Ana Anabel", []string{"a", "an", "ana", "anab", "anabe", "anabel"}},
		{"R2 D2", []string{"r", "r2", "d", "d2"}},
	}
	for _, tt := range tests {
		if got := catalog.SearchTerms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SearchTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSearchTermsCapsPrefixLength(t *testing.T) {
	word := "Supercalifragilisticexpialidocious" // 34 letters
	got := catalog.SearchTerms(word)
	if len(got) != catalog.MaxPrefixLength {
		t.Errorf("len(SearchTerms(%q)) = %d, want %d", word, len(got), catalog.MaxPrefixLength)
	}
	longest := ""
	for _, term := range got {
		if n := utf8.RuneCountInString(term); n > catalog.MaxPrefixLength {
			t.Errorf("term %q has %d letters, want at most %d", term, n, catalog.MaxPrefixLength)
		}
		if len(term) > len(longest) {
			longest = term
		}
	}
	if want := "supercalifragili"; longest != want {
		t.Errorf("longest term = %q, want %q", longest, want)
	}
	// The cap counts letters, not bytes.
	accented := strings.Repeat("é", 20)
	terms := catalog.SearchTerms(accented)
	if got, want := terms[len(terms)-1], strings.Repeat("e", catalog.MaxPrefixLength); got != want {
		t.Errorf("longest term of %q = %q, want %q", accented, got, want)
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"?!  --", nil},
		{"harr pott", []string{"harr", "pott"}},
		{"HARR,  Pott!", []string{"harr", "pott"}},
		{"Émile ZOLA", []string{"emile", "zola"}},
		{"harr harr HARR pott", []string{"harr", "pott"}},
		{"Supercalifragilisticexpialidocious", []string{"supercalifragili"}},
		// two long words that differ only after the cap are one term
		{"abcdefghijklmnopXYZ abcdefghijklmnopQRS", []string{"abcdefghijklmnop"}},
	}
	for _, tt := range tests {
		if got := catalog.QueryTerms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQueryTermsFindSearchTerms(t *testing.T) {
	tests := []struct {
		stored, query string
		want          bool
	}{
		{"Harry Potter J. K. Rowling", "harr pott", true},
		{"Harry Potter", "HARRY", true},
		{"Harry Potter", "potter harry", true},
		{"Harry Potter", "h p", true},
		{"Émile Zola", "emile zola", true},
		{"Emile Zola", "Émile", true},
		{"Supercalifragilisticexpialidocious", "supercalifragilisticexpialidocious", true},
		{"Supercalifragilisticexpialidocious", "supercalifragilisXXX", true}, // matched on the first 16 letters
		{"Harry Potter", "arry", false},                                      // prefixes only
		{"Harry Potter", "harry potters", false},
		{"Harry Potter", "harry granger", false},
	}
	for _, tt := range tests {
		stored := catalog.SearchTerms(tt.stored)
		q := catalog.QueryTerms(tt.query)
		all := len(q) > 0
		for _, term := range q {
			if !slices.Contains(stored, term) {
				all = false
			}
		}
		if all != tt.want {
			t.Errorf("QueryTerms(%q) = %q all in SearchTerms(%q) = %v, want %v", tt.query, q, tt.stored, all, tt.want)
		}
	}
}

func TestCountWords(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"   \n\t ", 0},
		{"-- ... !!!", 0},
		{"hello", 1},
		{"Hello, world.", 2},
		{"don't stop", 2},
		{"don’t stop", 2}, // curly apostrophe
		{"the dogs' bones", 3},
		{"rock 'n' roll", 3},
		{"a well-known fact", 3},
		{"well--known", 2},
		{"In 1984 there were 2 books", 6},
		{"ninety-9 x-ray", 2},
		{"word—word", 2},   // em-dash separates
		{"word — word", 2}, // spaced em-dash
		{"  many   spaces\n\nand\tnewlines \n", 4},
		{"Émile Zola's café", 3},
		{"end-", 1},
		{"-start", 1},
	}
	for _, tt := range tests {
		if got := catalog.CountWords(tt.in); got != tt.want {
			t.Errorf("CountWords(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
