package library

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAuditDiffListsChangedFieldsInOrder(t *testing.T) {
	got := AuditDiff(map[string]string{"b": "1", "a": "x", "same": "s", "gone": "g"}, map[string]string{"a": "y", "b": "1", "same": "s", "new": "n"})
	want := []AuditChange{{Field: "a", Before: "x", After: "y"}, {Field: "gone", Before: "g"}, {Field: "new", After: "n"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("AuditDiff = %+v, want %+v", got, want)
	}
	if got := AuditDiff(map[string]string{"a": "1"}, map[string]string{"a": "1"}); len(got) != 0 {
		t.Fatalf("AuditDiff of equal maps = %+v, want none", got)
	}
}

// One entry stays bounded whatever an action hands it: values are cut to
// MaxAuditValue runes (never inside a rune), invalid UTF-8 is replaced,
// and at most MaxAuditChanges changes are kept.
func TestAuditEntriesAreBounded(t *testing.T) {
	long := strings.Repeat("é", MaxAuditValue+50)
	before := map[string]string{}
	after := map[string]string{}
	for i := range MaxAuditChanges + 10 {
		f := string(rune('A'+i/26)) + string(rune('a'+i%26))
		before[f], after[f] = "", long
	}
	got := AuditDiff(before, after)
	if len(got) != MaxAuditChanges {
		t.Fatalf("%d changes kept, want %d", len(got), MaxAuditChanges)
	}
	if v := got[0].After; utf8.RuneCountInString(v) != MaxAuditValue || !strings.HasSuffix(v, "…") || !utf8.ValidString(v) {
		t.Fatalf("a long value is kept as %d runes (%q…)", utf8.RuneCountInString(v), v[:10])
	}
	if got := CutAuditText("ok\xff", 10); got != "ok\uFFFD" {
		t.Fatalf("CutAuditText of invalid UTF-8 = %q", got)
	}
}

func TestAuditFieldsNameTheAPIsFields(t *testing.T) {
	f := DefaultSettings().AuditFields()
	for _, k := range []string{"default_loan_days", "max_renewals", "timezone", "reading_level_check", "currency", "block_charges_cents"} {
		if _, ok := f[k]; !ok {
			t.Errorf("settings fields lack %s: %v", k, f)
		}
	}
	rules := LoanRulesAuditFields([]LoanRule{{Patron: "grade:7", Category: "standard", LoanDays: 14, Renewals: 2, MaxItems: 5}})
	if rules["grade:7 / standard"] != "14 days, 2 renewals, at most 5 items" {
		t.Errorf("loan rule fields = %v", rules)
	}
}

// Erasing a person takes their id and details out of an entry wherever
// they are, the longest first, and leaves the rest as it was.
func TestAuditEntryErased(t *testing.T) {
	e := AuditEntry{ID: "e1", SchoolID: "s1", ActorEmail: "lib@s.example", Action: AuditStudentChanged, Target: "st-1", SubjectID: "st-1",
		Summary: "Student changed: Eve Example (st-1)",
		Changes: []AuditChange{{Field: "name", Before: "Eve", After: "Eve Example"}, {Field: "grade", Before: "4", After: "5"},
			{Field: "guardians", After: "mum@home.example, dad@home.example"}}}
	got := e.Erased("st-1", []string{"Eve", "Eve Example", "", "mum@home.example"})
	want := AuditEntry{ID: "e1", SchoolID: "s1", ActorEmail: "lib@s.example", Action: AuditStudentChanged, Target: AuditErased,
		Summary: "Student changed: (deleted) ((deleted))",
		Changes: []AuditChange{{Field: "name", Before: AuditErased, After: AuditErased}, {Field: "grade", Before: "4", After: "5"},
			{Field: "guardians", After: "(deleted), dad@home.example"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Erased =\n%+v\nwant\n%+v", got, want)
	}
	if e.Changes[0].Before != "Eve" {
		t.Fatal("Erased changed the entry it was called on")
	}
}
