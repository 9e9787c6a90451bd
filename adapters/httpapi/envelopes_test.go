package httpapi

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The envelopes were maps, which encoding/json writes in key order; their
// fields keep that order so the bytes clients receive stay the same.
func TestEnvelopeFieldsInKeyOrder(t *testing.T) {
	envelopes := []any{
		userReply{}, bookListReply{}, readingListReply{}, readingListAddedReply{}, progressReply{}, recommendationsReply{},
		schoolReply{}, schoolsReply{}, accountReply{}, accountsReply{}, inviteReply{}, studentReply{}, studentsPageReply{},
		studentsImportedReply{}, rosterSyncReply{}, rolloverReply{}, leaversReply{},
		libraryBookReply{}, libraryBooksPageReply{}, bookChangeReply{}, bookAddedReply{}, copiesAddedReply{},
		copyFoundReply{}, copyBookBody{}, publicCatalogReply{}, publicSchoolBody{}, publicLoanTermsBody{},
		importJobReply{}, importReportReply{},
		loanMadeReply{}, loanReply{}, loansReply{}, loansPageReply{}, holdReply{}, holdsReply{}, holdsPageReply{},
		chargeReply{}, chargesReply{}, chargesPageReply{}, copyChangedReply{}, standingReply{},
		stocktakeReply{}, stocktakesReply{}, scanReply{}, scansUploadedReply{}, stocktakeReportReply{}, markedReply{},
	}
	for _, e := range envelopes {
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

func TestMapSliceOfNothingIsEmptyNotNull(t *testing.T) {
	got := mapSlice([]int(nil), func(i int) string { return "" })
	if got == nil || len(got) != 0 {
		t.Fatalf("mapSlice(nil) = %#v, want an empty, non-nil slice", got)
	}
}
