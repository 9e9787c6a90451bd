package marc

import (
	"bufio"
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// The files in testdata are exports published by other MARC projects
// (testdata/README.md names each origin); every value asserted here was
// read from the file's bytes.
func TestDecodeRealWorldFiles(t *testing.T) {
	cases := []struct {
		file     string
		records  int
		problems []int
		// check holds expected records by their number in the file.
		check map[int]library.HoldingRecord
	}{
		{file: "filemarc_sandburg.mrc", records: 1, check: map[int]library.HoldingRecord{1: sandburg()}},
		{file: "filemarc_sandburg.xml", records: 1, check: map[int]library.HoldingRecord{1: sandburg()}},
		{file: "pymarc_test.dat", records: 10, check: map[int]library.HoldingRecord{
			9: {Index: 9, ControlNumber: "fol05872355", Title: "Perl programmer's interactive workbook",
				Authors: []string{"Lowe, Vincent"}, ISBNs: []string{"013020868X"},
				BookDetails: library.BookDetails{Publisher: "Prentice Hall PTP", PublishedYear: 1999,
					Subjects: []string{"Perl (Computer program language)"}, CallNumber: "005.133"}},
		}},
		{file: "pymarc_multi_isbn.dat", records: 1, check: map[int]library.HoldingRecord{
			// Three 020s, each with a qualifier; 260 $c "c1977."; 082 $a "811/.5/4 s".
			1: {Index: 1, ControlNumber: "4612195", Title: "The town scold", Authors: []string{"Johnson, Judith Emlyn"},
				ISBNs:       []string{"0914378287", "0914378295", "0914378260"},
				BookDetails: library.BookDetails{Publisher: "Countryman Press", PublishedYear: 1977, CallNumber: "811.54 s"}},
		}},
		{file: "pymarc_diacritic.dat", records: 1, check: map[int]library.HoldingRecord{
			1: {Index: 1, ControlNumber: "17091269", Title: "Amateur media: social, cultural and legal perspectives",
				Authors: []string{"Hunter, Dan"}, ISBNs: []string{"9780415782654", "9780203112021"},
				BookDetails: library.BookDetails{Publisher: "Routledge", PublishedYear: 2012,
					Subjects: []string{"Social media", "User-generated content", "Internet"}, CallNumber: "302.231"}},
		}},
		{file: "filemarc_bad_leader.xml", records: 1, check: map[int]library.HoldingRecord{
			// A Library of Congress-style record with an 852 item; its leader is 25 characters.
			1: {Index: 1, ControlNumber: "LIBN539044247", Title: "Space for unknowing: the place of agnosis in faith",
				Authors: []string{"White, Stephen Ross"}, ISBNs: []string{"9781856075442", "1856075443"},
				BookDetails: library.BookDetails{Publisher: "Columba Press", PublishedYear: 2006,
					Subjects: []string{"Agnosticism", "Belief and doubt"}, CallNumber: "230 WHI"},
				Items: []library.HoldingItem{{Barcode: "11111027105040", CallNumber: "230 WHI"}}},
		}},
		{file: "koha_exported_records.mrc", records: 4, check: map[int]library.HoldingRecord{
			1: {Index: 1, Title: "Some book", Authors: []string{"Some Guy"},
				Items: []library.HoldingItem{{Barcode: "TEST11111"}}},
			// Five 952 items (locations in $c), the fifth without a barcode
			// (no copy, and a notice); two 020s, three 082s; 245 $a "Code" $b
			// with no ISBD punctuation.
			3: {Index: 3, ControlNumber: "000242241", Title: "Code: and other laws (of cyberspace)",
				Authors: []string{"Lessig, Lawrence"}, ISBNs: []string{"0465039138", "046503912X"},
				BookDetails: library.BookDetails{Publisher: "Basic Books", PublishedYear: 1999, CallNumber: "303.4833"},
				Items: []library.HoldingItem{{Barcode: "1", CallNumber: "303.4833", Location: "GEN"}, {Barcode: "2", CallNumber: "303.4833", Location: "NEW"},
					{Barcode: "3", CallNumber: "303.4833", Location: "GEN"}, {Barcode: "0479876576", CallNumber: "303.4833"}},
				Notices: []library.LineError{{Line: 3, Field: "barcode", Message: "an item in field 952 has no barcode (subfield $p); no copy is made for it"}}},
			// A UTF-8 title in Thai.
			4: {Index: 4, ControlNumber: "020079648", Title: "ทดสอบ: the fate of the commons in a connected world",
				Authors: []string{"Lessig, Lawrence"}, ISBNs: []string{"0375505784"},
				BookDetails: library.BookDetails{Publisher: "Random House", PublishedYear: 2001, CallNumber: "303.48 Les"},
				Items:       []library.HoldingItem{{Barcode: "4", CallNumber: "303.48 Les", Location: "GEN"}, {Barcode: "6", CallNumber: "303.48 Les", Location: "GEN"}}},
		}},
		{file: "filemarc_music.xml", records: 3, check: map[int]library.HoldingRecord{
			// The main entry is a band (110), the players are added entries;
			// an 852 names the holding library but no barcode.
			3: {Index: 3, ControlNumber: "001964482", Title: "The Modern Jazz Quartet plus",
				Authors:     []string{"Modern Jazz Quartet", "Jackson, Milt", "Peterson, Oscar", "Brown, Ray", "Thigpen, Ed", "Hayes, Louis"},
				BookDetails: library.BookDetails{Publisher: "Verve", PublishedYear: 1987, Subjects: []string{"Jazz"}},
				Notices:     []library.LineError{{Line: 3, Field: "barcode", Message: "an item in field 852 has no barcode (subfield $p); no copy is made for it"}}},
		}},
		// A Swedish library's record whose leader says MARC-8 but whose
		// accents are ISO 8859-1; its six 852s name shelves, not barcodes.
		{file: "filemarc_example.mrc", records: 1, check: map[int]library.HoldingRecord{
			1: {Index: 1, ControlNumber: "0000000044", Title: "Det osynliga barnet och andra berättelser",
				Authors: []string{"Jansson, Tove"}, ISBNs: []string{"9515008808"},
				BookDetails: library.BookDetails{Publisher: "Schildt", PublishedYear: 1998},
				Notices: []library.LineError{
					{Line: 1, Message: "the record says it is in MARC-8, but its accented letters are ISO 8859-1 (Latin-1): it is read as Latin-1"},
					{Line: 1, Field: "barcode", Message: "6 items in field 852 have no barcode (subfield $p); no copies are made for them"}}},
		}},
		// Records 2-7 are each broken in one way (base address past the end,
		// zero, directory not in 12-byte entries, a non-ASCII directory, a
		// letter in the base address, no fields); 1 and 8 are good.
		{file: "pymarc_bad_records.mrc", records: 2, problems: []int{2, 3, 4, 5, 6, 7}},
		// The leader says 727 bytes; the record is 741.
		{file: "filemarc_wronglen.mrc", records: 0, problems: []int{1}},
		// A tag "30-" in the directory.
		{file: "filemarc_bad_example.mrc", records: 0, problems: []int{1}},
		// A UNIMARC record in UTF-8 (title in 200, coded data in 100, the
		// non-sorting marks U+0088 and U+0089 around "L'"), Italian ICCU.
		{file: "pymarc_testunimarc.dat", records: 1, check: map[int]library.HoldingRecord{
			1: {Index: 1, ControlNumber: `IT\ICCU\ANA\0019370`, Title: "L'altra faccia della spirale",
				Authors: []string{"Asimov, Isaac", "Fruttero, Carlo", "Lucentini, Franco", "Scaglia, Cesare"}, ISBNs: []string{"8804406828"},
				BookDetails: library.BookDetails{Publisher: "A. Mondadori", PublishedYear: 1996}},
		}},
		// An ESC in 245 that selects no character set.
		{file: "pymarc_bad_marc8_escape.dat", records: 0, problems: []int{1}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			recs, problems := decodeAll(NewCodec(), formatOf(c.file), readTestdata(t, c.file))
			if len(recs) != c.records {
				t.Errorf("%d records, want %d (problems %v)", len(recs), c.records, problems)
			}
			want := c.problems
			if want == nil {
				want = []int{}
			}
			if got := problemLines(problems); !reflect.DeepEqual(got, want) {
				t.Errorf("problems on records %v, want %v: %v", got, want, problems)
			}
			for _, r := range recs {
				if w, ok := c.check[r.Index]; ok {
					assertHolding(t, r, w)
				}
			}
		})
	}
}

