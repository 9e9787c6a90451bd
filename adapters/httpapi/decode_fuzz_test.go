package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// fuzzChild and fuzzRequest are a small request body with every shape the
// strict decoder walks: a nested object behind a pointer, slices of scalars
// and of objects, a map, pointers to scalars and validate tags. Optional
// fields are omitzero: a client leaves them out, as null is refused.
type fuzzChild struct {
	ID    string `json:"id" validate:"required"`
	Flags []bool `json:"flags,omitzero"`
}

type fuzzItem struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
}

type fuzzRequest struct {
	Name   string            `json:"name" validate:"required,max=50"`
	Count  *int              `json:"count,omitzero" validate:"omitempty,min=0"`
	Active *bool             `json:"active,omitzero"`
	Tags   []string          `json:"tags,omitzero"`
	Child  *fuzzChild        `json:"child,omitzero"`
	Items  []fuzzItem        `json:"items,omitzero"`
	Meta   map[string]string `json:"meta,omitzero"`
	Level  string            `json:"level" validate:"omitempty,oneof=beginner intermediate advanced"`
}

var decodeStrictSeeds = []string{
	`{"name":"Ann"}`,
	`{"name":"Ann","count":3,"active":true,"tags":["a","b"],"child":{"id":"c1","flags":[true,false]},` +
		`"items":[{"key":"k","value":1.5},{"key":"j","value":-2e3}],"meta":{"x":"y"},"level":"beginner"}`,
	`{"name":"Ann","child":null,"tags":null,"items":[],"meta":{}}`,
	`{"name":"Ann","name":"Bob"}`,
	`{"name":"Ann","child":{"id":"a","id":"b"}}`,
	`{"name":"Ann","items":[{"key":"a"},{"key":"b","key":"c"}]}`,
	`{"name":"Ann","meta":{"k":"1","k":"2"}}`,
	`{"name":"Ann","n\u0061me":"Bob"}`,
	`{"Name":"Ann"}`,
	`{"name":{"$ne":""}}`,
	`{"name":"Ann","count":"3"}`,
	`{"name":"Ann","count":1e400}`,
	`{"name":"Ann","count":-1}`,
	`{"name":"Ann","count":9223372036854775808}`,
	`{"name":"Ann","items":[{"value":1e999}]}`,
	`{"name":"Ann","level":"expert"}`,
	`{"name":""}`,
	`{}`,
	`[]`,
	`null`,
	`"name"`,
	`{"name":"Ann"} {"name":"Bob"}`,
	`{"name":"Ann"}x`,
	`{"name":"Ann",}`,
	`{"name" "Ann"}`,
	`{"name":"Ann"`,
	`{"name":"\ud800"}`,
	"{\"name\":\"\xff\xfe\"}",
	"{\"name\xff\":\"a\",\"name\xfe\":\"b\"}",
	"\ufeff{\"name\":\"Ann\"}",
	" \t\r\n{\"name\":\"Ann\"}\n",
	`{"name":"<script>&amp;\u2028"}`,
	`{"name":"Ann","child":[1,2]}`,
	`{"name":"Ann","tags":{"a":"b"}}`,
	`{"name":"Ann","tags":[["x"]]}`,
	`{"name":"Ann","items":[{"key":"a","extra":{"deep":[{"z":1,"z":2}]}}]}`,
	`{"name":"Ann","active":null,"count":null}`,
	`{"name":"Ann","count":0.5}`,
	`{"name":"Ann","items":[{"value":-0}]}`,
	strings.Repeat("[", 100) + strings.Repeat("]", 100),
	`{"name":"Ann","child":` + strings.Repeat(`{"x":`, 50) + `1` + strings.Repeat(`}`, 50) + `}`,
	``,
	`   `,
}

// decodeKindOK fails unless err is nil or an *errs.Error of kind Malformed or
// Invalid.
func decodeKindOK(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("%s: got %T %v, want an *errs.Error", what, err, err)
	}
	if e.Kind != errs.Malformed && e.Kind != errs.Invalid {
		t.Fatalf("%s: got kind %q (%v), want malformed or invalid", what, e.Kind, err)
	}
}

