package catalog_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/user"
)

func TestNewQueryValues(t *testing.T) {
	tests := []struct {
		name                       string
		page, limit                int
		genre, level, search, sort string
		want                       catalog.Query
	}{
		{
			name: "Defaults", page: 1, limit: 20,
			want: catalog.Query{Page: 1, Limit: 20, Sort: catalog.SortTitle},
		},
		{
			name: "Everything", page: 3, limit: 100, genre: "science-fiction", level: user.LevelAdvanced, search: "  Harr, POTT! ", sort: "-rating",
			want: catalog.Query{Page: 3, Limit: 100, Genre: "science-fiction", ReadingLevel: user.LevelAdvanced, Terms: []string{"harr", "pott"}, Sort: catalog.SortRatingDesc},
		},
		{
			name: "LimitOne", page: 1, limit: 1, sort: "title",
			want: catalog.Query{Page: 1, Limit: 1, Sort: catalog.SortTitle},
		},
		{
			name: "PublishedSort", page: 1, limit: 10, sort: "-published_date",
			want: catalog.Query{Page: 1, Limit: 10, Sort: catalog.SortPublishedDesc},
		},
		{
			name: "TenWords", page: 1, limit: 10, search: "a b c d e f g h i j",
			want: catalog.Query{Page: 1, Limit: 10, Sort: catalog.SortTitle, Terms: strings.Fields("a b c d e f g h i j")},
		},
		{
			name: "ElevenWordsWithDuplicates", page: 1, limit: 10, search: "a a b b c c d d e e f",
			want: catalog.Query{Page: 1, Limit: 10, Sort: catalog.SortTitle, Terms: strings.Fields("a b c d e f")},
		},
		{
			name: "GenreOf50", page: 1, limit: 10, genre: strings.Repeat("g", 50),
			want: catalog.Query{Page: 1, Limit: 10, Sort: catalog.SortTitle, Genre: strings.Repeat("g", 50)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := catalog.NewQuery(tt.page, tt.limit, tt.genre, tt.level, tt.search, tt.sort)
			if err != nil {
				t.Fatalf("NewQuery() error = %v, want nil", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NewQuery() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewQueryErrors(t *testing.T) {
	tests := []struct {
		name                       string
		page, limit                int
		genre, level, search, sort string
		want                       []string
	}{
		{name: "PageZero", page: 0, limit: 20, want: []string{"page"}},
		{name: "PageNegative", page: -1, limit: 20, want: []string{"page"}},
		{name: "LimitZero", page: 1, limit: 0, want: []string{"limit"}},
		{name: "Limit101", page: 1, limit: 101, want: []string{"limit"}},
		{name: "Level", page: 1, limit: 20, level: "expert", want: []string{"reading_level"}},
		{name: "LevelCase", page: 1, limit: 20, level: "Beginner", want: []string{"reading_level"}},
		{name: "Sort", page: 1, limit: 20, sort: "rating", want: []string{"sort"}},
		{name: "SortUnknown", page: 1, limit: 20, sort: "-title", want: []string{"sort"}},
		{name: "GenreOf51", page: 1, limit: 20, genre: strings.Repeat("g", 51), want: []string{"genre"}},
		{name: "SearchOver200", page: 1, limit: 20, search: strings.Repeat("a", 201), want: []string{"search"}},
		{name: "SearchOnlyPunctuation", page: 1, limit: 20, search: " ?!-- ... ", want: []string{"search"}},
		{name: "SearchElevenWords", page: 1, limit: 20, search: "a b c d e f g h i j k", want: []string{"search"}},
		{name: "Several", page: 0, limit: 101, level: "x", sort: "x", want: []string{"limit", "page", "reading_level", "sort"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := catalog.NewQuery(tt.page, tt.limit, tt.genre, tt.level, tt.search, tt.sort)
			if got := fieldKeys(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("field errors = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(q, catalog.Query{}) {
				t.Errorf("NewQuery() = %+v, want the zero Query on error", q)
			}
		})
	}
}

func TestQuerySkip(t *testing.T) {
	tests := []struct{ page, limit, want int }{
		{1, 20, 0},
		{2, 20, 20},
		{3, 7, 14},
		{10, 100, 900},
	}
	for _, tt := range tests {
		if got := (catalog.Query{Page: tt.page, Limit: tt.limit}).Skip(); got != tt.want {
			t.Errorf("Query{Page: %d, Limit: %d}.Skip() = %d, want %d", tt.page, tt.limit, got, tt.want)
		}
	}
}

func TestTotalPages(t *testing.T) {
	tests := []struct {
		total int64
		limit int
		want  int
	}{
		{0, 20, 0},
		{1, 20, 1},
		{20, 20, 1},
		{40, 20, 2},
		{41, 20, 3},
		{99, 100, 1},
		{5, 1, 5},
		{10, 0, 0},
	}
	for _, tt := range tests {
		if got := catalog.TotalPages(tt.total, tt.limit); got != tt.want {
			t.Errorf("TotalPages(%d, %d) = %d, want %d", tt.total, tt.limit, got, tt.want)
		}
	}
}
