package test

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// coverServer is a cover service on loopback: it answers an image for the
// ISBNs it has and 404 for the others, and counts what it is asked.
type coverServer struct {
	*httptest.Server
	mu    sync.Mutex
	asked map[string]int
}

func startCoverServer(t *testing.T, covers map[string][]byte) *coverServer {
	t.Helper()
	cs := &coverServer{asked: map[string]int{}}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		isbn := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/b/isbn/"), "-L.jpg")
		cs.mu.Lock()
		cs.asked[isbn]++
		cs.mu.Unlock()
		img, ok := covers[isbn]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/jpeg")
		_, _ = w.Write(img)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *coverServer) count(isbn string) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.asked[isbn]
}

// coverFile reads a real image of the cover normaliser's test files.
func coverFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "adapters", "coverimage", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The service serves covers itself: fetched once by ISBN from the cover
// source and kept (a second view and a revalidation do not ask again), a
// title the source lacks noted so the source is not asked twice, a
// librarian's upload replacing a cover, and a removal keeping the source
// from bringing it back. Bad uploads change nothing; staff upload nothing.
func TestCoversFromTheSourceAndTheDesk(t *testing.T) {
	const found, missing = "9780140328721", "9780306406157"
	src := startCoverServer(t, map[string][]byte{found: coverFile(t, "go-turns-two-280x360.jpeg")})
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_COVER_SOURCE": src.URL + "/b/isbn/{isbn}-L.jpg"})
	s := w.s
	withCover, _ := w.addBook(t, w.libA, fmt.Sprintf(`{"title":"Covered","author":"C. Over","copies":1,"isbn":%q}`, found))
	without, _ := w.addBook(t, w.libA, fmt.Sprintf(`{"title":"Bare","author":"B. Are","copies":1,"isbn":%q}`, missing))
	cover := func(bookID string, headers map[string]string) response {
		return s.do(req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID + "/cover", Headers: headers})
	}

	r := cover(withCover, nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "image/jpeg" || r.Header.Get("ETag") == "" || !strings.Contains(r.Header.Get("Cache-Control"), "max-age") {
		t.Fatalf("the fetched cover: %d %v", r.Status, r.Header)
	}
	img, err := jpeg.Decode(bytes.NewReader(r.Body))
	if err != nil || img.Bounds().Dx() != 280 || img.Bounds().Dy() != 360 {
		t.Fatalf("the cover is no 280x360 JPEG: %v, %v", img, err)
	}
	etag := r.Header.Get("ETag")
	if again := cover(withCover, nil); again.Status != 200 || !bytes.Equal(again.Body, r.Body) || src.count(found) != 1 {
		t.Fatalf("a second view: %d, the source asked %d times; want the kept cover and one ask", again.Status, src.count(found))
	}
	if r := cover(withCover, map[string]string{"If-None-Match": etag}); r.Status != http.StatusNotModified || len(r.Body) != 0 {
		t.Fatalf("a revalidation: %d with %d bytes, want 304", r.Status, len(r.Body))
	}
	for range 2 {
		wantCode(t, "a title the source has no cover for", cover(without, nil), 404, "cover_not_found")
	}
	if n := src.count(missing); n != 1 {
		t.Fatalf("the source was asked %d times about a title it lacks, want once", n)
	}

	upload := func(token, bookID, contentType string, body []byte) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/books/" + bookID + "/cover", Token: token,
			Headers: map[string]string{"Content-Type": contentType}, Body: string(body)})
	}
	wantCode(t, "a TIFF sent as a JPEG", upload(w.libA, without, "image/jpeg", coverFile(t, "blue-purple-pink.lzwcompressed.tiff")), 422, "cover_unreadable")
	wantCode(t, "a text body", upload(w.libA, without, "text/plain", []byte("hello")), 415, "unsupported_media_type")
	if r := upload(w.staffA, without, "image/png", coverFile(t, "tux.png")); r.Status != 403 {
		t.Fatalf("staff upload: %d, want 403", r.Status)
	}
	wantCode(t, "the title after refused uploads", cover(without, nil), 404, "cover_not_found")
	r = upload(w.libA, without, "image/png", coverFile(t, "tux.png"))
	if r.Status != 200 || r.json(t)["source"] != "upload" {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	if got := cover(without, nil); got.Status != 200 || got.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("the uploaded cover: %d", got.Status)
	}

	if r := s.do(req{Method: http.MethodDelete, Path: "/api/library/books/" + withCover + "/cover", Token: w.libA}); r.Status != 200 {
		t.Fatalf("remove: %d %s", r.Status, r.Body)
	}
	wantCode(t, "a removed cover", cover(withCover, nil), 404, "cover_not_found")
	if n := src.count(found); n != 1 {
		t.Fatalf("the source was asked %d times after the removal, want still once", n)
	}
	wantCode(t, "another school's title", s.do(req{Path: "/api/library/catalog/riverside.example.org/books/" + without + "/cover"}), 404, "book_not_found")
}
