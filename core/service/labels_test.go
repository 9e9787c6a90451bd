package service_test

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

func TestCopyLabels(t *testing.T) {
	lf := newLibFixture(t)
	book, copies := lf.addBook(t, lf.librarian, "Matilda", 3)
	lf.lend(t, copies[1], lf.student) // a lent copy keeps its label
	bookB, _ := lf.addBook(t, lf.librarianB, "Heidi", 1)
	empty, _ := lf.addBook(t, lf.librarian, "Empty Shelf", 0)
	wantCodes := []string{}
	for _, c := range copies {
		wantCodes = append(wantCodes, c.Code)
	}
	slices.Sort(wantCodes)

	t.Run("OK", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			caller user.Account
			school string
		}{{"Librarian", lf.librarian, ""}, {"Admin", lf.admin, libSchoolA}} {
			got, err := lf.lib.Holdings.CopyLabels(as(tc.caller), tc.school, book.ID, 1, collection.DefaultLabelsPerPage)
			if err != nil {
				t.Fatalf("%s: CopyLabels error = %v", tc.name, err)
			}
			var codes []string
			for _, c := range got.Copies {
				codes = append(codes, c.Code)
			}
			if got.School.ID != libSchoolA || got.Book.Title != "Matilda" || !slices.Equal(codes, wantCodes) {
				t.Errorf("%s: got school %s, book %q, codes %v; want %s, Matilda, %v", tc.name, got.School.ID, got.Book.Title, codes, libSchoolA, wantCodes)
			}
		}
	})
	t.Run("OtherSchoolsBookIsNotFound", func(t *testing.T) {
		_, err := lf.lib.Holdings.CopyLabels(as(lf.librarian), "", bookB.ID, 1, collection.DefaultLabelsPerPage)
		wantErr(t, err, errs.NotFound, "book_not_found")
	})
	t.Run("OtherSchoolNamedIsForbidden", func(t *testing.T) {
		_, err := lf.lib.Holdings.CopyLabels(as(lf.librarian), libSchoolB, bookB.ID, 1, collection.DefaultLabelsPerPage)
		wantErr(t, err, errs.Forbidden, "forbidden")
	})
	t.Run("UnknownBookIsNotFound", func(t *testing.T) {
		_, err := lf.lib.Holdings.CopyLabels(as(lf.librarian), "", uuid.NewString(), 1, collection.DefaultLabelsPerPage)
		wantErr(t, err, errs.NotFound, "book_not_found")
	})
	t.Run("NoCopiesIsNotFound", func(t *testing.T) {
		_, err := lf.lib.Holdings.CopyLabels(as(lf.librarian), "", empty.ID, 1, collection.DefaultLabelsPerPage)
		wantErr(t, err, errs.NotFound, "copy_not_found")
	})
	t.Run("BadBookID", func(t *testing.T) {
		for _, id := range []string{"", "not-a-uuid"} {
			e := wantErr(t, func() error {
				_, err := lf.lib.Holdings.CopyLabels(as(lf.librarian), "", id, 1, collection.DefaultLabelsPerPage)
				return err
			}(), errs.Invalid, "validation_failed")
			wantField(t, e, "book_id")
		}
	})
	t.Run("AdminWithoutSchool", func(t *testing.T) {
		e := wantErr(t, func() error {
			_, err := lf.lib.Holdings.CopyLabels(as(lf.admin), "", book.ID, 1, collection.DefaultLabelsPerPage)
			return err
		}(), errs.Invalid, "validation_failed")
		wantField(t, e, "schoolId")
	})
	t.Run("ReaderHasNoSchool", func(t *testing.T) {
		_, err := lf.lib.Holdings.CopyLabels(as(lf.reader), "", book.ID, 1, collection.DefaultLabelsPerPage)
		wantErr(t, err, errs.Forbidden, "forbidden")
	})
}

// A spine label takes the copy's own call number (an item's shelf mark
// from an import) before the book's, the copy's location and the school's
// prefix.
func TestSpineLabelsOfCopies(t *testing.T) {
	var l collection.CopyLabels
	l.School.Settings.LabelPrefix = "MGS"
	l.Book.CallNumber = "FIC DAH"
	l.Copies = []library.Copy{{Code: "A"}, {Code: "B", CallNumber: "REF 823 DAH", Location: "Reference"}, {Code: "C", Location: "Juniors"}}
	got := l.SpineLabels()
	want := []ports.SpineLabel{
		{Prefix: "MGS", CallNumber: "FIC DAH"},
		{Prefix: "MGS", CallNumber: "REF 823 DAH", Location: "Reference"},
		{Prefix: "MGS", CallNumber: "FIC DAH", Location: "Juniors"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("spine labels %+v, want %+v", got, want)
	}
}
