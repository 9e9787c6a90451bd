package library_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
)

func TestValidateBookDetails(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	many := make([]string, 21)
	for i := range many {
		many[i] = "Subject"
	}
	tests := []struct {
		name string
		d    library.BookDetails
		want []string // the fields refused; none: valid
	}{
		{name: "Empty", d: library.BookDetails{}},
		{name: "Full", d: library.BookDetails{Publisher: "Puffin", PublishedYear: 2027, Subjects: []string{"Foxes", "Farms"},
			Genre: "Fiction", CallNumber: "FIC DAH", ReadingLevel: "13.0", AgeMin: 7, AgeMax: 11}},
		{name: "LevelWhole", d: library.BookDetails{ReadingLevel: "3"}},
		{name: "LevelZero", d: library.BookDetails{ReadingLevel: "0.0"}},
		{name: "YearNextYearPlusOne", d: library.BookDetails{PublishedYear: 2028}, want: []string{"published_year"}},
		{name: "YearTooOld", d: library.BookDetails{PublishedYear: 999}, want: []string{"published_year"}},
		{name: "YearFirst", d: library.BookDetails{PublishedYear: 1000}},
		{name: "PublisherLong", d: library.BookDetails{Publisher: strings.Repeat("é", 201)}, want: []string{"publisher"}},
		{name: "PublisherAtLimit", d: library.BookDetails{Publisher: strings.Repeat("é", 200)}},
		{name: "TooManySubjects", d: library.BookDetails{Subjects: many}, want: []string{"subjects"}},
		{name: "SubjectLong", d: library.BookDetails{Subjects: []string{strings.Repeat("a", 201)}}, want: []string{"subjects"}},
		{name: "SubjectControl", d: library.BookDetails{Subjects: []string{"a\x00b"}}, want: []string{"subjects"}},
		{name: "GenreLong", d: library.BookDetails{Genre: strings.Repeat("g", 65)}, want: []string{"genre"}},
		{name: "CallNumberLong", d: library.BookDetails{CallNumber: strings.Repeat("9", 65)}, want: []string{"call_number"}},
		{name: "CallNumberControl", d: library.BookDetails{CallNumber: "FIC\x07"}, want: []string{"call_number"}},
		{name: "LevelTwoDecimals", d: library.BookDetails{ReadingLevel: "3.25"}, want: []string{"reading_level"}},
		{name: "LevelAbove13", d: library.BookDetails{ReadingLevel: "13.1"}, want: []string{"reading_level"}},
		{name: "LevelNegative", d: library.BookDetails{ReadingLevel: "-1"}, want: []string{"reading_level"}},
		{name: "LevelWord", d: library.BookDetails{ReadingLevel: "easy"}, want: []string{"reading_level"}},
		{name: "LevelPointOnly", d: library.BookDetails{ReadingLevel: "3."}, want: []string{"reading_level"}},
		{name: "LevelLexile", d: library.BookDetails{ReadingLevel: "650L"}, want: []string{"reading_level"}},
		{name: "AgeNegative", d: library.BookDetails{AgeMin: -1}, want: []string{"age_min"}},
		{name: "AgeTooOld", d: library.BookDetails{AgeMax: 22}, want: []string{"age_max"}},
		{name: "AgesCrossed", d: library.BookDetails{AgeMin: 10, AgeMax: 8}, want: []string{"age_max"}},
		{name: "OnlyMin", d: library.BookDetails{AgeMin: 10}},
		{name: "OnlyMax", d: library.BookDetails{AgeMax: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := library.ValidateBookDetails(tt.d, now)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("ValidateBookDetails = %v, want nil", err)
				}
				return
			}
			if fields := fieldsOf(t, err); !sameFieldSet(fields, tt.want) {
				t.Errorf("fields = %v, want %v", fields, tt.want)
			}
		})
	}
}

func TestReadingLevelErrorSaysOneDecimal(t *testing.T) {
	fields := fieldsOf(t, library.ValidateBookDetails(library.BookDetails{ReadingLevel: "3.25"}, time.Now()))
	if msg, _ := fields["reading_level"].(string); !strings.Contains(msg, "one decimal place") {
		t.Errorf("reading_level message = %q, want it to say one decimal place", msg)
	}
}

func TestBookDetailsNormalized(t *testing.T) {
	got := library.BookDetails{
		Publisher: "  Puffin   Books ", Subjects: []string{" Foxes  and farms ", "  ", "Farms"},
		Genre: " Graphic   novel ", CallNumber: " FIC  DAH ", ReadingLevel: " 03 ",
	}.Normalized()
	want := library.BookDetails{
		Publisher: "Puffin Books", Subjects: []string{"Foxes and farms", "Farms"},
		Genre: "Graphic novel", CallNumber: "FIC DAH", ReadingLevel: "3.0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalized = %#v, want %#v", got, want)
	}
	if bad := (library.BookDetails{ReadingLevel: " 3.25 "}).Normalized(); bad.ReadingLevel != "3.25" {
		t.Errorf("an invalid level normalises to %q, want it trimmed and kept for the error", bad.ReadingLevel)
	}
}

func TestValidateBookDraftChecksDetails(t *testing.T) {
	d := library.BookDraft{Title: "T", Author: "A", BookDetails: library.BookDetails{ReadingLevel: "14", AgeMin: 30}}
	if fields := fieldsOf(t, library.ValidateBookDraft(d)); !sameFieldSet(fields, []string{"reading_level", "age_min"}) {
		t.Errorf("fields = %v, want reading_level and age_min", fields)
	}
	n := library.BookDraft{Title: "T", Author: "A", BookDetails: library.BookDetails{Genre: " fiction "}}.Normalized()
	if n.Genre != "fiction" {
		t.Errorf("Normalized genre = %q, want fiction", n.Genre)
	}
}
