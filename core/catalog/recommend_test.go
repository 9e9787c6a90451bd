package catalog_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/user"
)

const (
	beginner     = user.LevelBeginner
	intermediate = user.LevelIntermediate
	advanced     = user.LevelAdvanced
)

func book(id, title, author, genre, level string, rating float64) catalog.Book {
	return catalog.Book{ID: id, Title: title, Author: author, Genre: genre, ReadingLevel: level, Rating: rating}
}

func day(n int) time.Time { return time.Date(2025, time.January, n, 12, 0, 0, 0, time.UTC) }

func entry(b catalog.Book, st catalog.ListStatus, at time.Time) catalog.HistoryEntry {
	return catalog.HistoryEntry{Book: b, Status: st, At: at}
}

// The reader of the quality test: two fantasy books by Mira Holloway
// finished, at the intermediate level.
var (
	emberEgg   = book("bk_ember", "The Ember Egg", "Mira Holloway", "fantasy", intermediate, 4.0)
	movingMap  = book("bk_map", "Map of Moving Hills", "Mira Holloway", "fantasy", intermediate, 4.2)
	duneRoad   = book("bk_dune", "Dune Road", "Ada Quill", "science-fiction", intermediate, 4.0)
	starTiller = book("bk_star", "Star Tillers", "Ben Ruiz", "science-fiction", intermediate, 3.8)
	tideAtlas  = book("bk_tide", "Tide Atlas", "Dora Vale", "mystery", intermediate, 3.9)
)

func qualityHistory() []catalog.HistoryEntry {
	return []catalog.HistoryEntry{entry(emberEgg, catalog.Finished, day(1)), entry(movingMap, catalog.Finished, day(20))}
}

func qualityCandidates() ([]catalog.Book, map[string]int) {
	books := []catalog.Book{
		book("bk_salt", "The Salt Bridge", "Mira Holloway", "fantasy", intermediate, 3.5),
		book("bk_glass", "Glass Orchard", "Tomas Reed", "fantasy", intermediate, 4.5),
		book("bk_loom", "Winter Loom", "Ines Carr", "fantasy", intermediate, 3.0),
		book("bk_ledger", "The Quiet Ledger", "Noor Patel", "mystery", intermediate, 4.9),
		book("bk_orbit", "Orbit of Ash", "Lee Brandt", "science-fiction", intermediate, 4.0),
		book("bk_otter", "Otter Summer", "Pia Lund", "animals", beginner, 4.2),
		emberEgg, // history books offered again by the catalog
		movingMap,
	}
	readers := map[string]int{
		"bk_salt": 5, "bk_glass": 20, "bk_loom": 2, "bk_ledger": 40, "bk_orbit": 10, "bk_otter": 15,
		"bk_ember": 100, "bk_map": 90,
	}
	return books, readers
}

type want struct {
	id         string
	reason     string
	confidence float64
}

func checkRecs(t *testing.T, got []catalog.Recommendation, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d recommendations %v, want %d", len(got), summary(got), len(wants))
	}
	for i, w := range wants {
		g := got[i]
		if g.Book.ID != w.id || g.Reason != w.reason || math.Abs(g.Confidence-w.confidence) > 1e-9 {
			t.Errorf("recommendation %d: got (%s, %q, %v), want (%s, %q, %v)",
				i, g.Book.ID, g.Reason, g.Confidence, w.id, w.reason, w.confidence)
		}
	}
}

func summary(recs []catalog.Recommendation) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = fmt.Sprintf("%s %.4f %q", r.Book.ID, r.Confidence, r.Reason)
	}
	return out
}

