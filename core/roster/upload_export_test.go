package roster

import (
	"io"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// BytesUploads is files as uploads held in memory, for the tests of the
// functions that read uploads.
func BytesUploads(files map[string][]byte) map[string]library.Upload {
	out := make(map[string]library.Upload, len(files))
	for name, b := range files {
		out[name] = library.BytesUpload(b)
	}
	return out
}

// ReadUpload reads an upload whole; nil for no upload.
func ReadUpload(t testing.TB, u library.Upload) []byte {
	t.Helper()
	if u.Open == nil {
		return nil
	}
	f, err := u.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadUploads reads every upload whole, by name; nil for nil.
func ReadUploads(t testing.TB, files map[string]library.Upload) map[string][]byte {
	t.Helper()
	if files == nil {
		return nil
	}
	out := make(map[string][]byte, len(files))
	for name, u := range files {
		out[name] = ReadUpload(t, u)
	}
	return out
}
