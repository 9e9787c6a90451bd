package bookimport_test

import (
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/core/catalog"
)

// words returns n words of filler text.
func words(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }

func chapterTitles(d catalog.BookDraft) string {
	var out []string
	for _, c := range d.Chapters {
		out = append(out, c.Title)
	}
	return strings.Join(out, " | ")
}

func TestTextHeaders(t *testing.T) {
	data := "Title: The Sea\r\nAuthor: Ann Smith\r\nRelease date: May 1, 2001\r\nLanguage: English\r\n\r\n" +
		"The Sea\r\nby Ann Smith\r\n\r\nChapter 1\r\nWaves.\r\n\r\nChapter 2\r\nMore waves.\r\n"
	d, err := bookimport.Text("sea.txt", []byte(data), defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, d)
	if d.Title != "The Sea" || d.Author != "Ann Smith" || d.Language != "en" {
		t.Errorf("got title %q author %q language %q, want The Sea, Ann Smith, en", d.Title, d.Author, d.Language)
	}
	if got, want := chapterTitles(d), "Chapter 1 | Chapter 2"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
	if got, want := d.Chapters[0].Text, "Waves."; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
	if d.Genre != "fiction" || d.ReadingLevel != "intermediate" || d.Access != catalog.AccessFree {
		t.Errorf("got genre %q level %q access %q, want the defaults", d.Genre, d.ReadingLevel, d.Access)
	}
}

func TestTextGutenberg(t *testing.T) {
	data := "The Project Gutenberg eBook of The Sea\n\nThis ebook is for the use of anyone anywhere.\n\n" +
		"Title: The Sea\n        and the Shore\n\nAuthor: Ann Smith\n\nLanguage: English\n\n" +
		"*** START OF THE PROJECT GUTENBERG EBOOK THE SEA ***\n\n" +
		"CONTENTS\n\n  CHAPTER I.   The Harbour\n  CHAPTER II.  The Storm\n\n" +
		"CHAPTER I. The Harbour\n\nBoats.\n\nCHAPTER II. The Storm\n\nWind.\n\n" +
		"*** END OF THE PROJECT GUTENBERG EBOOK THE SEA ***\n\nLicence text.\n"
	d, err := bookimport.Text("sea.txt", []byte(data), defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, d)
	if d.Title != "The Sea and the Shore" || d.Author != "Ann Smith" {
		t.Errorf("got title %q author %q, want The Sea and the Shore, Ann Smith", d.Title, d.Author)
	}
	// The title and table of contents have no text of their own; the licence is cut.
	if got, want := chapterTitles(d), "CHAPTER I. The Harbour | CHAPTER II. The Storm"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
	if got := d.Chapters[len(d.Chapters)-1].Text; got != "Wind." {
		t.Errorf("got last text %q, want %q", got, "Wind.")
	}
}

func TestTextByLine(t *testing.T) {
	data := "\n\n# The Sea\nby Ann Smith\n\nIt was a calm day.\n\nThe end."
	d, err := bookimport.Text("sea.txt", []byte(data), defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, d)
	if d.Title != "The Sea" || d.Author != "Ann Smith" || d.Language != "en" {
		t.Errorf("got title %q author %q language %q, want The Sea, Ann Smith, en", d.Title, d.Author, d.Language)
	}
	if got, want := chapterTitles(d), "The Sea"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
	if got, want := d.Chapters[0].Text, "It was a calm day.\n\nThe end."; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
}

