package library_test

import (
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

func TestReviewDraftClean(t *testing.T) {
	ok := []struct{ in, want string }{
		{"  Great book!\r\n", "Great book!"},
		{"One\r\n\r\n\r\n\r\nTwo", "One\n\nTwo"},
		{"", ""},
		{strings.Repeat("ß", library.MaxReviewRunes), strings.Repeat("ß", library.MaxReviewRunes)},
		{"<script>alert(1)</script>", "<script>alert(1)</script>"}, // kept as text; pages escape it
	}
	for _, c := range ok {
		got, err := library.ReviewDraft{Rating: 3, Text: c.in}.Clean()
		if err != nil || got.Text != c.want || got.Rating != 3 {
			t.Errorf("Clean(%q) = %+v, %v; want %q", c.in, got, err, c.want)
		}
	}
	bad := []struct {
		d     library.ReviewDraft
		field string
	}{
		{library.ReviewDraft{Rating: 0}, "rating"},
		{library.ReviewDraft{Rating: 6}, "rating"},
		{library.ReviewDraft{Rating: 4, Text: strings.Repeat("a", library.MaxReviewRunes+1)}, "text"},
		{library.ReviewDraft{Rating: 4, Text: "tab\tinside"}, "text"},
		{library.ReviewDraft{Rating: 4, Text: "bad \xff byte"}, "text"},
	}
	for _, c := range bad {
		_, err := c.d.Clean()
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.Invalid || e.Details["fields"].(map[string]any)[c.field] == nil {
			t.Errorf("Clean(%+v) = %v, want a validation error on %s", c.d, err, c.field)
		}
	}
	if id1, id2 := library.ReviewID("s", "b"), library.ReviewID("s", "b"); id1 != id2 || id1 == library.ReviewID("s", "c") {
		t.Error("ReviewID is not one id per student and title")
	}
}
