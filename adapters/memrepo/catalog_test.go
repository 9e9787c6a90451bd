package memrepo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/memrepo"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/user"
)

// BenchmarkBooksList lists pages of a 10,000-book catalog. Once the sorted
// views exist, a List is one pass over the books.
func BenchmarkBooksList(b *testing.B) {
	books := memrepo.NewBooks()
	ctx := context.Background()
	genres := []string{"fantasy", "history", "science-fiction", "romance", "mystery"}
	levels := []string{user.LevelBeginner, user.LevelIntermediate, user.LevelAdvanced}
	n := 0
	newID := func(p string) string { n++; return fmt.Sprintf("%s%08d", p, n) }
	for i := range 10000 {
		d := catalog.BookDraft{
			Title: fmt.Sprintf("Book %d of the Long Series", i), Author: fmt.Sprintf("Author %d", i%300),
			Genre: genres[i%len(genres)], ReadingLevel: levels[i%len(levels)], Pages: 10,
			Rating: float64(i%50) / 10, PublishedDate: fmt.Sprintf("%04d-01-01", 1900+i%120),
			Chapters: []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 10, Text: "Text."}},
		}
		bk, texts, err := catalog.NewBook(fmt.Sprintf("bk_%05d", i), d, newID, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if err := books.Create(ctx, bk, texts); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		q    catalog.Query
	}{
		{"all/title", catalog.Query{Page: 1, Limit: 20, Sort: catalog.SortTitle}},
		{"all/rating/page 200", catalog.Query{Page: 200, Limit: 20, Sort: catalog.SortRatingDesc}},
		{"genre/published", catalog.Query{Page: 3, Limit: 20, Genre: "history", Sort: catalog.SortPublishedDesc}},
		{"search 2 terms", catalog.Query{Page: 1, Limit: 20, Terms: catalog.QueryTerms("seri auth"), ReadingLevel: user.LevelAdvanced}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := books.List(ctx, c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
