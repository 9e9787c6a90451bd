package library

import (
	"bytes"
	"errors"
	"io"
)

// Upload is an uploaded file kept aside while it is read: each pass over
// it opens it again, so no pass holds the whole file in memory.
type Upload struct {
	Open func() (io.ReadCloser, error)
	Size int64
	// Remove deletes the kept file; nil for a file held in memory.
	Remove func()
}

// BytesUpload is an Upload of a file already in memory.
func BytesUpload(data []byte) Upload {
	return Upload{Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		return bytesFile{bytes.NewReader(data)}, nil
	}}
}

// bytesFile is an opened BytesUpload: like a spooled file, it also reads
// at any offset.
type bytesFile struct{ *bytes.Reader }

func (bytesFile) Close() error { return nil }

// Release deletes the kept file, if any.
func (u Upload) Release() {
	if u.Remove != nil {
		u.Remove()
	}
}

// ReadAtCloser is an opened upload read at any offset.
type ReadAtCloser interface {
	io.ReaderAt
	io.Closer
}

// errNoReadAt: the upload's Open returns a reader that only streams.
var errNoReadAt = errors.New("upload: the file cannot be read at an offset")

// OpenAt opens the upload to be read at any offset, as a zip archive is
// (its directory is at its end): what Open returns must be an io.ReaderAt,
// as a spooled file and a BytesUpload are.
func (u Upload) OpenAt() (ReadAtCloser, error) {
	if u.Open == nil {
		return nil, errNoReadAt
	}
	f, err := u.Open()
	if err != nil {
		return nil, err
	}
	if ra, ok := f.(ReadAtCloser); ok {
		return ra, nil
	}
	_ = f.Close()
	return nil, errNoReadAt
}
