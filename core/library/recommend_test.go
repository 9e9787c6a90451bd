package library

import (
	"slices"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
)

func shelfCandidate(id, title, genre, level string, onShelf int) ShelfCandidate {
	return ShelfCandidate{Book: Book{ID: id, SchoolID: "s", Title: title, Author: "Author " + id,
		BookDetails: BookDetails{Genre: genre, ReadingLevel: level}}, Copies: max(onShelf, 1), OnShelf: onShelf}
}

func pickIDs(picks []ShelfPick) []string {
	ids := make([]string, len(picks))
	for i, p := range picks {
		ids[i] = p.Book.ID
	}
	return ids
}

func TestShelfLevelsFollowTheReadingRange(t *testing.T) {
	levels := ShelfLevels("Grade 4")
	if levels[0] != "" || !slices.Contains(levels, "2.0") || !slices.Contains(levels, "6.9") ||
		slices.Contains(levels, "1.9") || slices.Contains(levels, "7.0") || len(levels) != 51 {
		t.Errorf("ShelfLevels(Grade 4) = %q, want \"\" and 2.0 to 6.9", levels)
	}
	if got := ShelfLevels("Senior"); got != nil {
		t.Errorf("ShelfLevels of an unread grade = %q, want nil (every level)", got)
	}
}

func TestGenreSpellingsMeetTheCatalogue(t *testing.T) {
	got := GenreSpellings("science-fiction")
	for _, want := range []string{"science-fiction", "science fiction", "Science fiction", "Science Fiction"} {
		if !slices.Contains(got, want) {
			t.Errorf("GenreSpellings(science-fiction) = %q, lacks %q", got, want)
		}
	}
	if GenreKey("Science Fiction") != GenreKey("science-fiction") || GenreKey("Fantasy") == GenreKey("Fantasy fiction") {
		t.Error("GenreKey must join the app's slug and the catalogue's words, and nothing more")
	}
	if GenreSpellings("  ") != nil {
		t.Error("a blank genre has no spellings")
	}
}

func TestFavouriteGenresMostFinishedFirst(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 10, d, 0, 0, 0, 0, time.UTC) }
	finished := []TitleRead{
		{Title: "A", Genre: "Fantasy", At: day(1)}, {Title: "B", Genre: "fantasy", At: day(5)},
		{Title: "C", Genre: "Humour", At: day(9)}, {Title: "D", Genre: "", At: day(10)},
		{Title: "E", Genre: "science-fiction", At: day(2)},
	}
	got := FavouriteGenres(finished, 2)
	if !slices.Equal(got, []string{"fantasy", "Humour"}) {
		t.Errorf("FavouriteGenres = %q, want fantasy (twice, latest spelling) then Humour (latest of the ones)", got)
	}
}

func TestPickFromShelfOffersWhatTheStudentCanHaveNow(t *testing.T) {
	finished := []TitleRead{{Title: "Ronja", Genre: "Fantasy", At: time.Now()}}
	app := &AppLink{AppBook: catalog.Book{ID: "bk_1", Title: "Mio in the app"}, Reason: LinkedByISBN}
	out := shelfCandidate("out", "All copies out", "Fantasy", "4.0", 0)
	inApp := shelfCandidate("app", "Out but in the app", "Fantasy", "4.0", 0)
	inApp.InApp = app
	cands := []ShelfCandidate{
		shelfCandidate("shelf", "On the shelf", "Fantasy", "4.0", 2),
		out, inApp,
		shelfCandidate("hard", "Too hard", "Fantasy", "9.0", 1),
		shelfCandidate("other", "Other genre", "Sport", "4.0", 3),
		shelfCandidate("ages", "Judged by ages", "fantasy", "", 1),
	}
	cands[5].Book.AgeMin, cands[5].Book.AgeMax = 8, 11
	got := PickFromShelf(ShelfReader{Grade: "4", Finished: finished}, cands, 10)
	if ids := pickIDs(got); !slices.Equal(ids, []string{"ages", "shelf", "app"}) {
		t.Fatalf("picks = %q, want the fitting ones on the shelf first, then the one only the app has now", ids)
	}
	for _, p := range got {
		if p.Reason != "Because you finished Ronja" || !p.AtLevel || p.Confidence <= 0 || p.Confidence > 1 {
			t.Errorf("pick %s: reason %q, at level %v, confidence %v", p.Book.ID, p.Reason, p.AtLevel, p.Confidence)
		}
	}
	if got[1].Confidence <= got[2].Confidence {
		t.Errorf("a copy on the shelf (%v) must outrank the app alone (%v)", got[1].Confidence, got[2].Confidence)
	}
}

func TestPickFromShelfWithoutTasteOrGrade(t *testing.T) {
	cands := []ShelfCandidate{
		shelfCandidate("a", "Alfons", "Picture books", "1.0", 1),
		shelfCandidate("b", "Bamse", "Comics", "", 1),
		shelfCandidate("c", "Cirkus", "Picture books", "9.5", 1),
	}
	got := PickFromShelf(ShelfReader{Grade: "1"}, cands, 10)
	if ids := pickIDs(got); !slices.Equal(ids, []string{"a", "b"}) {
		t.Fatalf("picks for a new grade 1 reader = %q, want a (at level) then b (no level to judge)", ids)
	}
	if got[0].Reason != "At your reading level" || got[1].Reason != "A comics title from your school library" {
		t.Errorf("reasons = %q, %q", got[0].Reason, got[1].Reason)
	}
	if got := PickFromShelf(ShelfReader{Grade: "Senior"}, cands, 10); len(got) != 3 {
		t.Errorf("an unread grade judges no level: %d picks, want 3", len(got))
	}
}

func TestPickFromShelfOneEditionOfAWorkAndTheLimit(t *testing.T) {
	finished := []TitleRead{{Title: "X", Genre: "Fantasy"}, {Title: "Y", Genre: "Fantasy"}}
	first := shelfCandidate("e1", "Mio, my son", "Fantasy", "4.0", 3)
	second := shelfCandidate("e2", "Mio, my son", "Fantasy", "4.0", 1)
	second.Book.Author = first.Book.Author
	more := shelfCandidate("m", "Madicken", "Fantasy", "4.0", 1)
	got := PickFromShelf(ShelfReader{Grade: "4", Finished: finished}, []ShelfCandidate{second, first, more}, 10)
	if ids := pickIDs(got); !slices.Equal(ids, []string{"m", "e1"}) {
		t.Errorf("picks = %q, want one edition of Mio (the lowest id of equals) and Madicken, by title", ids)
	}
	if got[0].Reason != "More fantasy at your reading level" {
		t.Errorf("reason with two fantasy titles finished = %q", got[0].Reason)
	}
	if got := PickFromShelf(ShelfReader{Grade: "4", Finished: finished}, []ShelfCandidate{first, more}, 1); len(got) != 1 {
		t.Errorf("limit 1 gave %d picks", len(got))
	}
}
