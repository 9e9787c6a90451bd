package library

import (
	"bytes"
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
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

// Release deletes the kept file, if any.
func (u Upload) Release() {
	if u.Remove != nil {
		u.Remove()
	}
}
