package coversource

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// A local cover service: the source asks it by ISBN and tells a cover, a
// missing one, a failing service and an oversized answer apart, keeping
// the URL out of what a user reads.
func TestCoverAgainstALocalService(t *testing.T) {
	img := bytes.Repeat([]byte{0xFF}, 1000)
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		switch r.URL.Path {
		case "/b/isbn/9780140328721-L.jpg":
			_, _ = w.Write(img)
		case "/b/isbn/9780439708180-L.jpg":
			w.WriteHeader(http.StatusInternalServerError)
		case "/b/isbn/9781234567897-L.jpg":
			_, _ = w.Write(make([]byte, library.MaxCoverBytes+1))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	src, err := New(srv.Client(), srv.URL+"/b/isbn/{isbn}-L.jpg?default=false")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, err := src.Cover(ctx, "978-0-14-032872-1"); err != nil || !bytes.Equal(got, img) {
		t.Fatalf("a cover = %d bytes, %v", len(got), err)
	}
	if asked[0] != "/b/isbn/9780140328721-L.jpg" {
		t.Fatalf("asked %q, want the normalised ISBN", asked[0])
	}
	cases := []struct {
		isbn string
		kind errs.Kind
		code string
	}{
		{"9780306406157", errs.NotFound, "cover_not_found"},
		{"9780439708180", errs.Unavailable, "unavailable"},
		{"9781234567897", errs.Invalid, "cover_too_large"},
		{"12345", errs.Invalid, ""}, // the kind's default code: validation_failed
	}
	for _, c := range cases {
		_, err := src.Cover(ctx, c.isbn)
		e, ok := errs.As(err)
		if !ok || e.Kind != c.kind || e.Code != c.code {
			t.Errorf("%s: %v, want %v %s", c.isbn, err, c.kind, c.code)
			continue
		}
		if strings.Contains(e.Message, srv.URL) || strings.Contains(e.Message, "127.0.0.1") {
			t.Errorf("%s: the message names the service: %q", c.isbn, e.Message)
		}
	}
	for _, bad := range []string{"", "ftp://x/{isbn}", "https://covers.example.org/b.jpg", "not a url {isbn}"} {
		if _, err := New(srv.Client(), bad); err == nil {
			t.Errorf("template %q accepted", bad)
		}
	}
}