// Worked by hand. History weights: Ember 1.0 (oldest), Map 1.2 (newest), so
// fantasy, Mira Holloway and intermediate each have affinity 2.2/2.2 = 1.
// Popularity is over the eligible maximum, 40 (history books excluded).
//
//	salt   .65*(.45+.40+.15) + .12*5/40 + .13*3.5/5 + .10 = .65+.015+.091+.1 = .856
//	glass  .65*(.45+.15) + .12*20/40 + .13*4.5/5 + .10   = .39+.06+.117+.1  = .667
//	loom   .65*.60 + .12*2/40 + .13*3/5 + .10              = .39+.006+.078+.1 = .574
//	ledger .65*.15 + .12*1 + .13*4.9/5 + .10               = .0975+.12+.1274+.1 = .4449
//	orbit  .65*.15 + .12*10/40 + .13*4/5 + .10             = .0975+.03+.104+.1 = .3315
//	otter  .12*15/40 + .13*4.2/5 (beginner: no level)      = .045+.1092 = .1542
func TestRecommendQuality(t *testing.T) {
	candidates, readers := qualityCandidates()
	got := catalog.Recommend(intermediate, qualityHistory(), candidates, readers, 10)
	checkRecs(t, got, []want{
		{"bk_salt", "Because you finished Map of Moving Hills", 0.856},
		{"bk_glass", "More fantasy at your reading level", 0.667},
		{"bk_loom", "More fantasy at your reading level", 0.574},
		{"bk_ledger", "Popular with readers at your level", 0.4449},
		{"bk_orbit", "Popular with readers at your level", 0.3315},
		{"bk_otter", "Highly rated animals", 0.1542},
	})
	t.Run("FantasyFirst", func(t *testing.T) {
		for i, r := range got[:3] {
			if r.Book.Genre != "fantasy" {
				t.Errorf("recommendation %d genre: got %q, want fantasy", i, r.Book.Genre)
			}
		}
	})
	t.Run("SameAuthorBeforeSameGenre", func(t *testing.T) {
		// Glass Orchard is better rated and more popular, yet the Mira
		// Holloway book comes first.
		if got, want := got[0].Book.Author, "Mira Holloway"; got != want {
			t.Errorf("top author: got %q, want %q", got, want)
		}
	})
}

func TestRecommendNeverHistoryNeverTwice(t *testing.T) {
	other := book("bk_other", "Other Tale", "Zed Ames", "fantasy", intermediate, 4)
	history := []catalog.HistoryEntry{
		entry(emberEgg, catalog.Finished, day(1)),
		entry(duneRoad, catalog.CurrentlyReading, day(2)),
		entry(tideAtlas, catalog.WantToRead, day(3)),
		entry(emberEgg, catalog.WantToRead, day(4)), // the same book, listed again
	}
	candidates := []catalog.Book{emberEgg, duneRoad, tideAtlas, other, other, other, movingMap}
	readers := map[string]int{"bk_ember": 500, "bk_dune": 400, "bk_tide": 300, "bk_other": 3, "bk_map": 1}
	got := catalog.Recommend(intermediate, history, candidates, readers, 50)
	var ids []string
	for _, r := range got {
		ids = append(ids, r.Book.ID)
	}
	if want := []string{"bk_map", "bk_other"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids: got %v, want %v", ids, want)
	}
}

