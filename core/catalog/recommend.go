package catalog

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/i18n"
)

// HistoryEntry is one book in a reader's history, with how they relate to it.
type HistoryEntry struct {
	Book   Book
	Status ListStatus // Finished, CurrentlyReading or WantToRead
	At     time.Time  // when it was finished, last read or listed
}

// CandidateQuery asks the catalog for books worth scoring.
type CandidateQuery struct {
	Exclude []string // books never to recommend (finished or listed)
	Genres  []string // genres of the history
	Authors []string // authors of the history
	Level   string   // the reader's level
	Limit   int
}

// Recommendation is one suggested book with the concrete reason for it.
type Recommendation struct {
	Book Book
	// Reason is Why in English; Why is said in the reader's language
	// where it is shown.
	Reason     string
	Why        i18n.Text
	Confidence float64 // in [0, 1]
}

// DefaultRecommendations is the limit parameter's default and
// MaxRecommendations its largest value, as openapi.json documents them.
const (
	DefaultRecommendations = 10
	MaxRecommendations     = 50
)

// Candidate limits of CandidateQueryFor: enough books to rank from, bounded
// so one request's cost does not grow with the catalog.
const (
	DefaultCandidateLimit = 200
	MaxCandidateLimit     = 1000
)

// CandidateQueryFor builds the catalog query for a reader: exclude every
// history book (finished, reading or listed), ask for the genres and authors
// of the history and the reader's level, with a candidate limit large enough
// to rank from (DefaultCandidateLimit when limit <= 0, at most
// MaxCandidateLimit). Lists are sorted and never nil, so the query is the
// same for the same history in any order.
func CandidateQueryFor(level string, history []HistoryEntry, limit int) CandidateQuery {
	switch {
	case limit <= 0:
		limit = DefaultCandidateLimit
	case limit > MaxCandidateLimit:
		limit = MaxCandidateLimit
	}
	q := CandidateQuery{Exclude: []string{}, Genres: []string{}, Authors: []string{}, Level: level, Limit: limit}
	for _, h := range history {
		if h.Book.ID != "" {
			q.Exclude = append(q.Exclude, h.Book.ID)
		}
		if g := strings.TrimSpace(h.Book.Genre); g != "" {
			q.Genres = append(q.Genres, g)
		}
		if a := strings.TrimSpace(h.Book.Author); a != "" {
			q.Authors = append(q.Authors, a)
		}
	}
	for _, s := range []*[]string{&q.Exclude, &q.Genres, &q.Authors} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	return q
}

// Weights of the score. Taste (affinity) dominates so that what a reader
// chose beats what the crowd chose; popularity and rating order books within
// a taste and carry the books no taste reaches; the level term lets the
// reader's level win between otherwise equal books. An author is nearly as
// telling as a genre, and a same-author book also shares the genre most of
// the time, so author matches outrank genre-only ones even against the
// best-rated, most popular genre-only book (0.65*0.40 > 0.12+0.13).
const (
	weightAffinity   = 0.65
	weightPopularity = 0.12
	weightRating     = 0.13
	weightLevel      = 0.10

	affinityGenre  = 0.45
	affinityAuthor = 0.40
	affinityLevel  = 0.15

	// recencyBoost is the extra weight of the most recent history entry
	// over the oldest. Ranks of timestamps, not a clock, so the same input
	// always scores the same; small, so a finished book still outweighs a
	// newer one being read.
	recencyBoost = 0.2
)

// statusWeight is how much a history entry says about a reader's taste:
// a finished book most, a listed one least.
func statusWeight(s ListStatus) float64 {
	switch s {
	case Finished:
		return 1
	case CurrentlyReading:
		return 0.7
	}
	return 0.4
}

func statusRank(s ListStatus) int {
	switch s {
	case Finished:
		return 3
	case CurrentlyReading:
		return 2
	}
	return 1
}

// shelfEntry is one distinct history book and its weight.
type shelfEntry struct {
	HistoryEntry
	weight float64
}

