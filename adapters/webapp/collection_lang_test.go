package webapp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// doIn serves one GET as caller (nil: anonymous) from a browser that asks
// for the language acceptLanguage.
func (f *fixture) doIn(caller *user.Account, target, acceptLanguage string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header.Set("Accept-Language", acceptLanguage)
	if caller != nil {
		r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(*caller)))
	}
	rec := httptest.NewRecorder()
	f.router.ServeHTTP(rec, r)
	return rec
}

// TestCollectionPagesSpeakTheReadersLanguage: the books, stocktake,
// reports, labels, reviews, holdings, catalogue and title pages are said
// in the language the browser asks for, Arabic right to left, with their
// headings, counts and the Go code's texts translated, and in English as
// they always were.
func TestCollectionPagesSpeakTheReadersLanguage(t *testing.T) {
	f := newFixture(t)
	const school = "/library/maple.example.org"
	// The title page of the fixture's book, from the catalogue.
	var bookID string
	walk(parse(t, f.do(nil, http.MethodGet, school+"/catalog", nil).Body.String()), func(n *html.Node) {
		if attr(n, "data-testid") == "catalog-row" {
			bookID = attr(n, "data-book-id")
		}
	})
	if bookID == "" {
		t.Fatal("the catalogue lists no book")
	}
	pages := []struct {
		name   string
		caller *user.Account
		path   string
		// want is an element id (or "h1") and its text in English,
		// Spanish and Arabic.
		id           string
		en, es, ar   string
		more         string // another id whose text must not be English
		moreEnglish  string
		moreContains map[i18n.Lang]string
	}{
		{name: "Books", caller: &f.librarian, path: school + "/books", id: "add-book-title",
			en: "Add a book", es: "Añadir un libro", ar: "إضافة كتاب",
			more: "books-count", moreEnglish: "1 book.", moreContains: map[i18n.Lang]string{i18n.Spanish: "1 libro.", i18n.Arabic: "كتاب واحد."}},
		{name: "Stocktake", caller: &f.librarian, path: school + "/stocktake", id: "stocktake-open-title",
			en: "Open a stocktake", es: "Abrir un inventario", ar: "بدء جرد"},
		{name: "Reports", caller: &f.librarian, path: school + "/reports", id: "report-loans-per-month-title",
			en: "Loans per month", es: "Préstamos por mes", ar: "الإعارات حسب الشهر"},
		{name: "Labels", caller: &f.librarian, path: school + "/labels", id: "labels-problem",
			en: "Choose a book on the Books page (its “Labels and spine labels” link), or print library cards.",
			es: "Elige un libro en la página Libros (su enlace «Etiquetas y tejuelos»), o imprime carnés de biblioteca.",
			ar: "اختر كتابًا من صفحة الكتب (رابط «الملصقات وملصقات الكعب» الخاص به)، أو اطبع بطاقات المكتبة."},
		{name: "Reviews", caller: &f.librarian, path: school + "/reviews", id: "no-reviews",
			en: "No reviews here.", es: "No hay reseñas aquí.", ar: "لا توجد مراجعات هنا."},
		{name: "Holdings", caller: &f.librarian, path: school + "/holdings", id: "holdings-export-title",
			en: "Export holdings", es: "Exportar fondos", ar: "تصدير المقتنيات"},
		{name: "Catalog", path: school + "/catalog", id: "catalog-caption",
			en: "Books and how many copies are on the shelf", es: "Libros y cuántos ejemplares hay en el estante", ar: "الكتب وعدد النسخ الموجودة على الرف",
			more: "catalog-count", moreEnglish: "1 book.", moreContains: map[i18n.Lang]string{i18n.Spanish: "1 libro.", i18n.Arabic: "كتاب واحد."}},
		{name: "Title", path: school + "/catalog/title?book_id=" + bookID, id: "title-rating",
			en: "No reviews yet.", es: "Aún no hay reseñas.", ar: "لا توجد مراجعات بعد."},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			for _, c := range []struct {
				header string
				lang   i18n.Lang
				want   string
			}{{"en-GB", i18n.English, p.en}, {"es-MX,es;q=0.9", i18n.Spanish, p.es}, {"ar", i18n.Arabic, p.ar}} {
				rec := f.doIn(p.caller, p.path, c.header)
				if rec.Code != http.StatusOK {
					t.Fatalf("%s in %s: %d\n%s", p.path, c.lang, rec.Code, rec.Body)
				}
				doc := parse(t, rec.Body.String())
				var root *html.Node
				walk(doc, func(n *html.Node) {
					if n.Type == html.ElementNode && n.Data == "html" && root == nil {
						root = n
					}
				})
				if root == nil || attr(root, "lang") != string(c.lang) || attr(root, "dir") != c.lang.Dir() {
					t.Errorf("%s: the page is not marked lang=%s dir=%s", c.lang, c.lang, c.lang.Dir())
				}
				if got := strings.TrimSpace(textOf(byID(doc, p.id))); got != c.want {
					t.Errorf("%s: #%s says %q, want %q", c.lang, p.id, got, c.want)
				}
				if p.more != "" {
					got := textOf(byID(doc, p.more))
					want := p.moreEnglish
					if c.lang != i18n.English {
						want = p.moreContains[c.lang]
					}
					if !strings.Contains(got, want) {
						t.Errorf("%s: #%s says %q, want it to say %q", c.lang, p.more, got, want)
					}
				}
				checkAccessible(t, doc)
			}
		})
	}
}

