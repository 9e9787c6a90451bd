package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/service/collection"
)

// shelfPickBody is one recommendation from the school's shelf or the app:
// library_book when the school has the title (with its call number, to
// find it), read_now when the same work is open in the app.
type shelfPickBody struct {
	Title      string           `json:"title"`
	Author     string           `json:"author"`
	Reason     string           `json:"reason"`
	Confidence float64          `json:"confidence"`
	AtLevel    bool             `json:"at_your_level"`
	Library    *pickLibraryBody `json:"library_book"`
	ReadNow    *bookBrief       `json:"read_now"`
	Actions    []string         `json:"actions"`
}

type pickLibraryBody struct {
	catalogBook
	CallNumber string `json:"call_number"`
	Genre      string `json:"genre"`
	Level      string `json:"reading_level"`
}

type shelfPicksReply struct {
	Recommendations []shelfPickBody `json:"recommendations"`
}

// toShelfPickBody says the pick's reason in lang (the request's
// Accept-Language, as an error's message).
func toShelfPickBody(lang i18n.Lang, p collection.Pick) shelfPickBody {
	b := shelfPickBody{Reason: p.Why.In(lang), Confidence: p.Confidence, AtLevel: p.AtLevel, Actions: p.Actions}
	if b.Actions == nil {
		b.Actions = []string{}
	}
	if e := p.Entry; e != nil {
		b.Title, b.Author = e.Book.Title, e.Book.Author
		b.Library = &pickLibraryBody{catalogBook: toCatalogBook(*e), CallNumber: e.Book.CallNumber, Genre: e.Book.Genre, Level: e.Book.ReadingLevel}
	} else if p.App != nil {
		b.Title, b.Author = p.App.Title, p.App.Author
	}
	if a := p.ReadNow; a != nil {
		b.ReadNow = toBookBrief(*a)
	}
	return b
}

func toBookBrief(a catalog.Book) *bookBrief {
	return &bookBrief{ID: a.ID, Title: a.Title, Author: a.Author}
}

func (h *handler) studentRecommendations(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", collection.DefaultShelfPicks)
	var picks []collection.Pick
	if err == nil {
		picks, err = h.deps.Library.Recommendations.ForStudent(r.Context(), limit)
	}
	lang := httpedge.MessageLang(r)
	w.Header().Set("Content-Language", string(lang))
	respond(w, r, http.StatusOK, shelfPicksReply{Recommendations: mapSlice(picks, func(p collection.Pick) shelfPickBody { return toShelfPickBody(lang, p) })}, err)
}
