package porttest

// The covers' contract.

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Covers", Covers)

// Covers checks the ports.CoverRepository contract.
func Covers(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"PutGetKnownDelete", testCoverPutGet},
	})
}

func checkCover(t *testing.T, call string, got, want library.Cover) {
	t.Helper()
	if !bytes.Equal(got.Image.JPEG, want.Image.JPEG) || !sameTime(got.UpdatedAt, want.UpdatedAt) {
		t.Errorf("%s: %d image bytes at %v, want %d at %v", call, len(got.Image.JPEG), got.UpdatedAt, len(want.Image.JPEG), want.UpdatedAt)
	}
	got.Image.JPEG, got.UpdatedAt = want.Image.JPEG, want.UpdatedAt
	if got.SchoolID != want.SchoolID || got.BookID != want.BookID || got.Image.Width != want.Image.Width || got.Image.Height != want.Image.Height ||
		got.ETag != want.ETag || got.Source != want.Source || got.Missing != want.Missing || got.Removed != want.Removed {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

// A cover reads back byte for byte, only in its school; a second put
// replaces it (a missing record after an image too); Known tells images
// from notes, and a deletion is idempotent.
func testCoverPutGet(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	withImage := library.Cover{SchoolID: school, BookID: uuid.NewString(), Image: library.CoverImage{JPEG: []byte{0xFF, 0xD8, 0, 1, 2, 0xFF, 0xD9}, Width: 280, Height: 360},
		ETag: `"abc"`, Source: library.CoverUploaded, UpdatedAt: base}
	missing := library.Cover{SchoolID: school, BookID: uuid.NewString(), Source: library.CoverFetched, Missing: true, UpdatedAt: base}
	for _, c := range []library.Cover{withImage, missing} {
		must(t, "Put", r.Covers.Put(ctx(t), c))
		got, err := r.Covers.Get(ctx(t), school, c.BookID)
		must(t, "Get", err)
		checkCover(t, "Get", got, c)
	}
	_, err := r.Covers.Get(ctx(t), other, withImage.BookID)
	wantErr(t, "Get from another school", err, errs.NotFound, "cover_not_found")
	_, err = r.Covers.Get(ctx(t), school, uuid.NewString())
	wantErr(t, "Get of a book without a cover", err, errs.NotFound, "cover_not_found")

	known, err := r.Covers.Known(ctx(t), school, []string{withImage.BookID, missing.BookID, uuid.NewString()})
	must(t, "Known", err)
	if len(known) != 2 || !known[withImage.BookID].Present || known[missing.BookID].Present || known[missing.BookID].Removed ||
		!sameTime(known[missing.BookID].NotedAt, base) || !sameTime(known[withImage.BookID].NotedAt, base) {
		t.Errorf("Known = %+v, want the image present and the missing record not, both noted at %v", known, base)
	}
	if known, err = r.Covers.Known(ctx(t), other, []string{withImage.BookID}); err != nil || len(known) != 0 {
		t.Errorf("Known from another school = %v, %v", known, err)
	}

	removed := library.Cover{SchoolID: school, BookID: withImage.BookID, Source: library.CoverUploaded, Removed: true, UpdatedAt: base.Add(1e9)}
	must(t, "Put over an image", r.Covers.Put(ctx(t), removed))
	got, err := r.Covers.Get(ctx(t), school, withImage.BookID)
	must(t, "Get after the second put", err)
	checkCover(t, "Get after the second put", got, removed)
	known, err = r.Covers.Known(ctx(t), school, []string{withImage.BookID})
	must(t, "Known after the removal", err)
	if st := known[withImage.BookID]; st.Present || !st.Removed || !sameTime(st.NotedAt, removed.UpdatedAt) {
		t.Errorf("Known after the removal = %+v, want removed, noted at %v", st, removed.UpdatedAt)
	}

	must(t, "Delete from another school", r.Covers.Delete(ctx(t), other, missing.BookID))
	if _, err := r.Covers.Get(ctx(t), school, missing.BookID); err != nil {
		t.Errorf("another school's Delete removed the record: %v", err)
	}
	must(t, "Delete", r.Covers.Delete(ctx(t), school, missing.BookID))
	must(t, "Delete again", r.Covers.Delete(ctx(t), school, missing.BookID))
	_, err = r.Covers.Get(ctx(t), school, missing.BookID)
	wantErr(t, "Get after Delete", err, errs.NotFound, "cover_not_found")
}