// TestCollectionGoTextsAreTranslated: the texts the pages' Go code makes
// (a chart's title and summary, the stocktake's range, the sheets' names,
// a rating) are said in the page's language.
func TestCollectionGoTextsAreTranslated(t *testing.T) {
	f := newFixture(t)
	reports := parse(t, f.doIn(&f.librarian, "/library/maple.example.org/reports", "ar").Body.String())
	var titles []string
	walk(reports, func(n *html.Node) {
		if n.Data == "caption" {
			titles = append(titles, textOf(n))
		}
	})
	// The genre chart always has a bar: the fixture's book, of no genre.
	if !strings.Contains(strings.Join(titles, "|"), "النسخ حسب النوع") {
		t.Errorf("the Arabic reports page's chart tables are %q", titles)
	}
	if got := textOf(byID(reports, "chart-collection-by-genre-desc")); got != "عمود واحد: غير معروف، ٢." {
		t.Errorf("the genre chart's summary in Arabic: %q", got)
	}
	labels := parse(t, f.doIn(&f.librarian, "/library/maple.example.org/labels", "es").Body.String())
	var sheets []string
	walk(byID(labels, "labels-paper"), func(n *html.Node) {
		if n.Data == "option" {
			sheets = append(sheets, textOf(n))
		}
	})
	if len(sheets) == 0 || !strings.HasPrefix(sheets[0], "Avery L7160: ") || !strings.HasSuffix(sheets[0], ", 21 etiquetas de 63.5 x 38.1 mm") {
		t.Errorf("the Spanish sheets: %q", sheets)
	}
	for _, lang := range []i18n.Lang{i18n.English, i18n.Spanish, i18n.Arabic} {
		got := ratingText(lang, library.RatingSummary{Count: 2, Sum: 9})
		want := map[i18n.Lang]string{i18n.English: "4.5 out of 5 from 2 reviews", i18n.Spanish: "4,5 de 5 en 2 reseñas", i18n.Arabic: "٤٫٥ من ٥ من مراجعتين"}[lang]
		if got != want {
			t.Errorf("a rating in %s: %q, want %q", lang, got, want)
		}
	}
}

// TestSheetDescriptionsAreTheLibrarysInEnglish: the labels page names the
// sheets in English exactly as the library does.
func TestSheetDescriptionsAreTheLibrarysInEnglish(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, name := range library.SheetFormatNames() {
		if got, want := sheetDescription(r, name), library.SheetFormatDescription(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := sheetDescription(r, library.SheetCustom); got != library.SheetFormatDescription(library.SheetCustom) {
		t.Errorf("custom: %q", got)
	}
}

// TestCollectionCatalogueFormatsItsArguments: every translation of the
// collection pages' catalogue, plural forms too, formats its arguments
// whatever the count, without fmt's complaints ("%!d(string=...)",
// "%!(EXTRA ...)").
func TestCollectionCatalogueFormatsItsArguments(t *testing.T) {
	verb := regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)
	for _, lang := range []i18n.Lang{i18n.Spanish, i18n.Arabic} {
		body, err := os.ReadFile("../../core/i18n/catalog/" + string(lang) + "/web-collection.json")
		if err != nil {
			t.Fatal(err)
		}
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(body, &entries); err != nil {
			t.Fatal(err)
		}
		for key := range entries {
			var verbs []string
			for _, v := range verb.FindAllString(key, -1) {
				if v != "%%" {
					verbs = append(verbs, v)
				}
			}
			for _, n := range []int{0, 1, 2, 3, 11, 100, 1234} {
				args := make([]any, len(verbs))
				for i, v := range verbs {
					switch v[len(v)-1] {
					case 'd':
						args[i] = n
					case 'f':
						args[i] = 4.5
					default:
						args[i] = "«x" + strconv.Itoa(i) + "»"
					}
				}
				got := lang.T(key, args...)
				if strings.Contains(got, "%!") || strings.Contains(got, "%[") {
					t.Errorf("%s %q with %v: %q", lang, key, args, got)
				}
				for i, a := range args {
					if s, ok := a.(string); ok && !strings.Contains(got, s) && !pluralFormDrops(body, key) {
						t.Errorf("%s %q: %q lost argument %d", lang, key, got, i+1)
					}
				}
			}
		}
	}
}

// pluralFormDrops reports whether key's entry is a plural one, whose
// forms may leave an argument out ("أُضيف «x» دون أي نسخة").
func pluralFormDrops(catalogue []byte, key string) bool {
	var entries map[string]json.RawMessage
	_ = json.Unmarshal(catalogue, &entries)
	return strings.HasPrefix(strings.TrimSpace(string(entries[key])), "{")
}