func TestTextHeadingStyles(t *testing.T) {
	tests := []struct {
		name     string
		headings [2]string
		want     string
	}{
		{"Arabic", [2]string{"Chapter 1", "Chapter 2"}, "Chapter 1 | Chapter 2"},
		{"SpelledUpper", [2]string{"CHAPTER ONE", "CHAPTER TWENTY"}, "CHAPTER ONE | CHAPTER TWENTY"},
		{"RomanColon", [2]string{"Chapter IV: The Storm", "chapter xix: Home"}, "Chapter IV: The Storm | chapter xix: Home"},
		{"ArabicDot", [2]string{"Chapter 12. Home", "Chapter 13."}, "Chapter 12. Home | Chapter 13"},
		{"Dash", [2]string{"Chapter Three — At Sea", "Chapter 4 - Ashore"}, "Chapter Three — At Sea | Chapter 4 - Ashore"},
		{"Markdown", [2]string{"# The Harbour", "## The Storm ##"}, "The Harbour | The Storm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := "The Sea\nby Ann Smith\n\n" + tt.headings[0] + "\n\nFirst part.\n\n" + tt.headings[1] + "\nSecond part.\n"
			d, err := bookimport.Text("sea.txt", []byte(data), defaults)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			mustValid(t, d)
			if got := chapterTitles(d); got != tt.want {
				t.Errorf("got chapters %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTextNotHeadings(t *testing.T) {
	data := "The Sea\nby Ann Smith\n\nChapter 3 of the report says little.\nChapter IIII\nChapter Banana\nThe end."
	d, err := bookimport.Text("sea.txt", []byte(data), defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	if got, want := chapterTitles(d), "The Sea"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
}

func TestTextPages(t *testing.T) {
	d := defaults
	d.WordsPerPage = 100
	data := "The Sea\nby Ann Smith\n\nChapter 1\n" + words(250) + "\n\nChapter 2\n" + words(10) + "\n\nChapter 3\n" + words(100)
	got, err := bookimport.Text("sea.txt", []byte(data), d)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, got)
	want := [][2]int{{1, 3}, {4, 4}, {5, 5}}
	for i, c := range got.Chapters {
		if [2]int{c.PageStart, c.PageEnd} != want[i] {
			t.Errorf("chapter %d: got pages %d-%d, want %d-%d", i, c.PageStart, c.PageEnd, want[i][0], want[i][1])
		}
	}
	if got.Pages != 5 {
		t.Errorf("got %d pages, want 5", got.Pages)
	}

	// No headings: one chapter named after the book, 300 words a page.
	one, err := bookimport.Text("sea.txt", []byte("The Sea\nby Ann Smith\n\n"+words(650)), defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, one)
	if len(one.Chapters) != 1 || one.Chapters[0].Title != "The Sea" || one.Pages != 3 || one.Chapters[0].PageEnd != 3 {
		t.Errorf("got %d chapters, first %q, %d pages, want 1 chapter The Sea over 3 pages", len(one.Chapters), one.Chapters[0].Title, one.Pages)
	}
}

func TestTextErrors(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		d     bookimport.Defaults
		parts []string
	}{
		{"InvalidUTF8", "The Sea\nby Ann\n\nCaf\xe9 au lait", defaults, []string{"sea.txt: is not UTF-8 text (line 4)"}},
		{"NUL", "The Sea\nby Ann\x00", defaults, []string{"sea.txt: contains a NUL byte (line 2)"}},
		{"NoAuthor", "The Sea\n\nIt was calm.", defaults, []string{"sea.txt: author: no author found", `"by <Name>"`}},
		{"NoTitle", "Chapter 1\nIt was calm.", defaults, []string{"sea.txt: title: no title found"}},
		{"Empty", " \n\n", defaults, []string{"sea.txt: has no text"}},
		{"OnlyTitle", "The Sea\nby Ann Smith\n", defaults, []string{"sea.txt: has a title and an author but no text"}},
		{"BadLanguage", "Title: The Sea\nAuthor: Ann\nLanguage: Klingon\n\nText.", defaults, []string{`language: the header says "Klingon"`}},
		{"NoGenre", "The Sea\nby Ann\n\nText.", bookimport.Defaults{ReadingLevel: "beginner"},
			[]string{"sea.txt: genre: the file names no genre and no default genre was given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bookimport.Text("sea.txt", []byte(tt.data), tt.d)
			wantError(t, err, tt.parts...)
		})
	}
}

func TestFileText(t *testing.T) {
	path := writeFile(t, "sea.TXT", []byte("The Sea\nby Ann Smith\n\nText."))
	drafts, err := bookimport.File(path, defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, drafts...)
	if len(drafts) != 1 || drafts[0].Title != "The Sea" {
		t.Errorf("got %+v, want one draft titled The Sea", drafts)
	}
}