// profile is a reader's taste: normalised affinities to genres, authors and
// levels (1 for the strongest, which counts fully only when it rests on at
// least one finished book's weight).
type profile struct {
	shelf   []shelfEntry // one per book, oldest first
	read    map[string]bool
	genres  map[string]float64
	authors map[string]float64
	levels  map[string]float64
}

func newProfile(history []HistoryEntry) profile {
	byID := map[string]HistoryEntry{}
	for _, h := range history {
		cur, ok := byID[h.Book.ID]
		if !ok || statusRank(h.Status) > statusRank(cur.Status) ||
			(statusRank(h.Status) == statusRank(cur.Status) && h.At.After(cur.At)) {
			byID[h.Book.ID] = h
		}
	}
	p := profile{read: map[string]bool{}, genres: map[string]float64{}, authors: map[string]float64{}, levels: map[string]float64{}}
	var times []time.Time
	for id, h := range byID {
		p.read[id] = true
		p.shelf = append(p.shelf, shelfEntry{HistoryEntry: h})
		times = append(times, h.At)
	}
	slices.SortFunc(p.shelf, func(a, b shelfEntry) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Book.ID, b.Book.ID)
	})
	slices.SortFunc(times, time.Time.Compare)
	times = slices.CompactFunc(times, time.Time.Equal)
	for i := range p.shelf {
		e := &p.shelf[i]
		boost := 0.0
		if len(times) > 1 {
			rank, _ := slices.BinarySearchFunc(times, e.At, time.Time.Compare)
			boost = recencyBoost * float64(rank) / float64(len(times)-1)
		}
		e.weight = statusWeight(e.Status) * (1 + boost)
		if g := genreKey(e.Book.Genre); g != "" {
			p.genres[g] += e.weight
		}
		if a := authorKey(e.Book.Author); a != "" {
			p.authors[a] += e.weight
		}
		if l := e.Book.ReadingLevel; l != "" {
			p.levels[l] += e.weight
		}
	}
	for _, m := range []map[string]float64{p.genres, p.authors, p.levels} {
		norm := 1.0
		for _, w := range m {
			norm = math.Max(norm, w)
		}
		for k := range m {
			m[k] /= norm
		}
	}
	return p
}

func genreKey(g string) string  { return Fold(strings.TrimSpace(g)) }
func authorKey(a string) string { return strings.Join(Words(a), " ") }

// humanGenre turns a genre slug into reader text: "science-fiction" →
// "science fiction".
func humanGenre(g string) string {
	g = strings.TrimSpace(strings.ReplaceAll(g, "-", " "))
	if g == "" {
		return "books"
	}
	return g
}

// Recommend ranks candidates for a reader and returns at most limit
// recommendations (DefaultRecommendations when limit <= 0, at most
// MaxRecommendations). readers[bookID] is how many accounts list the book.
// History books are never recommended, whatever the candidates hold, and no
// book appears twice. The result depends only on the inputs: ordered by
// confidence (descending), then book id.
func Recommend(level string, history []HistoryEntry, candidates []Book, readers map[string]int, limit int) []Recommendation {
	switch {
	case limit <= 0:
		limit = DefaultRecommendations
	case limit > MaxRecommendations:
		limit = MaxRecommendations
	}
	p := newProfile(history)
	eligible := make([]Book, 0, len(candidates))
	maxReaders := 0
	for _, b := range candidates {
		if p.read[b.ID] {
			continue
		}
		eligible = append(eligible, b)
		maxReaders = max(maxReaders, readers[b.ID])
	}
	recs := make([]Recommendation, 0, len(eligible))
	for _, b := range eligible {
		pop := 0.0
		if maxReaders > 0 {
			pop = float64(max(0, readers[b.ID])) / float64(maxReaders)
		}
		rating := b.Rating / 5
		if math.IsNaN(rating) {
			rating = 0
		}
		rating = min(1, max(0, rating))
		atLevel := b.ReadingLevel == level && level != ""
		var conf float64
		var reason i18n.Text
		if len(p.shelf) == 0 {
			conf, reason = coldStart(b, pop, rating, atLevel)
		} else {
			conf, reason = p.score(b, pop, rating, atLevel)
		}
		conf = min(1, max(0, math.Round(conf*1e4)/1e4))
		recs = append(recs, Recommendation{Book: b, Reason: reason.String(), Why: reason, Confidence: conf})
	}
	slices.SortFunc(recs, func(a, b Recommendation) int {
		if c := cmp.Compare(b.Confidence, a.Confidence); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Book.ID, b.Book.ID); c != 0 {
			return c
		}
		// The same id twice: keep the same one whatever the input order.
		return cmp.Or(cmp.Compare(a.Book.Title, b.Book.Title), cmp.Compare(a.Book.Author, b.Book.Author),
			cmp.Compare(a.Reason, b.Reason))
	})
	out := make([]Recommendation, 0, min(limit, len(recs)))
	seen := make(map[string]bool, len(recs))
	for _, r := range recs {
		if len(out) == limit {
			break
		}
		if !seen[r.Book.ID] {
			seen[r.Book.ID] = true
			out = append(out, r)
		}
	}
	return out
}

