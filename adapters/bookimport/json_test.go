package bookimport_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/core/catalog"
)

const oneBook = `{
  "title": "Sea Stories", "author": "Ann Smith", "cover": "https://img.example.org/sea.jpg",
  "genre": "adventure", "reading_level": "beginner", "pages": 20, "description": "Tales.",
  "rating": 4.5, "published_date": "2001-05-17", "isbn": "978-0-306-40615-7", "language": "en",
  "access": "premium",
  "chapters": [
    {"title": "The Harbour", "page_start": 1, "page_end": 10, "text": "The boats came in."},
    {"title": "The Storm", "page_start": 11, "page_end": 20, "text": "The wind rose."}
  ]
}`

// book returns a valid book object with the given title and chapters JSON.
func book(title, chapters string) string {
	return `{"title": "` + title + `", "author": "A. Writer", "genre": "fiction", "reading_level": "beginner",
	  "pages": 30, "chapters": ` + chapters + `}`
}

const goodChapters = `[{"title": "One", "page_start": 1, "page_end": 10, "text": "Some text."}]`

func TestJSONOne(t *testing.T) {
	drafts, err := bookimport.JSON([]byte(oneBook))
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	if got, want := len(drafts), 1; got != want {
		t.Fatalf("got %d drafts, want %d", got, want)
	}
	mustValid(t, drafts...)
	d := drafts[0]
	want := catalog.BookDraft{
		Title: "Sea Stories", Author: "Ann Smith", Cover: "https://img.example.org/sea.jpg", Genre: "adventure",
		ReadingLevel: "beginner", Pages: 20, Description: "Tales.", Rating: 4.5, PublishedDate: "2001-05-17",
		ISBN: "978-0-306-40615-7", Language: "en", Access: catalog.AccessPremium,
	}
	got := d
	got.Chapters = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	wantCh := []catalog.ChapterDraft{
		{Title: "The Harbour", PageStart: 1, PageEnd: 10, Text: "The boats came in."},
		{Title: "The Storm", PageStart: 11, PageEnd: 20, Text: "The wind rose."},
	}
	if len(d.Chapters) != len(wantCh) {
		t.Fatalf("got %d chapters, want %d", len(d.Chapters), len(wantCh))
	}
	for i := range wantCh {
		if d.Chapters[i] != wantCh[i] {
			t.Errorf("chapter %d: got %+v, want %+v", i, d.Chapters[i], wantCh[i])
		}
	}
}

func TestJSONMany(t *testing.T) {
	data := "\uFEFF[" + book("First", goodChapters) + ",\n" + book("Second", goodChapters) + "]\n"
	drafts, err := bookimport.JSON([]byte(data))
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, drafts...)
	var titles []string
	for _, d := range drafts {
		titles = append(titles, d.Title)
	}
	if got, want := strings.Join(titles, ","), "First,Second"; got != want {
		t.Errorf("got titles %q, want %q", got, want)
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		field string   // of the first problem
		parts []string // in the error message
	}{
		{"UnknownKey", `{"titel": "x", ` + book("T", goodChapters)[1:], "titel", []string{`titel: is not a known field; did you mean "title"?`}},
		{"UnknownKeyNoHint", `{"colour": "x", ` + book("T", goodChapters)[1:], "colour", []string{"colour: is not a known field; the fields are title, author"}},
		{"WrongCase", `{"Title": "x", ` + book("T", goodChapters)[1:], "Title", []string{`did you mean "title"`}},
		{"UnknownChapterKey", book("T", `[{"title": "One", "page": 1, "page_start": 1, "page_end": 2, "text": "x"}]`),
			"chapters[0].page", []string{"chapters[0].page: is not a known field"}},
		{"DuplicateKey", `{"title": "x", ` + book("T", goodChapters)[1:], "title", []string{"title: appears more than once"}},
		{"DuplicateChapterKey", book("T", `[{"title": "One", "text": "a", "page_start": 1, "page_end": 2, "text": "b"}]`),
			"chapters[0].text", []string{"chapters[0].text: appears more than once"}},
		{"WrongType", strings.Replace(book("T", goodChapters), `"pages": 30`, `"pages": "30"`, 1),
			"pages", []string{"pages: must be a whole number, not a string"}},
		{"Fraction", strings.Replace(book("T", goodChapters), `"pages": 30`, `"pages": 30.5`, 1),
			"pages", []string{"pages: must be a whole number, not 30.5"}},
		{"Invalid", strings.Replace(book("T", goodChapters), `"genre": "fiction"`, `"genre": "Science Fiction"`, 1),
			"genre", []string{"genre: must be a lowercase slug"}},
		{"NotAnObject", `["a book"]`, "", []string{"book 1: is not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drafts, err := bookimport.JSON([]byte(tt.data))
			if drafts != nil {
				t.Errorf("got %d drafts, want none", len(drafts))
			}
			problems := mustFail(t, err)
			if got := problems[0].Field; got != tt.field {
				t.Errorf("got field %q, want %q (error %v)", got, tt.field, err)
			}
			wantError(t, err, tt.parts...)
		})
	}
}

