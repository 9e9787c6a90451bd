package webapp

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// A librarian uploads a cover from the books page (a real PNG with
// transparency); the books page and the catalogue then show it, a file
// that is no image is refused with its reason, staff upload nothing, and
// the cover can be removed.
func TestCoverFormsOnTheBooksPage(t *testing.T) {
	f := newFixture(t)
	asLib := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	book, _, err := f.lib.Holdings.AddBook(asLib, "", library.BookDraft{Title: "Covered Here", Author: "C. Over", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join("..", "coverimage", "testdata", "tux.png"))
	if err != nil {
		t.Fatal(err)
	}
	const books = "/library/maple.example.org/books"
	send := func(caller *user.Account, file []byte) string {
		rec := f.postForm(caller, books+"/cover", map[string][]byte{"book_id": []byte(book.ID), "back_search": []byte("Covered")},
			map[string][]byte{"cover": file})
		if caller == &f.staff {
			return strconv.Itoa(rec.Code)
		}
		fl := byID(parse(t, f.serve(f.withFlash(t, *caller, rec)).Body.String()), "flash")
		return attr(fl, "data-kind") + ": " + textOf(fl)
	}
	if got := send(&f.staff, png); got != "403" {
		t.Fatalf("staff upload: %s, want 403", got)
	}
	if got := send(&f.librarian, []byte("not an image")); !strings.HasPrefix(got, "error") || !strings.Contains(got, "not a JPEG, PNG, GIF or WebP") {
		t.Fatalf("a text file: %q", got)
	}
	if got := send(&f.librarian, png); !strings.HasPrefix(got, "success") {
		t.Fatalf("upload: %q", got)
	}
	page := parse(t, f.do(&f.librarian, http.MethodGet, books+"?search=Covered", nil).Body.String())
	if imgs := byTestID(page, "book-cover"); len(imgs) != 1 || attr(imgs[0], "src") != coverPath("maple.example.org", book.ID) || attr(imgs[0], "alt") != "" {
		t.Fatalf("the books page's cover: %d images", len(imgs))
	}
	checkAccessible(t, page)
	cat := parse(t, f.do(nil, http.MethodGet, "/library/maple.example.org/catalog?search=Covered", nil).Body.String())
	if len(byTestID(cat, "catalog-cover")) != 1 {
		t.Fatal("the catalogue shows no cover")
	}
	rec := f.do(&f.librarian, http.MethodPost, books+"/cover/remove", url.Values{"book_id": {book.ID}})
	page = parse(t, f.serve(f.withFlash(t, f.librarian, rec)).Body.String())
	if fl := byID(page, "flash"); attr(fl, "data-kind") != "success" {
		t.Fatalf("remove: %q", textOf(fl))
	}
	if c, err := f.lib.Covers.Image(context.Background(), "maple.example.org", book.ID); err == nil {
		t.Fatalf("the removed cover is still served: %+v", c.Image.Width)
	}
}
