package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// marcSample is a real file of adapters/marc/testdata (its README names the
// origin and licence of each) and what the import must make of it.
type marcSample struct {
	file string
	// broken files are structurally damaged on purpose (the test suites of
	// MARC libraries keep them): their bad records are problems.
	broken bool
}

var marcSamples = []marcSample{
	{file: "evergreen_jazz_1k.mrc"},
	{file: "evergreen_lul_fre_100.mrc"},
	{file: "evergreen_oss.marc"},
	{file: "evergreen_hebrew.marc"},
	{file: "evergreen_badisbns.xml"},
	{file: "marc4j_pride-and-prejudice-fixed.mrc"},
	{file: "marc4j_selectedRecs.mrc"},
	{file: "marc4j_1474920681_KOHA_LFL_5.xml"},
	{file: "marc4j_cyrillic_capital_e.mrc"},
	{file: "traject_test_data.utf8.mrc"},
	{file: "rubymarc_marc8_accented_chars.marc"},
	{file: "rubymarc_utf8_multirecord.marc"},
	{file: "marcperl_title_proper.usmarc"},
	{file: "marcperl_batch.xml"},
	{file: "pymarc_test.dat"},
	{file: "pymarc_batch.xml"},
	{file: "pymarc_marc8.dat"},
	{file: "pymarc_multi_isbn.dat"},
	{file: "pymarc_diacritic.dat"},
	{file: "pymarc_testunimarc.dat"},
	{file: "pymarc_utf8.xml"},
	{file: "pymarc_utf8_without_leader_flag.dat"},
	{file: "filemarc_camel.mrc"},
	{file: "filemarc_example.mrc"},
	{file: "filemarc_music.xml"},
	{file: "filemarc_namespace.xml"},
	{file: "filemarc_sandburg.mrc"},
	{file: "filemarc_bad_leader.xml"},
	{file: "filemarc_xmlescape.mrc"},
	{file: "koha_exported_records.mrc"},
	{file: "pymarc_bad_records.mrc", broken: true},
	{file: "pymarc_bad_marc8_escape.dat", broken: true},
	{file: "filemarc_wronglen.mrc", broken: true},
	{file: "filemarc_bad_example.mrc", broken: true},
}

// TestHoldingsImportMARCRealFiles checks each real file in a dry run of
// the import, as a librarian would: a file that is not broken on purpose
// has no problem (its records are books, whatever they lack), and the
// figures are logged per file (records, books made, copies, problems and
// notices by kind); `go test -v -run TestHoldingsImportMARCRealFiles
// ./test/` prints the table of adapters/marc/testdata/README.md.
func TestHoldingsImportMARCRealFiles(t *testing.T) {
	w := newLibraryWorld(t)
	rows := []string{"| file | records | books made | copies | problems by kind | notices by kind |", "| --- | --: | --: | --: | --- | --- |"}
	total := 0
	for _, sample := range marcSamples {
		data, err := os.ReadFile(filepath.Join("..", "adapters", "marc", "testdata", sample.file))
		if err != nil {
			t.Fatal(err)
		}
		format := "marc21"
		if strings.HasSuffix(sample.file, ".xml") {
			format = "marcxml"
		}
		r := w.importHoldings(w.libA, format, string(data), true)
		rep := decodeImportReport(t, r, 200)
		var notices []string
		for _, n := range reportNotices(t, r) {
			notices = append(notices, withField(n.Field, n.Message))
		}
		var problems []string
		for _, p := range rep.Problems {
			problems = append(problems, withField(p.Field, p.Message))
		}
		switch {
		case !sample.broken && len(problems) != 0:
			t.Errorf("%s: problems %q, want none", sample.file, problems)
		case sample.broken && len(problems) == 0:
			t.Errorf("%s: no problem, want its broken records named", sample.file)
		case rep.BooksAdded+len(rep.Duplicates) > rep.Records:
			t.Errorf("%s: %d books and %d duplicates from %d records", sample.file, rep.BooksAdded, len(rep.Duplicates), rep.Records)
		}
		total += rep.Records
		rows = append(rows, fmt.Sprintf("| `%s` | %d | %d | %d | %s | %s |", sample.file, rep.Records, rep.BooksAdded, rep.CopiesAdded, kinds(problems), kinds(notices)))
	}
	if total < 1000 {
		t.Errorf("%d records in the samples, want at least 1,000", total)
	}
	t.Logf("figures of the dry run of each sample file (%d records):\n%s", total, strings.Join(rows, "\n"))
}

// withField is "field: message", or the message of the record as a whole.
func withField(field, message string) string {
	if field == "" {
		return message
	}
	return field + ": " + message
}

var quotedValue = regexp.MustCompile(`"[^"]*"`)

// kindOf is a "field: message" without what varies from record to record:
// quoted values are "…", numbers (but a tag) are "N", and a notice on one
// item reads like one on several.
func kindOf(m string) string {
	words := strings.Fields(quotedValue.ReplaceAllString(m, "…"))
	for i, w := range words {
		bare := strings.Trim(w, "(),.;:")
		if i > 0 && bare != "" && strings.Trim(bare, "0123456789") == "" && words[i-1] != "field" {
			words[i] = strings.Replace(w, bare, "N", 1)
		}
	}
	return strings.NewReplacer("an item in field", "N items in field", "has no barcode", "have no barcode",
		"no copy is made for it", "no copies are made for them").Replace(strings.Join(words, " "))
}

// kinds groups messages by kind (kindOf) with how many records have each,
// most first: "none" for none.
func kinds(messages []string) string {
	counts := map[string]int{}
	for _, m := range messages {
		counts[kindOf(m)]++
	}
	if len(counts) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(k) // one cell: no bar breaks the table
		out[i] = fmt.Sprintf("%d × %s", counts[k], strings.ReplaceAll(strings.Trim(string(b), `"`), "|", "/"))
	}
	return strings.Join(out, "; ")
}
