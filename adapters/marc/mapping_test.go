package marc

import (
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/holdingsfile"
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
		{[]string{"aAtlas of the world. -- --"}, "Atlas of the world"},
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
		dat("020", "  ", "z0000000000"),        // a cancelled ISBN: apart
		dat("020", "  ", "a(pbk.)"),            // no number
		dat("020", "  ", "a978 0 306 40615 7"), // spaced, a duplicate once normalised
		dat("020", "  ", "a1234567890"),        // bad checksum: kept, the caller reports it
		dat("020", "  ", "aISBN: 0-7475-3269-9"),
	))
	want := []string{"0198773064", "9780306406157", "046503912X", "1234567890", "0747532699"}
	if !reflect.DeepEqual(h.ISBNs, want) {
		t.Errorf("ISBNs %q, want %q", h.ISBNs, want)
	}
	if !reflect.DeepEqual(h.CancelledISBNs, []string{"0000000000"}) {
		t.Errorf("cancelled ISBNs %q, want the 020 $z", h.CancelledISBNs)
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
		dat("852", "  ", "aMain", "bJUN", "cFiction", "hFIC", "iDAH", "p31234000012345"),
		dat("852", "  ", "aMain", "hFIC"), // no barcode: no copy, a notice
		dat("952", "  ", "aMPL", "cGEN", "o823.914 DAH", "p31234000067890", "yBK"),
		dat("952", "  ", "aMPL", "pX-1"),
		dat("852", "4 ", "aCONS", "bBR1", "cStacks", "kREF", "j823.914 DAH", "mc.2", "p39000000000017"), // Evergreen's export
	))
	want := []library.HoldingItem{
		{Barcode: "31234000012345", CallNumber: "FIC DAH", Location: "Fiction"},
		{Barcode: "39000000000017", CallNumber: "REF 823.914 DAH c.2", Location: "Stacks"},
		{Barcode: "31234000067890", CallNumber: "823.914 DAH", Location: "GEN"},
		{Barcode: "X-1"},
	}
	if !reflect.DeepEqual(h.Items, want) {
		t.Errorf("items %+v, want %+v", h.Items, want)
	}
	if h.CallNumber != "FIC DAH" {
		t.Errorf("call number %q, want the first item's when the record has none", h.CallNumber)
	}
	if len(h.Notices) != 1 || h.Notices[0].Field != "barcode" || !strings.Contains(h.Notices[0].Message, "field 852 has no barcode (subfield $p)") {
		t.Errorf("notices %+v, want one for the 852 without a barcode", h.Notices)
	}
}

// SirsiDynix Unicorn and Symphony write their items in 949 or 999 ($i
// barcode, $a call number, $l home location); Koha's 999 holds its record
// numbers and is no item.
func TestItemsFrom949And999(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso('a',
		dat("245", "00", "aFriendly fire"),
		dat("949", "  ", "a5490", "wLC", "i30007007467409", "rY", "tSOUND", "lHUNT-AUDIO", "mHUNTINGTON"),
		dat("949", "00", "aONLINE / EN LIGNE", "wASIS", "tBOOK_WEB", "lDESM-EBOOK"), // an e-book: no barcode
		dat("999", "  ", "aPN241.5 .S65 F4 1983", "wLC", "c1", "iX000911909", "lALD-STKS", "mALDERMAN"),
		dat("999", "  ", "c42", "d42"), // Koha's biblionumber
	))
	want := []library.HoldingItem{
		{Barcode: "30007007467409", CallNumber: "5490", Location: "HUNT-AUDIO"},
		{Barcode: "X000911909", CallNumber: "PN241.5 .S65 F4 1983", Location: "ALD-STKS"},
	}
	if !reflect.DeepEqual(h.Items, want) {
		t.Errorf("items %+v, want %+v", h.Items, want)
	}
	if len(h.Notices) != 1 || !strings.Contains(h.Notices[0].Message, "field 949 has no barcode (subfield $i)") {
		t.Errorf("notices %+v, want one for the e-book's 949", h.Notices)
	}
}

// An export that keeps its items elsewhere is read from the field the
// librarian names, and from no other.
func TestItemFieldsOverride(t *testing.T) {
	rec := iso('a',
		dat("245", "00", "aMatilda"),
		dat("945", "  ", "aFIC DAH", "bc.1", "i31234000012345", "lJUN"),
		dat("945", "  ", "aFIC DAH", "lJUN"),
		dat("852", "  ", "p99999"),
	)
	codec := NewCodec().WithItemFields(holdingsfile.ItemFields{Tag: "945", Barcode: 'i', CallNumber: "ab", Location: 'l'})
	recs, problems := decodeAll(codec, ports.FormatMARC21, rec)
	if len(recs) != 1 || len(problems) != 0 {
		t.Fatalf("records %+v, problems %+v", recs, problems)
	}
	want := []library.HoldingItem{{Barcode: "31234000012345", CallNumber: "FIC DAH c.1", Location: "JUN"}}
	if !reflect.DeepEqual(recs[0].Items, want) {
		t.Errorf("items %+v, want only the 945 item %+v", recs[0].Items, want)
	}
	if n := recs[0].Notices; len(n) != 1 || !strings.Contains(n[0].Message, "field 945 has no barcode (subfield $i)") {
		t.Errorf("notices %+v", n)
	}
	// The zero override reads the usual fields again.
	recs, _ = decodeAll(codec.WithItemFields(holdingsfile.ItemFields{}), ports.FormatMARC21, rec)
	if len(recs) != 1 || len(recs[0].Items) != 1 || recs[0].Items[0].Barcode != "99999" {
		t.Errorf("items without the override %+v", recs)
	}
}

