package ports

import (
	"io"

	"github.com/readinglibrary/service/core/library"
)

// UploadSpool keeps uploaded files on disk while they are read, so an
// upload costs disk, not memory.
type UploadSpool interface {
	// Spool copies r into a new file that only the service can read and
	// returns it; its Release deletes it. When r fails (a body past its
	// cap, say) r's error is returned and no file is left.
	Spool(r io.Reader) (library.Upload, error)
}
