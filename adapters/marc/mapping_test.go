package marc

import (
	"reflect"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

func TestTitleDropsISBDPunctuation(t *testing.T) {
	cases := []struct {
		subs []string
		want string
	}{
		{[]string{"aArithmetic /", "cCarl Sandburg."}, "Arithmetic"},
		{[]string{"aMacroeconomics:", "ba European text"}, "Macroeconomics: a European text"},
		{[]string{"aThe Modern Jazz Quartet :", "bThe legendary profile. --"}, "The Modern Jazz Quartet: The legendary profile"},
		{[]string{"aCode", "band other laws"}, "Code: and other laws"},
		{[]string{"aHarry Potter and the goblet of fire."}, "Harry Potter and the goblet of fire"},
		{[]string{"aEncyclopedia of birds.", "nPart 2,", "pWaders /", "cedited by J. Smith."}, "Encyclopedia of birds. Part 2, Waders"},
		{[]string{"aLe petit prince =", "bThe little prince /"}, "Le petit prince = The little prince"},
		{[]string{"aWait for it..."}, "Wait for it..."},
		{[]string{"aDr. Seuss's ABC :", "ban amazing alphabet book!"}, "Dr. Seuss's ABC: an amazing alphabet book!"},
		{[]string{"cno title proper"}, ""},
	}
	for _, c := range cases {
		h := decodeOne(t, ports.FormatMARC21, iso('a', ctl("001", "t1"), dat("245", "10", c.subs...)))
		if h.Title != c.want {
			t.Errorf("245 %q: title %q, want %q", c.subs, h.Title, c.want)
		}
	}
}

func TestAuthorsAreMainEntryThenAddedEntries(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso('a',
		dat("700", "1 ", "aRand, Ted,", "eill."),
		dat("100", "1 ", "aSandburg, Carl,", "d1878-1967."),
		dat("700", "1 ", "aBurda, Michael C."),
		dat("700", "1 ", "aRand, Ted."), // the same person twice
		dat("245", "10", "aArithmetic /"),
	))
	want := []string{"Sandburg, Carl", "Rand, Ted", "Burda, Michael C."}
	if !reflect.DeepEqual(h.Authors, want) {
		t.Errorf("authors %q, want %q", h.Authors, want)
	}
}

func TestEveryISBNIsReadWithoutQualifiers(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso('a',
		dat("020", "  ", "a0-19-877306-4"),
		dat("020", "  ", "a9780306406157 (alk. paper) :", "c$25.00"),
		dat("020", "  ", "a046503912x (pbk.)"),
		dat("020", "  ", "z0000000000"),        // a cancelled ISBN: not read
		dat("020", "  ", "a(pbk.)"),            // no number
		dat("020", "  ", "a978 0 306 40615 7"), // spaced, a duplicate once normalised
		dat("020", "  ", "a1234567890"),        // bad checksum: kept, the caller reports it
		dat("020", "  ", "aISBN: 0-7475-3269-9"),
	))
	want := []string{"0198773064", "9780306406157", "046503912X", "1234567890", "0747532699"}
	if !reflect.DeepEqual(h.ISBNs, want) {
		t.Errorf("ISBNs %q, want %q", h.ISBNs, want)
	}
}

func TestPublisherAndYear(t *testing.T) {
	cases := []struct {
		name      string
		fields    []tf
		publisher string
		year      int
	}{
		{"260", []tf{dat("260", "  ", "aNew York :", "bBasic Books,", "cc1999.")}, "Basic Books", 1999},
		{"264 publication over 260", []tf{dat("260", "  ", "bOld Press,", "c1990."), dat("264", " 1", "aLondon :", "bNew Press,", "c[2003]")}, "New Press", 2003},
		{"264 copyright gives the year only", []tf{dat("264", " 4", "c©2015"), dat("264", " 1", "bScholastic,", "c[2016?]")}, "Scholastic", 2016},
		{"264 copyright when no publication date", []tf{dat("264", " 1", "bScholastic"), dat("264", " 4", "c©2015")}, "Scholastic", 2015},
		{"008 date when no 26X", []tf{ctl("008", "920219s1993    caua   j      000 0 eng  ")}, "", 1993},
		{"no year in 19--", []tf{dat("260", "  ", "bPress", "c19--")}, "Press", 0},
	}
	for _, c := range cases {
		h := decodeOne(t, ports.FormatMARC21, iso('a', c.fields...))
		if h.Publisher != c.publisher || h.PublishedYear != c.year {
			t.Errorf("%s: publisher %q year %d, want %q %d", c.name, h.Publisher, h.PublishedYear, c.publisher, c.year)
		}
	}
}

