package httpedge

import (
	"mime"
	"net/http"
	"strings"

	"github.com/readinglibrary/service/core/errs"
)

// HasBody reports whether the request carries a body.
func HasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// checkBodyType accepts a body of one of the comma-separated media types
// (empty means JSON), with an optional utf-8 charset. A body of none of
// them is refused with all of them named; one of them in another charset
// with that charset's own message.
func checkBodyType(r *http.Request, mediaTypes string) error {
	if mediaTypes == "" {
		return CheckJSON(r)
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var wants []string
	for _, want := range strings.Split(mediaTypes, ",") {
		want = strings.TrimSpace(want)
		wants = append(wants, want)
		if want != mt {
			continue
		}
		switch want {
		case "application/json":
			return CheckJSON(r)
		case "text/csv":
			return checkCSV(r)
		default:
			return checkMediaType(r, want, "The request body must be UTF-8 encoded.")
		}
	}
	if len(wants) == 1 {
		return checkMediaType(r, wants[0], "")
	}
	return errs.E(errs.UnsupportedMedia, errs.CodeUnsupportedMediaType, "The request body must be one of %s.", strings.Join(wants, ", "))
}

// CheckJSON accepts application/json with an optional utf-8 charset; any
// other media type is a 415.
func CheckJSON(r *http.Request) error {
	return checkMediaType(r, "application/json", "The request body must be UTF-8 encoded JSON.")
}

// checkCSV accepts text/csv with an optional utf-8 charset.
func checkCSV(r *http.Request) error {
	return checkMediaType(r, "text/csv", "The CSV must be UTF-8 encoded.")
}

// checkMediaType accepts want with an optional utf-8 charset; another
// charset is refused with notUTF8.
func checkMediaType(r *http.Request, want, notUTF8 string) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != want {
		return errs.E(errs.UnsupportedMedia, errs.CodeUnsupportedMediaType, "The request body must be %s.", want)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return errs.E(errs.UnsupportedMedia, errs.CodeUnsupportedMediaType, "%s", notUTF8)
	}
	return nil
}
