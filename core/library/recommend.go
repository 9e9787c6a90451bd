package library

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/i18n"
)

// ShelfQuery asks a school's store for books a reader may like: books of
// one genre (any of its spellings) at one of the levels.
type ShelfQuery struct {
	SchoolID string
	// Genres are the spellings of one genre as the catalogue may write it
	// (GenreSpellings); none keeps every genre.
	Genres []string
	// Levels are stored reading levels (FormatReadingLevel), with "" for
	// the books that carry none; none keeps every level.
	Levels []string
	Limit  int
}

// GenreKey is the form two genres compare in: folded words, so the app's
// "science-fiction" and a catalogue's "Science fiction" are one genre.
func GenreKey(g string) string { return strings.Join(catalog.Words(g), " ") }

// GenreSpellings are the ways a catalogue may write genre g, for a store
// lookup by exact value: as given, in lower case, with spaces for hyphens,
// and capitalised ("science-fiction", "science fiction", "Science
// fiction", "Science Fiction").
func GenreSpellings(g string) []string {
	g = NormalizeClassField(g)
	if g == "" {
		return nil
	}
	spaced := strings.Join(strings.Fields(strings.ReplaceAll(strings.ToLower(g), "-", " ")), " ")
	words := strings.Fields(spaced)
	title := make([]string, len(words))
	for i, w := range words {
		title[i] = capitalise(w)
	}
	out := []string{g, strings.ToLower(g), spaced, capitalise(spaced), strings.Join(title, " ")}
	slices.Sort(out)
	return slices.Compact(out)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// ShelfLevels are the stored reading levels in the reading range of a
// student of grade (CheckReadingRange), and "" for the books without a
// level, which their ages or nothing judge. Nil when the grade is not read:
// every level may then suit.
func ShelfLevels(grade string) []string {
	g, ok := GradeNumber(grade)
	if !ok {
		return nil
	}
	lo, hi := studentLevels(g)
	out := []string{""}
	for t := lo; t <= hi; t++ {
		out = append(out, FormatReadingLevel(t))
	}
	return out
}

// TitleRead is a title a student finished, from a loan or in the app.
type TitleRead struct {
	Title string
	Genre string
	At    time.Time
}

// ShelfReader is what a student's picks from the shelf are made from.
type ShelfReader struct {
	Grade string
	// Finished are the titles the student finished, from both sources.
	Finished []TitleRead
}

// ShelfCandidate is one of the school's books with what the student could
// do with it now.
type ShelfCandidate struct {
	Book    Book
	Copies  int
	OnShelf int
	// InApp is the app book of the same work the student may read, if any.
	InApp  *AppLink
	Rating RatingSummary
}

// ShelfPick is a candidate worth offering, with the reason for it.
type ShelfPick struct {
	ShelfCandidate
	// Reason is Why in English; Why is said in the reader's language
	// where it is shown.
	Reason     string
	Why        i18n.Text
	Confidence float64 // in [0, 1]
	// AtLevel is true when the book's level or ages were compared with the
	// student's grade and fit; false when there was nothing to compare.
	AtLevel bool
}

// FavouriteGenres are the genres of the titles the reader finished, most
// finished first (the latest finish breaking ties), at most n: the genres
// whose books the store is asked for. Each is in the spelling of its
// latest finished title.
func FavouriteGenres(finished []TitleRead, n int) []string {
	type genre struct {
		spelling string
		count    int
		latest   time.Time
	}
	byKey := map[string]*genre{}
	for _, t := range finished {
		k := GenreKey(t.Genre)
		if k == "" {
			continue
		}
		g := byKey[k]
		if g == nil {
			g = &genre{}
			byKey[k] = g
		}
		g.count++
		if g.spelling == "" || t.At.After(g.latest) {
			g.spelling, g.latest = NormalizeClassField(t.Genre), t.At
		}
	}
	all := make([]*genre, 0, len(byKey))
	for _, g := range byKey {
		all = append(all, g)
	}
	slices.SortFunc(all, func(a, b *genre) int {
		return cmp.Or(cmp.Compare(b.count, a.count), b.latest.Compare(a.latest), cmp.Compare(a.spelling, b.spelling))
	})
	out := make([]string, 0, min(n, len(all)))
	for _, g := range all[:min(n, len(all))] {
		out = append(out, g.spelling)
	}
	return out
}

// Weights of a pick's confidence: the reader's taste first, then a level
// that was checked and fits, the school's reviews, and a copy on the shelf
// over the app alone. A reader with nothing finished has no taste term, so
// every such pick stays below a pick of a genre they finished.
const (
	shelfWeightTaste   = 0.55
	shelfWeightLevel   = 0.20
	shelfWeightRating  = 0.15
	shelfWeightOnShelf = 0.10
)

// PickFromShelf ranks the candidates for a reader and returns at most
// limit picks: books the student can have now (a copy on the shelf, or the
// same work in the app), within their reading range when the book's level
// or ages say, and of a genre they finished when they finished any. No
// work appears twice (the best-ranked edition stays). Ordered by
// confidence, then title, then id, so the same input gives the same list.
func PickFromShelf(r ShelfReader, candidates []ShelfCandidate, limit int) []ShelfPick {
	taste := map[string]float64{}
	lastOf := map[string]TitleRead{}
	countOf := map[string]int{}
	most := 0.0
	for _, t := range r.Finished {
		k := GenreKey(t.Genre)
		if k == "" {
			continue
		}
		taste[k]++
		countOf[k]++
		most = math.Max(most, taste[k])
		if l, ok := lastOf[k]; !ok || t.At.After(l.At) {
			lastOf[k] = t
		}
	}
	picks := make([]ShelfPick, 0, len(candidates))
	for _, c := range candidates {
		if c.OnShelf == 0 && c.InApp == nil {
			continue
		}
		rr := CheckReadingRange(r.Grade, c.Book.BookDetails)
		if rr.Checked && !rr.InRange {
			continue
		}
		k := GenreKey(c.Book.Genre)
		if most > 0 && taste[k] == 0 {
			continue
		}
		p := ShelfPick{ShelfCandidate: c, AtLevel: rr.Checked}
		conf := 0.0
		if most > 0 {
			conf += shelfWeightTaste * taste[k] / most
		}
		if rr.Checked {
			conf += shelfWeightLevel
		}
		if c.Rating.Count > 0 {
			conf += shelfWeightRating * min(1, c.Rating.Average()/5)
		}
		if c.OnShelf > 0 {
			conf += shelfWeightOnShelf
		} else {
			conf += shelfWeightOnShelf / 2
		}
		p.Confidence = min(1, math.Round(conf*1e4)/1e4)
		p.Why = shelfReason(c.Book, rr.Checked, countOf[k], lastOf[k])
		p.Reason = p.Why.String()
		picks = append(picks, p)
	}
	slices.SortFunc(picks, func(a, b ShelfPick) int {
		return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(a.Book.Title, b.Book.Title), cmp.Compare(a.Book.ID, b.Book.ID))
	})
	out := make([]ShelfPick, 0, min(limit, len(picks)))
	works := map[string]bool{}
	for _, p := range picks {
		if len(out) == limit {
			break
		}
		w := catalog.WorkKey(p.Book.Title, p.Book.Author)
		if w == "" {
			w = "id:" + p.Book.ID
		}
		if !works[w] {
			works[w] = true
			out = append(out, p)
		}
	}
	return out
}

// shelfReason names the concrete cause, as the reading app's reasons do:
// the one finished title of the genre, or the genre when several share the
// credit, or the level alone for a reader with nothing finished.
func shelfReason(b Book, atLevel bool, sameGenre int, last TitleRead) i18n.Text {
	genre := strings.ToLower(NormalizeClassField(b.Genre))
	switch {
	case sameGenre == 1:
		return i18n.Phrase("Because you finished %s", last.Title)
	case sameGenre > 1 && atLevel:
		return i18n.Phrase("More %s at your reading level", genre)
	case sameGenre > 1:
		return i18n.Phrase("More %s, which you like to read", genre)
	case atLevel:
		return i18n.Phrase("At your reading level")
	case genre != "":
		return i18n.Phrase("A %s title from your school library", genre)
	}
	return i18n.Phrase("From your school library")
}
