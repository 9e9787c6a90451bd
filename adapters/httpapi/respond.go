package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// The steps most handlers share: read the query or the body, call the use
// case, answer its result or its error. Each reader answers the request's
// error itself and returns false, so a handler only returns.

// mapSlice maps in with f. An empty in gives [], never null: every list in
// the API's answers is an array.
func mapSlice[T, R any](in []T, f func(T) R) []R {
	out := make([]R, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}

// pathID is the route's {id}.
func pathID(r *http.Request) string { return mux.Vars(r)["id"] }

// params reads the query string strictly (queryParams).
func params(w http.ResponseWriter, r *http.Request, allowed ...string) (map[string]string, bool) {
	p, err := queryParams(r, allowed...)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return nil, false
	}
	return p, true
}

// schoolOf reads ?schoolId=, the only parameter of most library routes
// ("" for staff, whose school is their own).
func schoolOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	p, ok := params(w, r, "schoolId")
	return p["schoolId"], ok
}

// decodeBody decodes and validates the JSON body (decodeJSON).
func decodeBody[Req any](w http.ResponseWriter, r *http.Request) (Req, bool) {
	var req Req
	if err := decodeJSON(w, r, &req); err != nil {
		httpedge.WriteError(w, r, err)
		return req, false
	}
	return req, true
}

// schoolAndBody reads ?schoolId= and then the JSON body, in that order, so
// a bad query is refused before the body is read.
func schoolAndBody[Req any](w http.ResponseWriter, r *http.Request) (string, Req, bool) {
	school, ok := schoolOf(w, r)
	if !ok {
		var zero Req
		return "", zero, false
	}
	req, ok := decodeBody[Req](w, r)
	return school, req, ok
}

// schoolAndFile reads ?schoolId= and then the body, a file of at most
// the 1 MiB of any body, kept in the upload spool; the caller releases it.
func (h *handler) schoolAndFile(w http.ResponseWriter, r *http.Request) (string, library.Upload, bool) {
	school, ok := schoolOf(w, r)
	if !ok {
		return "", library.Upload{}, false
	}
	file, err := h.spoolBody(w, r, maxBodyBytes, errTooLarge())
	if err != nil {
		httpedge.WriteError(w, r, err)
		return "", library.Upload{}, false
	}
	return school, file, true
}

// pageQuery reads a paged list's query: the named parameters, page and
// limit (def when absent); q carries ?search= when it is one of them.
func pageQuery(w http.ResponseWriter, r *http.Request, def int, names ...string) (map[string]string, usecase.ListQuery, bool) {
	p, ok := params(w, r, append([]string{"page", "limit"}, names...)...)
	if !ok {
		return nil, usecase.ListQuery{}, false
	}
	page, limit, err := pageParams(p, def)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return nil, usecase.ListQuery{}, false
	}
	return p, usecase.ListQuery{Page: page, Limit: limit, Search: p["search"]}, true
}

// pageOf is the pagination of a page of a list of total items.
func pageOf[N int | int64](page, limit int, total N) pagination {
	return pagination{Page: page, Limit: limit, Total: int64(total), TotalPages: catalog.TotalPages(int64(total), limit)}
}

// respond answers body with status, or err when the use case failed.
// body is built before err is looked at, so it must be built only from
// values a failed call leaves as zero values (no pointer it dereferences).
func respond(w http.ResponseWriter, r *http.Request, status int, body any, err error) {
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	httpedge.WriteJSON(w, status, body)
}