// hasDuplicateKey reports whether some object in the JSON text repeats a key
// (keys compared after unescaping, exactly). It answers false for text that
// is not valid JSON.
func hasDuplicateKey(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var value func() bool // consumes one value; true when it repeats a key
	value = func() bool {
		tok, _ := dec.Token()
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			dup := false
			for dec.More() {
				k, _ := dec.Token()
				key := k.(string)
				dup = dup || seen[key]
				seen[key] = true
				dup = value() || dup
			}
			dec.Token() // '}'
			return dup
		case json.Delim('['):
			dup := false
			for dec.More() {
				dup = value() || dup
			}
			dec.Token() // ']'
			return dup
		}
		return false
	}
	return value()
}

// FuzzDecodeStrict checks the strict request decoder: the result is nil or
// a Malformed/Invalid *errs.Error; a decoded value survives re-encoding and
// strict decoding unchanged; a body with a repeated key is never accepted.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range decodeStrictSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		dup := hasDuplicateKey(body)

		var got fuzzRequest
		err := decodeStrict(body, &got)
		decodeKindOK(t, "fuzzRequest", err)
		if err == nil {
			if dup {
				t.Fatalf("body %q has a repeated key but was accepted as %+v", body, got)
			}
			again, merr := json.Marshal(got)
			if merr != nil {
				t.Fatalf("re-encoding %+v: %v", got, merr)
			}
			var back fuzzRequest
			if err := decodeStrict(again, &back); err != nil {
				t.Fatalf("re-encoded %s is refused: %v (first body %q)", again, err, body)
			}
			if !reflect.DeepEqual(got, back) {
				t.Fatalf("round trip changed the value:\n got %+v\nback %+v\n(body %q, re-encoded %s)", got, back, body, again)
			}
		}

		// The real POST /v1/books body, with nested chapters.
		var book bookRequest
		err = decodeStrict(body, &book)
		decodeKindOK(t, "bookRequest", err)
		if err == nil {
			if dup {
				t.Fatalf("body %q has a repeated key but was accepted as a bookRequest", body)
			}
			again, merr := json.Marshal(book)
			if merr != nil {
				t.Fatalf("re-encoding %+v: %v", book, merr)
			}
			var back bookRequest
			if err := decodeStrict(again, &back); err != nil {
				t.Fatalf("re-encoded %s is refused: %v", again, err)
			}
			if !reflect.DeepEqual(book, back) {
				t.Fatalf("round trip changed the book:\n got %+v\nback %+v", book, back)
			}
		}
	})
}

// TestHasDuplicateKey keeps the fuzz oracle honest.
func TestHasDuplicateKey(t *testing.T) {
	for body, want := range map[string]bool{
		`{"a":1,"b":2}`:                     false,
		`{"a":1,"a":2}`:                     true,
		`{"a":{"a":1},"b":[{"a":1,"a":2}]}`: true,
		`{"a":[{"x":1},{"x":2}]}`:           false,
		`{"a":"a","b":"a"}`:                 false,
		`{"a":1,"\u0061":2}`:                true,
		`[{"k":1},{"k":1,"j":{"k":1}}]`:     false,
		`{"a":[1,"a"],"a":0}`:               true,
		`{"a":1,"a":`:                       false,
	} {
		if got := hasDuplicateKey([]byte(body)); got != want {
			t.Errorf("hasDuplicateKey(%s) = %v, want %v", body, got, want)
		}
	}
}

var listBooksParams = []string{"page", "limit", "genre", "reading_level", "search", "sort"}

