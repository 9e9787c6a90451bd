package test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/catalog"
)

// `libraryd import` stores the good files, reports each bad one with its
// name and reason, and stores nothing of a bad file.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("two.json", `[`+testBook("Harbour Lights", "Ines Moreau", "mystery", "beginner", "free", 4)+`,`+
		testBook("Quiet Orchard", "Ines Moreau", "drama", "advanced", "premium", 3.5)+`]`)
	text := write("river.txt", "Title: The River Road\nAuthor: Tom Baker\n\nChapter 1: Morning\n\nThe river was quiet in the morning light.\n\nChapter 2: Evening\n\nBy evening the boats came home again.\n")
	// The second book's chapters overlap: nothing of this file may be stored.
	bad := write("bad.json", `[`+testBook("Good Part Of Bad File", "A Writer", "drama", "beginner", "free", 3)+`,`+
		strings.Replace(testBook("Broken Pages", "A Writer", "drama", "beginner", "free", 3), `"page_start":11`, `"page_start":5`, 1)+`]`)

	env := testEnv(t, map[string]string{"LIBRARY_DEMO_DATA": "false"})
	var stdout, stderr bytes.Buffer
	err := app.RunImport(context.Background(), func(k string) string { return env[k] },
		[]string{"--genre", "history", "--level", "beginner", good, text, bad}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "1 of 3 files") {
		t.Fatalf("err = %v, want 1 of 3 files not imported", err)
	}
	if !strings.Contains(stderr.String(), "bad.json") || !strings.Contains(stderr.String(), "page_start") {
		t.Fatalf("stderr does not name the bad file and its reason:\n%s", stderr.String())
	}
	for _, title := range []string{"Harbour Lights", "Quiet Orchard", "The River Road"} {
		if !strings.Contains(stdout.String(), title) {
			t.Fatalf("stdout does not report %q:\n%s", title, stdout.String())
		}
	}

	// What was stored: exactly the three good books, the text file's with
	// its two chapters and the defaults from the flags.
	s := startService(t, env)
	books, total, err := s.App.Repos.Books.List(context.Background(), catalog.Query{Page: 1, Limit: 100, Sort: catalog.SortTitle})
	if err != nil || total != 3 {
		t.Fatalf("stored %d books (%v), want 3", total, err)
	}
	for _, b := range books {
		if strings.Contains(b.Title, "Bad File") || b.Title == "Broken Pages" {
			t.Fatalf("a book of the bad file was stored: %s", b.Title)
		}
		if b.Title == "The River Road" && (len(b.Chapters) != 2 || b.Chapters[1].Title != "Chapter 2: Evening" || b.Genre != "history" || b.Author != "Tom Baker") {
			t.Fatalf("text import = %+v", b)
		}
	}
}
