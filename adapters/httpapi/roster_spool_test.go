package httpapi

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"slices"
	"testing"

	"github.com/readinglibrary/service/adapters/uploadspool"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
)

// rosterSpool is a handler whose roster bodies go to a spool in dir.
func rosterSpool(t *testing.T) (*handler, string) {
	t.Helper()
	dir := t.TempDir()
	spool, err := uploadspool.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &handler{deps: Deps{Uploads: spool}}, dir
}

func spooled(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func readRoster(t *testing.T, h *handler, contentType string, body []byte) (library.Upload, map[string]library.Upload, error) {
	t.Helper()
	r := httptest.NewRequest("POST", "/api/library/students/sync", bytes.NewReader(body))
	r.ContentLength = -1
	r.Header.Set("Content-Type", contentType)
	up, err := h.readRosterUpload(httptest.NewRecorder(), r)
	t.Cleanup(up.Release)
	if up.Zip.Open != nil {
		return up.Zip, nil, err
	}
	return up.CSV, up.Files, err
}

func multipartOf(t *testing.T, parts [][2]string, pad int) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		w, err := mw.CreateFormFile(p[0], p[0])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(p[1]))
	}
	if pad > 0 {
		w, _ := mw.CreateFormField("padding")
		_, _ = w.Write(bytes.Repeat([]byte("x"), pad))
	}
	_ = mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

// The roster route keeps its body in the upload spool: a CSV or a zip as
// one file, each part of a multipart body as a file of its own; a sync's
// files go when it is released; a body past the cap is refused as too
// large before what its parts say, and leaves no file behind.
func TestRosterBodyIsSpooled(t *testing.T) {
	h, dir := rosterSpool(t)
	csv := "name,student_number\nAnn,1\n"
	file, _, err := readRoster(t, h, "text/csv", []byte(csv))
	if err != nil || file.Size != int64(len(csv)) || spooled(t, dir) != 1 {
		t.Fatalf("CSV: %+v, %v, %d files spooled", file, err, spooled(t, dir))
	}
	file.Release()

	parts := [][2]string{{"users.csv", "sourcedId\n"}, {"orgs.csv", "sourcedId,name,type\n"}, {"manifest.csv", "propertyName,value\n"}}
	body, ctype := multipartOf(t, parts, 0)
	_, files, err := readRoster(t, h, ctype, body)
	if err != nil || len(files) != 3 || spooled(t, dir) != 3 {
		t.Fatalf("parts: %d files, %v, %d spooled", len(files), err, spooled(t, dir))
	}
	for _, p := range parts {
		f, err := files[p[0]].Open()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(f)
		f.Close()
		if string(got) != p[1] {
			t.Errorf("%s reads %q, want %q", p[0], got, p[1])
		}
	}
	for _, f := range files {
		f.Release()
	}
	if n := spooled(t, dir); n != 0 {
		t.Fatalf("%d files left after the release", n)
	}

	twice, twiceType := multipartOf(t, append(parts, parts[0]), 0)
	twiceBig, twiceBigType := multipartOf(t, append(parts, parts[0]), roster.MaxRosterBytes)
	cut := body[:len(body)-20]
	for name, c := range map[string]struct {
		ctype string
		body  []byte
		code  string
	}{
		"a CSV past the cap":             {"text/csv", bytes.Repeat([]byte("x"), roster.MaxRosterBytes+1), errs.CodePayloadTooLarge},
		"a zip past the cap":             {"application/zip", bytes.Repeat([]byte("x"), roster.MaxRosterBytes+1), errs.CodePayloadTooLarge},
		"a part twice":                   {twiceType, twice, errs.CodeValidationFailed},
		"a part twice, past the cap":     {twiceBigType, twiceBig, errs.CodePayloadTooLarge},
		"no boundary":                    {"multipart/form-data", []byte("x"), errs.CodeMalformedJSON},
		"no boundary, past the cap":      {"multipart/form-data", bytes.Repeat([]byte("x"), roster.MaxRosterBytes+1), errs.CodePayloadTooLarge},
		"a part cut short":               {ctype, cut, errs.CodeMalformedJSON},
		"a part cut short, past the cap": {ctype, append(slices.Clip(cut), bytes.Repeat([]byte("x"), roster.MaxRosterBytes)...), errs.CodePayloadTooLarge},
	} {
		_, _, err := readRoster(t, h, c.ctype, c.body)
		if got := errs.CodeOf(err); got != c.code {
			t.Errorf("%s: %v (%s), want %s", name, err, got, c.code)
		}
		if n := spooled(t, dir); n != 0 {
			t.Errorf("%s: %d files left", name, n)
		}
	}
}

// A student file or a scanner file (any body that is a file) is kept in
// the upload spool too, not in memory: it reads back whole, goes when it
// is released, and a body past the 1 MiB of any body is refused as too
// large and leaves nothing behind.
func TestFileBodyIsSpooled(t *testing.T) {
	h, dir := rosterSpool(t)
	post := func(body []byte, length int64) (*httptest.ResponseRecorder, library.Upload, bool) {
		r := httptest.NewRequest("POST", "/api/library/students/import", bytes.NewReader(body))
		r.ContentLength = length
		w := httptest.NewRecorder()
		_, file, ok := h.schoolAndFile(w, r)
		t.Cleanup(file.Release)
		return w, file, ok
	}
	text := "name,email\nAnn Lee,ann@example.org\n"
	_, file, ok := post([]byte(text), -1)
	if !ok || spooled(t, dir) != 1 {
		t.Fatalf("kept: %v, %d files spooled", ok, spooled(t, dir))
	}
	f, err := file.Open()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != text {
		t.Errorf("the kept file reads %q, want %q", got, text)
	}
	file.Release()
	if n := spooled(t, dir); n != 0 {
		t.Fatalf("%d files left after the release", n)
	}
	big := bytes.Repeat([]byte("x"), maxBodyBytes+1)
	for name, length := range map[string]int64{"without a length": -1, "with its length": int64(len(big))} {
		w, _, ok := post(big, length)
		if ok || w.Code != 413 || !bytes.Contains(w.Body.Bytes(), []byte(errs.CodePayloadTooLarge)) {
			t.Errorf("%s: kept %v, %d %s; want 413 %s", name, ok, w.Code, w.Body, errs.CodePayloadTooLarge)
		}
		if n := spooled(t, dir); n != 0 {
			t.Errorf("%s: %d files left", name, n)
		}
	}
}
