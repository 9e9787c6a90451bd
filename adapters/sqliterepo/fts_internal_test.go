package sqliterepo

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/readinglibrary/service/core/catalog"
)

var tokenizeOption = regexp.MustCompile(`tokenize\s*=\s*'([^']*)'`)

// compareTokenizersEnv names the environment variable that makes
// TestTokenizerKeepsFoldedWords have SQLite tokenize every word, and count
// for the record how many the unicode61 tokenizers would change (the
// figures search.go gives): some seconds, some minutes under the race
// detector.
const compareTokenizersEnv = "SQLITEREPO_COMPARE_TOKENIZERS"

// TestTokenizerKeepsFoldedWords holds the search indexes' tokenizer to
// what search.go counts on: every folded word (catalog.Words) is exactly
// one token, unchanged, so an index of folded words matches a term exactly
// when catalog.SearchTerms holds it. The words are every code point that
// can be part of a folded word, after a digit, where catalog.Fold keeps
// the combining marks it strips after Latin, Greek and Cyrillic letters.
//
// The ascii tokenizer splits at ASCII characters other than letters and
// digits and lowercases ASCII letters only; every word is checked to hold
// neither. SQLite then tokenizes the ASCII words and every fiftieth other
// (or every word, with SQLITEREPO_COMPARE_TOKENIZERS set).
func TestTokenizerKeepsFoldedWords(t *testing.T) {
	d := openTestDB(t)
	schema := queryStrings(t, d.write.db, `SELECT sql FROM sqlite_schema WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'`)
	if len(schema) != 3 {
		t.Fatalf("found %d search indexes, want 3: %q", len(schema), schema)
	}
	used := map[string]bool{}
	for _, sql := range schema {
		m := tokenizeOption.FindStringSubmatch(sql)
		if m == nil {
			t.Fatalf("no tokenize option in %s", sql)
		}
		used[m[1]] = true
	}
	if len(used) != 1 || !used["ascii"] {
		t.Fatalf("the search indexes use the tokenizers %v, want ascii alone", used)
	}

	var words, sample []string
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r) {
			continue
		}
		ws := catalog.Words("1" + string(r) + "1")
		if len(ws) != 1 {
			continue
		}
		w := ws[0]
		for _, c := range w {
			if c < 0x80 && !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
				t.Errorf("folded word %q (U+%04X) holds %q, which the ascii tokenizer splits at or changes", w, r, c)
			}
		}
		words = append(words, w)
		if r < 0x80 || len(words)%50 == 0 {
			sample = append(sample, w)
		}
	}
	compare := os.Getenv(compareTokenizersEnv) != ""
	if compare {
		sample = words
	}
	if n := changedWords(t, d, "ascii", sample); n != 0 {
		t.Errorf("tokenizer ascii: %d of %d folded words are not one unchanged token", n, len(sample))
	}
	if !compare {
		return
	}
	for _, tokenizer := range []string{"unicode61 remove_diacritics 2", "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"} {
		t.Logf("tokenizer %q: %d of %d folded words are not one unchanged token", tokenizer, changedWords(t, d, tokenizer, words), len(words))
	}
}

// changedWords indexes words with tokenizer in a temporary search index
// and returns how many of them are not one unchanged token.
func changedWords(t *testing.T, d *DB, tokenizer string, words []string) int {
	t.Helper()
	ctx := t.Context()
	name := fmt.Sprintf("probe_%d", len(tokenizer))
	for _, q := range []string{
		fmt.Sprintf(`CREATE VIRTUAL TABLE temp.%s USING fts5 (words, tokenize = "%s")`, name, tokenizer),
		fmt.Sprintf(`CREATE VIRTUAL TABLE temp.%s_vocab USING fts5vocab(temp, %s, 'instance')`, name, name),
	} {
		if _, err := d.write.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Each word is followed by a sentinel word that every tokenizer keeps,
	// so the tokens between two sentinels are one word's, however many it
	// made. Rows of 1,000 words.
	const sentinel = "qqq"
	for i := 0; i < len(words); i += 1000 {
		row := strings.Join(words[i:min(i+1000, len(words))], " "+sentinel+" ") + " " + sentinel
		if _, err := d.write.db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO temp.%s (rowid, words) VALUES (?, ?)`, name), i, row); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := d.write.db.QueryContext(ctx, fmt.Sprintf(`SELECT doc, offset, term FROM temp.%s_vocab`, name))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type token struct {
		doc, offset int
		term        string
	}
	var tokens []token
	for rows.Next() {
		var tk token
		if err := rows.Scan(&tk.doc, &tk.offset, &tk.term); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tk)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(tokens, func(a, b token) int { return cmp.Or(cmp.Compare(a.doc, b.doc), cmp.Compare(a.offset, b.offset)) })
	changed, next := 0, 0 // next: the word the tokens since the last sentinel belong to
	var word []string
	for _, tk := range tokens {
		if tk.term != sentinel {
			word = append(word, tk.term)
			continue
		}
		if next >= len(words) || strings.Join(word, " ") != words[next] {
			changed++
		}
		next, word = next+1, word[:0]
	}
	if next != len(words) {
		t.Fatalf("tokenizer %q: %d sentinels for %d words", tokenizer, next, len(words))
	}
	return changed
}