// FuzzQueryParams checks the strict query-string reader and the integer
// parameters as listBooks uses them: errors are never Internal, an accepted
// query holds exactly the given parameters, all of them allowed, each once,
// and a repeated key is refused.
func FuzzQueryParams(f *testing.F) {
	for _, s := range []string{
		"",
		"page=2&limit=10",
		"page=1&limit=100&genre=fiction&reading_level=beginner&search=harry+potter&sort=-rating",
		"page=2&page=3",
		"page=2&Page=3",
		"page=1&pag%65=2",
		"genre[$ne]=x",
		"genre%5B%24ne%5D=x",
		"search=%zz",
		"page=1;limit=2",
		"page",
		"page=",
		"=x",
		"&&&",
		"page=abc",
		"page=99999999999999999999",
		"page=-1&limit=0",
		"limit=%2B5",
		"page=0x10",
		"search=%E2%80%AE%00",
		"sort=title&sort=title",
		"a=1&b=2&c=3",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/v1/books", RawQuery: raw}, Header: http.Header{}}
		params, err := queryParams(r, listBooksParams...)
		decodeKindOK(t, "queryParams", err)

		values, perr := url.ParseQuery(raw)
		if perr != nil {
			if err == nil {
				t.Fatalf("query %q cannot be parsed (%v) but was accepted", raw, perr)
			}
			if k := errs.KindOf(err); k != errs.Malformed {
				t.Fatalf("query %q: unparseable query gave kind %q, want malformed", raw, k)
			}
			return
		}
		repeated := false
		for _, v := range values {
			if len(v) > 1 {
				repeated = true
			}
		}
		// An independent count of the keys, straight from the raw text.
		counts := map[string]int{}
		for _, part := range strings.Split(raw, "&") {
			if part == "" {
				continue
			}
			k, _, _ := strings.Cut(part, "=")
			if uk, err := url.QueryUnescape(k); err == nil {
				counts[uk]++
			}
		}
		for k, n := range counts {
			if n > 1 {
				repeated = true
			}
			if n > 1 && err == nil {
				t.Fatalf("query %q repeats %q but was accepted", raw, k)
			}
		}
		if err != nil {
			if len(values) > 0 && !repeated {
				unknown := false
				for k := range values {
					if !contains(listBooksParams, k) {
						unknown = true
					}
				}
				if !unknown {
					t.Fatalf("query %q has only allowed, unrepeated keys but was refused: %v", raw, err)
				}
			}
			return
		}
		if repeated {
			t.Fatalf("query %q repeats a key but was accepted", raw)
		}
		if len(params) != len(values) {
			t.Fatalf("query %q: got %d params %v, want the %d given", raw, len(params), params, len(values))
		}
		for k, v := range params {
			if !contains(listBooksParams, k) {
				t.Fatalf("query %q: accepted the unknown parameter %q", raw, k)
			}
			if want := values[k]; len(want) != 1 || want[0] != v {
				t.Fatalf("query %q: param %q = %q, want %q", raw, k, v, want)
			}
		}

		// The integers, and the query listBooks builds from them.
		page, perr2 := intParam(params, "page", 1)
		decodeKindOK(t, "intParam(page)", perr2)
		limit, lerr := intParam(params, "limit", catalog.DefaultLimit)
		decodeKindOK(t, "intParam(limit)", lerr)
		for name, res := range map[string]struct {
			n   int
			err error
			def int
		}{"page": {page, perr2, 1}, "limit": {limit, lerr, catalog.DefaultLimit}} {
			v, given := params[name]
			want, aerr := strconv.Atoi(v)
			switch {
			case !given:
				if res.err != nil || res.n != res.def {
					t.Fatalf("query %q: absent %s gave %d, %v; want the default %d", raw, name, res.n, res.err, res.def)
				}
			case aerr != nil:
				if errs.KindOf(res.err) != errs.Malformed {
					t.Fatalf("query %q: %s=%q gave %d, %v; want a malformed error", raw, name, v, res.n, res.err)
				}
			default:
				if res.err != nil || res.n != want {
					t.Fatalf("query %q: %s=%q gave %d, %v; want %d", raw, name, v, res.n, res.err, want)
				}
			}
		}
		if perr2 != nil || lerr != nil {
			return
		}
		q, qerr := catalog.NewQuery(page, limit, params["genre"], params["reading_level"], params["search"], params["sort"])
		if qerr != nil {
			if k := errs.KindOf(qerr); k != errs.Invalid {
				t.Fatalf("query %q: NewQuery gave kind %q (%v), want invalid", raw, k, qerr)
			}
			return
		}
		if q.Page < 1 || q.Limit < 1 || q.Limit > catalog.MaxLimit || q.Skip() < 0 {
			t.Fatalf("query %q: NewQuery accepted %+v (skip %d)", raw, q, q.Skip())
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