func TestSubjectsGenreAndCallNumber(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso('a',
		dat("082", "00", "a811/.52", "220"),
		dat("092", "  ", "aFIC", "bROW"),
		dat("650", " 0", "aWizards", "vJuvenile fiction."),
		dat("650", " 0", "aMagic."),
		dat("650", " 0", "aWizards."),
		dat("655", " 7", "aFantasy fiction.", "2lcgft"),
	))
	if want := []string{"Wizards", "Magic"}; !reflect.DeepEqual(h.Subjects, want) {
		t.Errorf("subjects %q, want %q", h.Subjects, want)
	}
	if h.Genre != "Fantasy fiction" {
		t.Errorf("genre %q", h.Genre)
	}
	if h.CallNumber != "FIC ROW" {
		t.Errorf("call number %q, want the local 092", h.CallNumber)
	}
	h = decodeOne(t, ports.FormatMARC21, iso('a', dat("082", "00", "a811/.52", "220")))
	if h.CallNumber != "811.52" {
		t.Errorf("call number %q, want the 082 without segmentation marks", h.CallNumber)
	}
}

func TestItemsFrom852And952(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso('a',
		dat("245", "00", "aMatilda"),
		dat("852", "  ", "aMain", "hFIC", "iDAH", "p31234000012345"),
		dat("852", "  ", "aMain", "hFIC"), // no barcode: skipped
		dat("952", "  ", "aMPL", "o823.914 DAH", "p31234000067890", "yBK"),
		dat("952", "  ", "aMPL", "pX-1"),
	))
	want := []library.HoldingItem{
		{Barcode: "31234000012345", CallNumber: "FIC DAH"},
		{Barcode: "31234000067890", CallNumber: "823.914 DAH"},
		{Barcode: "X-1"},
	}
	if !reflect.DeepEqual(h.Items, want) {
		t.Errorf("items %+v, want %+v", h.Items, want)
	}
	if h.CallNumber != "FIC DAH" {
		t.Errorf("call number %q, want the first item's when the record has none", h.CallNumber)
	}
}

func TestMARCXMLFieldsMapLikeISO2709(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<marc:collection xmlns:marc="http://www.loc.gov/MARC21/slim">
 <marc:record>
  <marc:leader>00000nam a2200000 a 4500</marc:leader>
  <marc:controlfield tag="001">ocm123</marc:controlfield>
  <marc:datafield tag="020" ind1=" " ind2=" "><marc:subfield code="a">9780747532699 (hbk.)</marc:subfield></marc:datafield>
  <marc:datafield tag="100" ind1="1" ind2=" "><marc:subfield code="a">Rowling, J. K.,</marc:subfield></marc:datafield>
  <marc:datafield tag="245" ind1="1" ind2="0"><marc:subfield code="a">Harry Potter &amp; the philosopher's stone /</marc:subfield></marc:datafield>
  <marc:datafield tag="264" ind1=" " ind2="1"><marc:subfield code="b">Bloomsbury,</marc:subfield><marc:subfield code="c">1997.</marc:subfield></marc:datafield>
  <marc:datafield tag="952" ind1=" " ind2=" "><marc:subfield code="p">000426795</marc:subfield><marc:subfield code="o">FIC ROW</marc:subfield></marc:datafield>
 </marc:record>
</marc:collection>`
	h := decodeOne(t, ports.FormatMARCXML, []byte(doc))
	want := library.HoldingRecord{Index: 1, ControlNumber: "ocm123", Title: "Harry Potter & the philosopher's stone",
		Authors: []string{"Rowling, J. K."}, ISBNs: []string{"9780747532699"},
		BookDetails: library.BookDetails{Publisher: "Bloomsbury", PublishedYear: 1997, CallNumber: "FIC ROW"},
		Items:       []library.HoldingItem{{Barcode: "000426795", CallNumber: "FIC ROW"}}}
	assertHolding(t, h, want)
}

func TestUnicodeIsNormalisedToNFC(t *testing.T) {
	// "Les Misérables" with a decomposed é (e + U+0301), as Library of
	// Congress UTF-8 records write it.
	h := decodeOne(t, ports.FormatMARC21, iso('a', dat("245", "10", "aLes Mise\u0301rables.")))
	if h.Title != "Les Misérables" {
		t.Errorf("title %q (% x), want NFC", h.Title, h.Title)
	}
}