// The main entry is a person, a body, a meeting or a uniform title; a
// record without one takes its statement of responsibility, in the form
// of its added entry when that names the same; a record may name no one.
func TestAuthorsOfRecordsWithoutAPersonalMainEntry(t *testing.T) {
	cases := []struct {
		name   string
		fields []tf
		want   []string
	}{
		{"body with units", []tf{dat("110", "1 ", "aUnited States.", "bBureau of the Census."), dat("700", "1 ", "aDoe, Jane.")},
			[]string{"United States. Bureau of the Census", "Doe, Jane"}},
		{"meeting", []tf{dat("111", "2 ", "aOlympic Games", "d(1996 :", "cAtlanta, Ga.)")}, []string{"Olympic Games"}},
		{"uniform title", []tf{dat("130", "0 ", "aBeowulf."), dat("700", "1 ", "aHeaney, Seamus,", "etranslator.")}, []string{"Beowulf", "Heaney, Seamus"}},
		{"person with numeration", []tf{dat("100", "0 ", "aJohn Paul", "bII,", "cPope,", "d1920-2005.")}, []string{"John Paul II"}},
		{"statement naming an added entry", []tf{dat("245", "00", "aAmateur media /", "cedited by Dan Hunter ... [et al.]."), dat("700", "1 ", "aHunter, Dan.")},
			[]string{"Hunter, Dan"}},
		{"statement alone", []tf{dat("245", "00", "aSketches /", "cby Miles Davis ; arranged by Gil Evans.")}, []string{"Miles Davis"}},
		{"statement supplied in brackets", []tf{dat("245", "00", "aAtlas of the world /", "c[National Geographic].")}, []string{"National Geographic"}},
		{"added body only", []tf{dat("245", "00", "aCurrent population reports."), dat("710", "1 ", "aUnited States.", "bBureau of the Census.")},
			[]string{"United States. Bureau of the Census"}},
		{"nobody", []tf{dat("245", "00", "aWorld Book encyclopedia.")}, nil},
		{"unbalanced bracket", []tf{dat("100", "1 ", "a[Villars, Pierre")}, []string{"Villars, Pierre"}},
		// Separators repeated, as a record edited twice has them: all go,
		// or the name would lose one more each time it is read again.
		{"separators repeated", []tf{dat("100", "1 ", "aDoe, Jane -- --")}, []string{"Doe, Jane"}},
		{"numeration that is only a separator", []tf{dat("100", "0 ", "aDoe", "b--].")}, []string{"Doe"}},
		{"statement with separators repeated", []tf{dat("245", "00", "aSketches /", "cby Miles Davis -- -- .")}, []string{"Miles Davis"}},
	}
	for _, c := range cases {
		fields := c.fields
		if c.fields[0].tag != "245" {
			fields = append(fields, dat("245", "10", "aA title"))
		}
		h := decodeOne(t, ports.FormatMARC21, iso('a', fields...))
		if !reflect.DeepEqual(h.Authors, c.want) {
			t.Errorf("%s: authors %q, want %q", c.name, h.Authors, c.want)
		}
	}
}

func TestBracketsAndTitleFallback(t *testing.T) {
	h := decodeOne(t, ports.FormatMARC21, iso('a',
		dat("245", "10", "a[Les misérables :", "bédition illustrée] /"),
		dat("260", "  ", "a[Paris :", "bGallimard],", "c1950."),
		dat("650", " 0", "aFrance]"),
	))
	if h.Title != "[Les misérables: édition illustrée]" || h.Publisher != "Gallimard" || !reflect.DeepEqual(h.Subjects, []string{"France"}) {
		t.Errorf("title %q, publisher %q, subjects %q; want balanced brackets kept and lone ones dropped", h.Title, h.Publisher, h.Subjects)
	}
	h = decodeOne(t, ports.FormatMARC21, iso('a', dat("246", "3 ", "aAtlas of the world"), dat("100", "1 ", "aSmith, A.")))
	if h.Title != "Atlas of the world" || len(h.Notices) != 1 || h.Notices[0].Field != "title" {
		t.Errorf("title %q, notices %+v; want the 246 with a notice", h.Title, h.Notices)
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
