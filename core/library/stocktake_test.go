package library_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

func TestStocktakeCoversItsRange(t *testing.T) {
	dewey := library.Stocktake{From: "500", To: "599"}
	fiction := library.Stocktake{From: "FIC A", To: "FIC M"}
	from := library.Stocktake{From: "600"}
	upTo := library.Stocktake{To: "099"}
	whole := library.Stocktake{}
	for _, tc := range []struct {
		st   library.Stocktake
		cn   string
		want bool
	}{
		{dewey, "500", true},
		{dewey, "500.1 ABC", true},
		{dewey, "598.2 SMI", true},
		{dewey, "599", true},
		{dewey, "599.7 ALD", true}, // "to" takes in the call numbers it begins
		{dewey, "  599.7   ALD ", true},
		{dewey, "600 MAR", false},
		{dewey, "499.9 ZZZ", false},
		{dewey, "FIC DAH", false},
		{dewey, "", false}, // no call number: in no range
		{fiction, "FIC DAH", true},
		{fiction, "FIC MUR", true},
		{fiction, "FIC NOR", false},
		{fiction, "fic dah", false}, // case is kept: "fic" is another shelf mark
		{from, "600", true},
		{from, "FIC ZED", true},
		{from, "599.9", false},
		{upTo, "000 GEN", true},
		{upTo, "099.9", true},
		{upTo, "100", false},
		{whole, "", true},
		{whole, "anything", true},
	} {
		if got := tc.st.Covers(tc.cn); got != tc.want {
			t.Errorf("range %q..%q covers %q = %v, want %v", tc.st.From, tc.st.To, tc.cn, got, tc.want)
		}
	}
}

// The stores walk a range in byte order up to CallRangeEnd: the order and
// the bound agree with Covers, Dewey numbers sorting by their value.
func TestCallNumberOrderAndRangeEnd(t *testing.T) {
	cns := []string{"600 MAR", "598.2 SMI", "599.7 ALD", "599", "500", "510.1", "59.9", "FIC DAH"}
	sort.Strings(cns)
	if got := strings.Join(cns, "|"); got != "500|510.1|59.9|598.2 SMI|599|599.7 ALD|600 MAR|FIC DAH" {
		t.Errorf("byte order = %s", got)
	}
	st := library.Stocktake{From: "500", To: "599"}
	end := library.CallRangeEnd(st.To)
	for _, cn := range cns {
		inWalk := cn >= st.From && cn < end
		if inWalk != st.Covers(cn) {
			t.Errorf("%q: in the walk %v, covered %v", cn, inWalk, st.Covers(cn))
		}
	}
	if library.CallRangeEnd("") != "" {
		t.Error("an open end has no bound")
	}
}

func TestValidateStocktakeRange(t *testing.T) {
	for _, ok := range [][2]string{{"", ""}, {"500", "599"}, {"500", ""}, {"", "599"}, {"599", "599"}, {"599.7", "599"}} {
		if err := library.ValidateStocktakeRange(ok[0], ok[1]); err != nil {
			t.Errorf("%q..%q: %v", ok[0], ok[1], err)
		}
	}
	for _, bad := range []struct{ from, to, field string }{
		{"600", "500", "to"},
		{strings.Repeat("9", 101), "", "from"},
		{"", "5\x00", "to"},
	} {
		err := library.ValidateStocktakeRange(bad.from, bad.to)
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.Invalid {
			t.Errorf("%q..%q: %v, want Invalid", bad.from, bad.to, err)
			continue
		}
		if fields, _ := e.Details["fields"].(map[string]any); fields[bad.field] == nil {
			t.Errorf("%q..%q: %v, want field %s", bad.from, bad.to, e.Details, bad.field)
		}
	}
}

func TestParseScanFile(t *testing.T) {
	lines, problems := library.ParseScanFile([]byte("\xef\xbb\xbfABCD-EFGH-J\r\n\r\n  abcd efgh j  \n\t\nSECOND\n"))
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := []library.ScanLine{{Line: 1, Code: "ABCD-EFGH-J"}, {Line: 3, Code: "abcd efgh j"}, {Line: 5, Code: "SECOND"}}
	if len(lines) != len(want) {
		t.Fatalf("lines = %v, want %v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %v, want %v", i, lines[i], want[i])
		}
	}

	for _, tc := range []struct {
		name string
		data string
		line int
	}{
		{"empty", "", 1},
		{"blank lines only", "\n \r\n\n", 1},
		{"not UTF-8", "GOOD\nBAD\xff\n", 2},
		{"a long line", "GOOD\n" + strings.Repeat("X", library.MaxScanCodeSize+1) + "\nGOOD", 2},
	} {
		lines, problems := library.ParseScanFile([]byte(tc.data))
		if lines != nil || len(problems) != 1 || problems[0].Line != tc.line {
			t.Errorf("%s: lines %v, problems %v, want one problem on line %d", tc.name, lines, problems, tc.line)
		}
	}

	// Two scanner files joined (copy a.txt+b.txt): the second one's byte
	// order mark starts a line and is no part of its code.
	if lines, problems := library.ParseScanFile([]byte("\xef\xbb\xbfFIRST\r\n\xef\xbb\xbfSECOND\r\n")); len(problems) != 0 ||
		len(lines) != 2 || lines[1] != (library.ScanLine{Line: 2, Code: "SECOND"}) {
		t.Errorf("two joined files: %+v, problems %v", lines, problems)
	}

	// Lists other systems export: a code in double quotes is the code,
	// and a first line naming the column is no code (later ones are).
	if lines, problems := library.ParseScanFile([]byte("Item Barcode\r\n\"A 1\"\r\n\"\"\r\nBarcode\r\n")); len(problems) != 0 ||
		!slices.Equal(lines, []library.ScanLine{{Line: 2, Code: "A 1"}, {Line: 4, Code: "Barcode"}}) {
		t.Errorf("an exported list: %+v, problems %v", lines, problems)
	}

	many := strings.Repeat("CODE\n", library.MaxScanFileLines+1)
	if lines, problems := library.ParseScanFile([]byte(many)); lines != nil || len(problems) != 1 || problems[0].Line != library.MaxScanFileLines+1 {
		t.Errorf("too many codes: %d lines, problems %v", len(lines), problems)
	}
	if lines, problems := library.ParseScanFile([]byte(strings.Repeat("CODE\n", library.MaxScanFileLines))); len(problems) != 0 || len(lines) != library.MaxScanFileLines {
		t.Errorf("the most codes: %d lines, problems %v", len(lines), problems)
	}
}