func sandburg() library.HoldingRecord {
	return library.HoldingRecord{Index: 1, ControlNumber: "92005291", Title: "Arithmetic",
		Authors: []string{"Sandburg, Carl", "Rand, Ted"}, ISBNs: []string{"0152038655"},
		BookDetails: library.BookDetails{Publisher: "Harcourt Brace Jovanovich", PublishedYear: 1993, CallNumber: "811.52",
			Subjects: []string{"Arithmetic", "Children's poetry, American", "American poetry", "Visual perception"}}}
}

func assertHolding(t *testing.T, got, want library.HoldingRecord) {
	t.Helper()
	if !reflect.DeepEqual(normalizeEmpty(got), normalizeEmpty(want)) {
		t.Errorf("record %d:\n got %+v\nwant %+v", want.Index, got, want)
	}
}

// normalizeEmpty makes nil and empty slices compare equal.
func normalizeEmpty(h library.HoldingRecord) library.HoldingRecord {
	if len(h.Authors) == 0 {
		h.Authors = nil
	}
	if len(h.ISBNs) == 0 {
		h.ISBNs = nil
	}
	if len(h.Subjects) == 0 {
		h.Subjects = nil
	}
	if len(h.Items) == 0 {
		h.Items = nil
	}
	if len(h.CancelledISBNs) == 0 {
		h.CancelledISBNs = nil
	}
	if len(h.Notices) == 0 {
		h.Notices = nil
	}
	return h
}