func TestRecommendReasons(t *testing.T) {
	tests := []struct {
		name      string
		level     string
		history   []catalog.HistoryEntry
		candidate catalog.Book
		want      want
	}{
		{
			// weight .7; genre and level .7: .65*.6*.7 + .13*4/5 + .1
			name:      "CurrentlyReading",
			level:     intermediate,
			history:   []catalog.HistoryEntry{entry(duneRoad, catalog.CurrentlyReading, day(1))},
			candidate: book("bk_c", "Far Signal", "Cy Moss", "science-fiction", intermediate, 4),
			want:      want{"bk_c", "Because you are reading Dune Road", 0.477},
		},
		{
			// weight .4: .65*.6*.4 + .13*4/5 + .1
			name:      "ListedOnly",
			level:     intermediate,
			history:   []catalog.HistoryEntry{entry(tideAtlas, catalog.WantToRead, day(1))},
			candidate: book("bk_c", "Low Water", "Eli Moor", "mystery", intermediate, 4),
			want:      want{"bk_c", "Because Tide Atlas is on your reading list", 0.36},
		},
		{
			// Two finished science fiction books, no author in common: the
			// genre is the cause. .65*.6 + .13*4/5 + .1
			name:  "MoreScienceFiction",
			level: intermediate,
			history: []catalog.HistoryEntry{
				entry(duneRoad, catalog.Finished, day(1)), entry(starTiller, catalog.Finished, day(2)),
			},
			candidate: book("bk_c", "Far Signal", "Cy Moss", "science-fiction", intermediate, 4),
			want:      want{"bk_c", "More science fiction at your reading level", 0.594},
		},
		{
			// Another level: the most recent finished book. .65*.45 + .13*4/5
			name:  "OtherLevelMostRecentFinished",
			level: intermediate,
			history: []catalog.HistoryEntry{
				entry(duneRoad, catalog.Finished, day(1)), entry(starTiller, catalog.Finished, day(2)),
			},
			candidate: book("bk_c", "Far Signal", "Cy Moss", "science-fiction", advanced, 4),
			want:      want{"bk_c", "Because you finished Star Tillers", 0.3965},
		},
		{
			// Ember 1.0, Star 1.2: genre 1, author 1/1.2, level 1.
			// .65*(.45 + .4/1.2 + .15) + .13*4/5 + .1
			name:  "AuthorMatchBeforeMoreRecentGenreMatch",
			level: intermediate,
			history: []catalog.HistoryEntry{
				entry(emberEgg, catalog.Finished, day(1)), entry(starTiller, catalog.Finished, day(2)),
			},
			candidate: book("bk_c", "Comet Garden", "mira  HOLLOWAY", "science-fiction", intermediate, 4),
			want:      want{"bk_c", "Because you finished The Ember Egg", 0.8107},
		},
		{
			// Dune 1.0, Star .7*1.2 = .84: genre 1.84/1.84 = 1, level 0.
			// .65*.45 + .13*4/5
			name:  "FinishedBeforeMoreRecentReading",
			level: intermediate,
			history: []catalog.HistoryEntry{
				entry(duneRoad, catalog.Finished, day(1)), entry(starTiller, catalog.CurrentlyReading, day(2)),
			},
			candidate: book("bk_c", "Far Signal", "Cy Moss", "science-fiction", advanced, 4),
			want:      want{"bk_c", "Because you finished Dune Road", 0.3965},
		},
		{
			// Only the history's level: .65*.15 + .13*4/5 + .1
			name:      "NoAffinityAtLevel",
			level:     intermediate,
			history:   []catalog.HistoryEntry{entry(emberEgg, catalog.Finished, day(1))},
			candidate: book("bk_c", "Low Water", "Eli Moor", "mystery", intermediate, 4),
			want:      want{"bk_c", "Popular with readers at your level", 0.3015},
		},
		{
			// .13*4/5
			name:      "NoAffinityOtherLevel",
			level:     intermediate,
			history:   []catalog.HistoryEntry{entry(emberEgg, catalog.Finished, day(1))},
			candidate: book("bk_c", "Far Signal", "Cy Moss", "science-fiction", advanced, 4),
			want:      want{"bk_c", "Highly rated science fiction", 0.104},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.Recommend(tt.level, tt.history, []catalog.Book{tt.candidate}, nil, 10)
			checkRecs(t, got, []want{tt.want})
		})
	}
}

// Cold start worked by hand: q = (popularity + rating/5)/2, max readers 50;
// the reader's level scores .3 + .5q, other levels .25q.
//
//	b2 beginner      3.0, 50 readers: q = (1 + .6)/2  = .8 → .7
//	b1 beginner      4.0, 10 readers: q = (.2 + .8)/2 = .5 → .55
//	b3 beginner      5.0,  0 readers: q = (0 + 1)/2   = .5 → .55 (tie: id)
//	i1 intermediate  5.0, 50 readers: q = 1              → .25
//	a1 advanced      4.0, 20 readers: q = (.4 + .8)/2 = .6 → .15
func TestRecommendColdStart(t *testing.T) {
	candidates := []catalog.Book{
		book("bk_i1", "Night Ferry", "Ann Cole", "mystery", intermediate, 5.0),
		book("bk_b3", "Little Lamp", "Bo Finch", "fantasy", beginner, 5.0),
		book("bk_a1", "Deep Field", "Cal Ortiz", "science-fiction", advanced, 4.0),
		book("bk_b1", "Red Kite", "Dee Hart", "animals", beginner, 4.0),
		book("bk_b2", "Puddle Jump", "Eve Mills", "animals", beginner, 3.0),
	}
	readers := map[string]int{"bk_b1": 10, "bk_b2": 50, "bk_i1": 50, "bk_a1": 20}
	all := []want{
		{"bk_b2", "Popular with readers at your level", 0.7},
		{"bk_b1", "Popular with readers at your level", 0.55},
		{"bk_b3", "Popular with readers at your level", 0.55},
		{"bk_i1", "Highly rated mystery", 0.25},
		{"bk_a1", "Highly rated science fiction", 0.15},
	}
	tests := []struct {
		name    string
		history []catalog.HistoryEntry
		limit   int
		want    []want
	}{
		{name: "OK", history: nil, limit: 10, want: all},
		{name: "EmptyHistory", history: []catalog.HistoryEntry{}, limit: 10, want: all},
		{name: "LimitKeepsLevelOnly", history: nil, limit: 3, want: all[:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRecs(t, catalog.Recommend(beginner, tt.history, candidates, readers, tt.limit), tt.want)
		})
	}
}

