package webapp

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/adapters/uploadspool"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// postForm posts a multipart form of fields and files (name → content;
// a file is named by its field) as caller.
func (f *fixture) postForm(caller *user.Account, target string, fields, files map[string][]byte) *httptest.ResponseRecorder {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for name, b := range fields {
		w, _ := mw.CreateFormField(name)
		_, _ = w.Write(b)
	}
	for name, b := range files {
		w, _ := mw.CreateFormFile(name, name+".zip")
		_, _ = w.Write(b)
	}
	_ = mw.Close()
	r := httptest.NewRequest(http.MethodPost, target, &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(*caller)))
	rec := httptest.NewRecorder()
	f.router.ServeHTTP(rec, r)
	return rec
}

func sampleRosterZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range roster.OneRosterFiles {
		b, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster", n))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := zw.Create(n)
		_, _ = w.Write(b)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// findByName is the first element with the name attribute.
func findByName(n *html.Node, name string) *html.Node {
	if n.Type == html.ElementNode && attr(n, "name") == name {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findByName(c, name); found != nil {
			return found
		}
	}
	return nil
}

// TestDeskOneRosterIsSpooled: at the desk the OneRoster zip goes through
// the upload spool, the check carries the very zip into its apply form
// (written from the spooled file), the apply reads the carried zip back
// through the spool, and neither leaves a file behind. A zip past the cap
// and a carried zip that is not base64 are refused as before.
func TestDeskOneRosterIsSpooled(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	spool, err := uploadspool.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingSpool{UploadSpool: spool}
	f.app.deps.Uploads = counted
	left := func() int {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	const path = "/library/maple.example.org/roster/oneroster"
	zipped := sampleRosterZip(t)

	rec := f.postForm(&f.librarian, path+"/check", nil, map[string][]byte{"oneroster": zipped})
	if rec.Code != http.StatusOK {
		t.Fatalf("check: %d %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec.Body.String())
	if got := textOf(byID(doc, "sync-summary")); !strings.Contains(got, "4 to add") {
		t.Fatalf("check summary: %q", got)
	}
	carried := findByName(byID(doc, "sync-apply-form"), "zip")
	if carried == nil || textOf(carried) != base64.StdEncoding.EncodeToString(zipped) {
		t.Fatalf("the apply form does not carry the zip checked")
	}
	if n := left(); n != 0 || counted.n != 1 {
		t.Fatalf("the check spooled %d files and left %d", counted.n, n)
	}

	rec = f.postForm(&f.librarian, path+"/sync", map[string][]byte{"zip": []byte(textOf(carried))}, nil)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	if rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/students?search=Nguyen", nil); !strings.Contains(rec.Body.String(), "Ava Nguyen") {
		t.Fatal("the apply did not add Ava")
	}
	if n := left(); n != 0 || counted.n != 2 {
		t.Fatalf("the check and the apply spooled %d files and left %d", counted.n, n)
	}

	big := bytes.Repeat([]byte("x"), roster.MaxRosterBytes+1)
	if rec := f.postForm(&f.librarian, path+"/check", nil, map[string][]byte{"oneroster": big}); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a zip past the cap: %d", rec.Code)
	}
	rec = f.postForm(&f.librarian, path+"/sync", map[string][]byte{"zip": []byte("not base64!")}, nil)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "check the roster again") {
		t.Errorf("a carried zip that is not base64: %d", rec.Code)
	}
	if rec := f.postForm(&f.librarian, path+"/check", nil, nil); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "choose the OneRoster zip") {
		t.Errorf("no zip chosen: %d", rec.Code)
	}
	if n := left(); n != 0 {
		t.Errorf("the refusals left %d files in the spool", n)
	}
}

// countingSpool counts the files spooled.
type countingSpool struct {
	ports.UploadSpool
	n int
}

func (c *countingSpool) Spool(r io.Reader) (library.Upload, error) {
	c.n++
	return c.UploadSpool.Spool(r)
}
