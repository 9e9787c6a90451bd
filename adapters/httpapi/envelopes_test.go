package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The envelopes were maps, which encoding/json writes in key order; their
// fields keep that order so the bytes clients receive stay the same.
func TestEnvelopeFieldsInKeyOrder(t *testing.T) {
	for _, e := range envelopes() {
		typ := reflect.TypeOf(e)
		var keys []string
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Anonymous {
				t.Errorf("%s embeds %s: its keys would not be in order", typ.Name(), f.Name)
			}
			keys = append(keys, strings.Split(f.Tag.Get("json"), ",")[0])
		}
		if !sort.StringsAreSorted(keys) {
			t.Errorf("%s: keys %v are not in order", typ.Name(), keys)
		}
	}
}

// An envelope encodes to the same bytes as the map of its keys that the
// handlers wrote before: a key left out only where the field says
// omitempty and its value is empty.
func TestEnvelopesEncodeLikeTheirMaps(t *testing.T) {
	for _, e := range envelopes() {
		v := reflect.ValueOf(e)
		m := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			if opts == "omitempty" && v.Field(i).IsZero() {
				continue
			}
			m[name] = v.Field(i).Interface()
		}
		if got, want := encode(t, e), encode(t, m); !bytes.Equal(got, want) {
			t.Errorf("%T encodes as\n%s\nwant\n%s", e, got, want)
		}
	}
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func envelopes() []any {
	return []any{
		userReply{}, bookListReply{}, readingListReply{}, readingListAddedReply{}, progressReply{}, recommendationsReply{},
		schoolReply{}, schoolsReply{}, accountReply{}, accountsReply{}, inviteReply{}, studentReply{}, studentsPageReply{},
		studentsImportedReply{}, rosterSyncReply{}, rolloverReply{}, leaversReply{},
		libraryBookReply{}, libraryBooksPageReply{}, bookChangeReply{}, bookAddedReply{}, copiesAddedReply{},
		copyFoundReply{}, copyBookBody{}, publicCatalogReply{}, publicSchoolBody{}, publicLoanTermsBody{},
		importJobReply{}, importReportReply{},
		loanMadeReply{}, loanReply{}, loansReply{}, loansPageReply{}, holdReply{}, holdsReply{}, holdsPageReply{},
		chargeReply{}, chargesReply{}, chargesPageReply{}, copyChangedReply{}, standingReply{},
		stocktakeReply{}, stocktakesReply{}, scanReply{}, scansUploadedReply{}, stocktakeReportReply{}, markedReply{},
		inviteReply{InviteToken: "t0k&n<", InviteExpiresIn: 604800},
		copyFoundReply{Loan: &loanBody{ID: "l1"}}, copyChangedReply{ReversedCharge: &chargeBody{ID: "c1"}},
		scansUploadedReply{Unknown: []scanLineBody{}}, standingReply{Blocks: []blockBody{{Reason: "charges"}}, Blocked: true},
	}
}

func TestMapSliceOfNothingIsEmptyNotNull(t *testing.T) {
	got := mapSlice([]int(nil), func(i int) string { return "" })
	if got == nil || len(got) != 0 {
		t.Fatalf("mapSlice(nil) = %#v, want an empty, non-nil slice", got)
	}
}

// The book bodies that share their parts by embedding keep the keys, and
// the order, they had when each listed its own fields.
func TestSharedBookPartsKeepTheirKeyOrder(t *testing.T) {
	cases := []struct {
		body any
		keys string
	}{
		{libraryBookBody{}, "id school_id isbn title author cover_url total_copies available_copies price_cents loan_category " +
			"publisher published_year subjects genre call_number reading_level age_min age_max"},
		{catalogBook{}, "id isbn title author cover_url total_copies available_copies holds loan_category rating in_app"},
		{catalogDraftBody{}, "isbn title author publisher published_year subjects genre call_number reading_level age_min age_max"},
	}
	for _, c := range cases {
		dec := json.NewDecoder(bytes.NewReader(encode(t, c.body)))
		var keys []string
		depth := 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			default:
				if s, ok := tok.(string); ok && depth == 1 {
					keys = append(keys, s)
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if got := strings.Join(keys, " "); got != c.keys {
			t.Errorf("%T keys:\n%s\nwant\n%s", c.body, got, c.keys)
		}
	}
}