func TestRecommendLevelBreaksTies(t *testing.T) {
	history := []catalog.HistoryEntry{entry(emberEgg, catalog.Finished, day(1))}
	candidates := []catalog.Book{
		book("bk_a", "Twin", "Zed Ames", "fantasy", advanced, 4),
		book("bk_b", "Twin", "Zed Ames", "fantasy", intermediate, 4),
	}
	got := catalog.Recommend(intermediate, history, candidates, nil, 10)
	if len(got) != 2 || got[0].Book.ID != "bk_b" {
		t.Fatalf("got %v, want bk_b (the reader's level) first", summary(got))
	}
}

func TestRecommendTiesByID(t *testing.T) {
	twin := func(id string) catalog.Book { return book(id, "Twin", "Zed Ames", "fantasy", intermediate, 4) }
	candidates := []catalog.Book{twin("bk_c"), twin("bk_a"), twin("bk_b")}
	tests := []struct {
		name    string
		history []catalog.HistoryEntry
	}{
		{name: "ColdStart"},
		{name: "WithHistory", history: qualityHistory()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.Recommend(intermediate, tt.history, candidates, nil, 10)
			var ids []string
			for _, r := range got {
				ids = append(ids, r.Book.ID)
				if r.Confidence != got[0].Confidence {
					t.Errorf("confidence of %s: got %v, want %v (equal books)", r.Book.ID, r.Confidence, got[0].Confidence)
				}
			}
			if want := []string{"bk_a", "bk_b", "bk_c"}; !reflect.DeepEqual(ids, want) {
				t.Errorf("ids: got %v, want %v", ids, want)
			}
		})
	}
}

func TestRecommendConfidenceInRangeAndOrdered(t *testing.T) {
	quality, qualityReaders := qualityCandidates()
	extreme := []catalog.Book{
		book("bk_x1", "Over", "Mira Holloway", "fantasy", intermediate, 9),
		book("bk_x2", "Under", "Ann Cole", "fantasy", advanced, -3),
		book("bk_x3", "NaN", "Bo Finch", "mystery", intermediate, math.NaN()),
		book("bk_x4", "Plain", "Cy Moss", "", "", 2),
		book("bk_x5", "Twin", "Dee Hart", "fantasy", intermediate, 4),
		book("bk_x6", "Twin", "Dee Hart", "fantasy", intermediate, 4),
	}
	extremeReaders := map[string]int{"bk_x1": 1 << 40, "bk_x2": -5, "bk_x3": 7}
	heavy := []catalog.HistoryEntry{
		entry(emberEgg, catalog.Finished, day(1)), entry(movingMap, catalog.Finished, day(1)),
		entry(book("bk_h3", "H3", "Mira Holloway", "fantasy", intermediate, 4), catalog.Finished, day(1)),
		entry(book("bk_h4", "H4", "Mira Holloway", "fantasy", intermediate, 4), catalog.CurrentlyReading, day(2)),
	}
	tests := []struct {
		name       string
		history    []catalog.HistoryEntry
		candidates []catalog.Book
		readers    map[string]int
	}{
		{name: "Quality", history: qualityHistory(), candidates: quality, readers: qualityReaders},
		{name: "ColdStart", candidates: quality, readers: qualityReaders},
		{name: "Extreme", history: heavy, candidates: extreme, readers: extremeReaders},
		{name: "ExtremeColdStart", candidates: extreme, readers: extremeReaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.Recommend(intermediate, tt.history, tt.candidates, tt.readers, 50)
			if len(got) == 0 {
				t.Fatal("got no recommendations, want some")
			}
			for i, r := range got {
				if !(r.Confidence >= 0 && r.Confidence <= 1) {
					t.Errorf("confidence of %s: got %v, want in [0, 1]", r.Book.ID, r.Confidence)
				}
				if i == 0 {
					continue
				}
				prev := got[i-1]
				if r.Confidence > prev.Confidence || (r.Confidence == prev.Confidence && r.Book.ID <= prev.Book.ID) {
					t.Errorf("order at %d: got (%s %v) after (%s %v), want confidence descending, then id ascending",
						i, r.Book.ID, r.Confidence, prev.Book.ID, prev.Confidence)
				}
			}
		})
	}
}