// coldStart scores a book for a reader without history: books at the
// reader's level take [0.3, 0.8] and the others [0, 0.25], so every book at
// the level comes first; within each band popularity and rating count alike.
func coldStart(b Book, pop, rating float64, atLevel bool) (float64, i18n.Text) {
	q := 0.5*pop + 0.5*rating
	if atLevel {
		return 0.3 + 0.5*q, i18n.Phrase("Popular with readers at your level")
	}
	return 0.25 * q, highlyRated(b.Genre)
}

// highlyRated is the reason for a well rated book the reader's history
// says nothing about.
func highlyRated(genre string) i18n.Text {
	if g := humanGenre(genre); g != "books" {
		return i18n.Phrase("Highly rated %s", g)
	}
	return i18n.Phrase("Highly rated books")
}

func (p profile) score(b Book, pop, rating float64, atLevel bool) (float64, i18n.Text) {
	genre, author := genreKey(b.Genre), authorKey(b.Author)
	aff := affinityGenre*p.genres[genre] + affinityAuthor*p.authors[author] + affinityLevel*p.levels[b.ReadingLevel]
	s := weightAffinity*aff + weightPopularity*pop + weightRating*rating
	if atLevel {
		s += weightLevel
	}
	return s, p.reason(b, genre, author, atLevel)
}

// reason names the history book behind b (the strongest status, then an
// author match, then the most recent), or the reader's genre when several
// books of it, and none by b's author, share the credit.
func (p profile) reason(b Book, genre, author string, atLevel bool) i18n.Text {
	var best *shelfEntry
	bestAuthor := false
	sameGenre := 0
	for i := range p.shelf {
		e := &p.shelf[i]
		byAuthor := author != "" && authorKey(e.Book.Author) == author
		inGenre := genre != "" && genreKey(e.Book.Genre) == genre
		if inGenre {
			sameGenre++
		}
		if !byAuthor && !inGenre {
			continue
		}
		// p.shelf is oldest first, so a later entry wins a full tie.
		if best == nil || statusRank(e.Status) > statusRank(best.Status) ||
			(statusRank(e.Status) == statusRank(best.Status) && (byAuthor || !bestAuthor)) {
			best, bestAuthor = e, byAuthor
		}
	}
	switch {
	case best == nil && atLevel:
		return i18n.Phrase("Popular with readers at your level")
	case best == nil:
		return highlyRated(b.Genre)
	case !bestAuthor && sameGenre > 1 && atLevel:
		return i18n.Phrase("More %s at your reading level", humanGenre(b.Genre))
	case best.Status == Finished:
		return i18n.Phrase("Because you finished %s", best.Book.Title)
	case best.Status == CurrentlyReading:
		return i18n.Phrase("Because you are reading %s", best.Book.Title)
	}
	return i18n.Phrase("Because %s is on your reading list", best.Book.Title)
}