// The same Library of Congress record in three encodings: MARC-8 (leader
// position 9 blank), UTF-8 with the leader saying so, and UTF-8 with the
// leader still saying MARC-8. Every field reads the same, accents included
// (240 $a "De la solitude à la communauté.").
func TestMARC8AndUTF8EditionsReadTheSame(t *testing.T) {
	texts := map[string][]string{}
	for _, f := range []string{"pymarc_marc8.dat", "pymarc_utf8_with_leader_flag.dat", "pymarc_utf8_without_leader_flag.dat"} {
		var recs []rawRecord
		var problems []library.LineError
		_, err := decodeISO2709(bufio.NewReader(bytes.NewReader(readTestdata(t, f))),
			func(r rawRecord) error { recs = append(recs, r); return nil },
			func(p library.LineError) { problems = append(problems, p) })
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || len(problems) != 0 {
			t.Fatalf("%s: %d records, problems %v", f, len(recs), problems)
		}
		m := mapper{rec: &recs[0]}
		for _, fl := range recs[0].fields {
			for _, s := range fl.subfields {
				texts[f] = append(texts[f], fl.tag+string(s.code)+m.text(fl.tag, s.value))
			}
		}
		if m.err != nil {
			t.Fatalf("%s: %v", f, m.err)
		}
	}
	if !slices.Contains(texts["pymarc_marc8.dat"], "240aDe la solitude à la communauté.") {
		t.Errorf("MARC-8 240 $a not converted: %q", texts["pymarc_marc8.dat"])
	}
	if !reflect.DeepEqual(texts["pymarc_marc8.dat"], texts["pymarc_utf8_with_leader_flag.dat"]) ||
		!reflect.DeepEqual(texts["pymarc_marc8.dat"], texts["pymarc_utf8_without_leader_flag.dat"]) {
		t.Errorf("editions differ:\nmarc8 %q\nutf8  %q\nnoflag %q", texts["pymarc_marc8.dat"], texts["pymarc_utf8_with_leader_flag.dat"], texts["pymarc_utf8_without_leader_flag.dat"])
	}
}