func TestRecommendDeterministic(t *testing.T) {
	quality, readers := qualityCandidates()
	candidates := append(slices.Clone(quality),
		book("bk_twin2", "Twin", "Zed Ames", "fantasy", intermediate, 4),
		book("bk_twin1", "Twin", "Zed Ames", "fantasy", intermediate, 4),
		book("bk_star2", "Far Signal", "Ben Ruiz", "science-fiction", advanced, 4.4),
	)
	history := append(qualityHistory(),
		entry(starTiller, catalog.CurrentlyReading, day(20)), // same time as Map
		entry(tideAtlas, catalog.WantToRead, day(5)),
		entry(tideAtlas, catalog.CurrentlyReading, day(6)),
	)
	base := catalog.Recommend(intermediate, history, candidates, readers, 50)
	baseQuery := catalog.CandidateQueryFor(intermediate, history, 200)
	rng := rand.New(rand.NewPCG(42, 7))
	for run := range 20 {
		c, h := slices.Clone(candidates), slices.Clone(history)
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		rng.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] })
		if got := catalog.Recommend(intermediate, h, c, readers, 50); !reflect.DeepEqual(got, base) {
			t.Fatalf("run %d: got %v, want %v", run, summary(got), summary(base))
		}
		if got := catalog.CandidateQueryFor(intermediate, h, 200); !reflect.DeepEqual(got, baseQuery) {
			t.Fatalf("run %d query: got %+v, want %+v", run, got, baseQuery)
		}
	}
}

func TestRecommendLimit(t *testing.T) {
	var candidates []catalog.Book
	for i := range 60 {
		candidates = append(candidates, book(fmt.Sprintf("bk_%02d", i), "T", "A", "fantasy", intermediate, 3))
	}
	tests := []struct {
		name  string
		limit int
		want  int
	}{
		{name: "Zero", limit: 0, want: catalog.DefaultRecommendations},
		{name: "Negative", limit: -5, want: catalog.DefaultRecommendations},
		{name: "One", limit: 1, want: 1},
		{name: "Max", limit: catalog.MaxRecommendations, want: catalog.MaxRecommendations},
		{name: "AboveMax", limit: catalog.MaxRecommendations + 1, want: catalog.MaxRecommendations},
		{name: "Huge", limit: 1000, want: catalog.MaxRecommendations},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.Recommend(intermediate, qualityHistory(), candidates, nil, tt.limit)
			if len(got) != tt.want {
				t.Errorf("len: got %d, want %d", len(got), tt.want)
			}
		})
	}
	t.Run("FewerCandidates", func(t *testing.T) {
		if got := catalog.Recommend(intermediate, nil, candidates[:3], nil, 10); len(got) != 3 {
			t.Errorf("len: got %d, want 3", len(got))
		}
	})
	t.Run("NoCandidates", func(t *testing.T) {
		if got := catalog.Recommend(intermediate, qualityHistory(), nil, nil, 10); len(got) != 0 {
			t.Errorf("got %v, want none", summary(got))
		}
	})
}

func TestCandidateQueryFor(t *testing.T) {
	history := []catalog.HistoryEntry{
		entry(tideAtlas, catalog.WantToRead, day(3)),
		entry(movingMap, catalog.Finished, day(2)),
		entry(duneRoad, catalog.CurrentlyReading, day(4)),
		entry(emberEgg, catalog.Finished, day(1)),
		entry(starTiller, catalog.Finished, day(5)),
		entry(emberEgg, catalog.WantToRead, day(6)), // listed twice
	}
	full := catalog.CandidateQuery{
		Exclude: []string{"bk_dune", "bk_ember", "bk_map", "bk_star", "bk_tide"},
		Genres:  []string{"fantasy", "mystery", "science-fiction"},
		Authors: []string{"Ada Quill", "Ben Ruiz", "Dora Vale", "Mira Holloway"},
		Level:   intermediate,
		Limit:   200,
	}
	withLimit := func(q catalog.CandidateQuery, n int) catalog.CandidateQuery { q.Limit = n; return q }
	tests := []struct {
		name    string
		history []catalog.HistoryEntry
		limit   int
		want    catalog.CandidateQuery
	}{
		{name: "OK", history: history, limit: 200, want: full},
		{name: "ZeroLimit", history: history, limit: 0, want: withLimit(full, catalog.DefaultCandidateLimit)},
		{name: "NegativeLimit", history: history, limit: -1, want: withLimit(full, catalog.DefaultCandidateLimit)},
		{name: "LimitCapped", history: history, limit: 1 << 20, want: withLimit(full, catalog.MaxCandidateLimit)},
		{
			name:  "ColdStart",
			limit: 200,
			want:  catalog.CandidateQuery{Exclude: []string{}, Genres: []string{}, Authors: []string{}, Level: intermediate, Limit: 200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := catalog.CandidateQueryFor(intermediate, tt.history, tt.limit); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
