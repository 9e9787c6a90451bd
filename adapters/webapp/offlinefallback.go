package webapp

import (
	"bytes"
	"html/template"
	"net/http"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
)

// offlineFallbackPath is the page the desk's service worker (sw.js) shows
// for a desk it has not kept when the server cannot be reached: it fetches
// it from the desk it keeps, so it is said in that desk's language.
const offlineFallbackPath = "/offline-fallback"

// offlineFallbackPage stands alone, without the layout's navigation,
// whose links do not open while the server is down. It holds nothing of
// the school or the person, so the worker keeps it after a sign-out.
var offlineFallbackPage = template.Must(template.New("offline-fallback").Parse(`<!doctype html>
<html lang="{{.Lang}}" dir="{{.Lang.Dir}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="stylesheet" href="{{.CSS}}">
</head>
<body><main id="offline-fallback"><h1>{{.Heading}}</h1><p>{{.Text}}</p></main></body>
</html>
`))

type offlineFallbackView struct {
	Lang                      i18n.Lang
	Title, Heading, Text, CSS string
}

// offlineFallback renders the page in the desk's language (the person's
// choice, else the school's, else the browser's).
func (a *App) offlineFallback(w http.ResponseWriter, r *http.Request, _ library.School) {
	v := offlineFallbackView{
		Lang:    i18n.From(r.Context()),
		Title:   tr(r, "Offline") + " · " + tr(r, "School library"),
		Heading: tr(r, "The server cannot be reached"),
		Text:    tr(r, "This desk has not been opened on this computer while the server answered, so it cannot work offline yet. Try again when the server answers."),
		CSS:     a.urls.CSS,
	}
	var buf bytes.Buffer
	if err := offlineFallbackPage.Execute(&buf, v); err != nil {
		renderFailed(w, r, "offline-fallback", err)
		return
	}
	pageHeaders(w)
	w.Header().Set("Content-Language", string(v.Lang))
	_, _ = w.Write(buf.Bytes())
}