func TestJSONTrailingData(t *testing.T) {
	for _, data := range []string{
		book("One", goodChapters) + "\n" + book("Two", goodChapters),
		book("One", goodChapters) + "\n\n  x",
		"[" + book("One", goodChapters) + "] []",
	} {
		drafts, err := bookimport.JSON([]byte(data))
		if drafts != nil {
			t.Errorf("got %d drafts, want none", len(drafts))
		}
		wantError(t, err, "has more data after the JSON value")
	}
}

func TestJSONSyntaxError(t *testing.T) {
	_, err := bookimport.JSON([]byte("{\n\"title\": \"x\",\n\"author\" \"y\"}"))
	wantError(t, err, "is not valid JSON", "line 3")
	_, err = bookimport.JSON([]byte(`[` + book("One", goodChapters)))
	wantError(t, err, "is not valid JSON")
	_, err = bookimport.JSON([]byte("  "))
	wantError(t, err, "is empty")
	_, err = bookimport.JSON([]byte("[]"))
	wantError(t, err, "contains no books")
}

// A bad book anywhere fails the whole file, naming the book and the field.
func TestJSONInvalidChapterOrder(t *testing.T) {
	bad := `[{"title": "One", "page_start": 1, "page_end": 10, "text": "a"},
	         {"title": "Two", "page_start": 5, "page_end": 12, "text": "b"}]`
	data := "[" + book("First", goodChapters) + "," + book("Second", bad) + "]"
	drafts, err := bookimport.JSON([]byte(data))
	if drafts != nil {
		t.Errorf("got %d drafts, want none", len(drafts))
	}
	problems := mustFail(t, err)
	p := problems[0]
	if p.Book != 2 || p.Title != "Second" || p.Field != "chapters[1].page_start" {
		t.Errorf("got book %d %q field %q, want book 2 \"Second\" field chapters[1].page_start", p.Book, p.Title, p.Field)
	}
	wantError(t, err, `book 2 ("Second"): chapters[1].page_start: must be after the previous chapter's page_end`)
}

// Every problem of a file is listed, in the order of the file.
func TestJSONAllProblemsListed(t *testing.T) {
	data := `[{"title": "", "author": "", "genre": "fiction", "reading_level": "beginner", "pages": 1,
	  "chapters": [{"title": "One", "page_start": 1, "page_end": 1, "text": "a"}]},` + book("Fine", goodChapters) + `,
	  {"title": "Third", "author": "X", "genre": "fiction", "reading_level": "expert", "pages": 5, "chapters": []}]`
	_, err := bookimport.JSON([]byte(data))
	var got []string
	for _, p := range mustFail(t, err) {
		got = append(got, p.Error())
	}
	want := []string{
		"book 1: title: must be between 1 and 300 characters",
		"book 1: author: must be between 1 and 200 characters",
		`book 3 ("Third"): reading_level: must be beginner, intermediate or advanced`,
		`book 3 ("Third"): chapters: must contain at least one chapter`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFileJSON(t *testing.T) {
	path := writeFile(t, "books.json", []byte("["+book("First", goodChapters)+"]"))
	drafts, err := bookimport.File(path, defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, drafts...)
	if got, want := len(drafts), 1; got != want {
		t.Errorf("got %d drafts, want %d", got, want)
	}

	bad := writeFile(t, "books.json", []byte(book("First", goodChapters)+"x"))
	_, err = bookimport.File(bad, defaults)
	problems := mustFail(t, err)
	if got, want := problems[0].File, bad; got != want {
		t.Errorf("got File %q, want %q", got, want)
	}
	wantError(t, err, bad+": has more data")
}

func TestFileUnreadable(t *testing.T) {
	_, err := bookimport.File("missing.json", defaults)
	wantError(t, err, "missing.json: does not exist")
	_, err = bookimport.File(writeFile(t, "notes.pdf", []byte("%PDF")), defaults)
	wantError(t, err, "notes.pdf: is not a book file")
}
