package roster

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

func oneRosterSample(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, n := range OneRosterFiles {
		b, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	return files
}

func TestParseOneRosterSample(t *testing.T) {
	parsed, problems := ParseOneRoster(BytesUploads(oneRosterSample(t)))
	drafts, hasHomeroom := parsed.Students, parsed.HasHomeroom
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	if !hasHomeroom || len(drafts) != 5 {
		t.Fatalf("drafts = %d (homerooms %v), want the 5 students", len(drafts), hasHomeroom)
	}
	ava := drafts[0]
	if ava.Name != "Ava Nguyen" || ava.StudentNumber != "240117" || ava.Grade != "06" || ava.Homeroom != "6A" ||
		ava.ExternalID != "b5c9e0f1-2222-4a3b-8c7d-1e2f3a4b5c01" || ava.Line != 4 || ava.Inactive {
		t.Errorf("Ava = %+v", ava)
	}
	if drafts[2].Name != "Sofía García López" || drafts[2].Homeroom != "7C" {
		t.Errorf("Sofía = %+v", drafts[2])
	}
	if !drafts[4].Inactive {
		t.Errorf("Maya (enabledUser false, tobedeleted) = %+v, want inactive", drafts[4])
	}
}

func TestParseOneRosterRefusals(t *testing.T) {
	files := oneRosterSample(t)
	files[OneRosterUsers] = bytes.Replace(files[OneRosterUsers], []byte("agentSourcedIds"), []byte("agentIds"), 1)
	_, problems := ParseOneRoster(BytesUploads(files))
	if len(problems) != 1 || problems[0].File != OneRosterUsers || problems[0].Line != 1 || problems[0].Field != "agentIds" {
		t.Errorf("unknown column: %+v", problems)
	}
	files = oneRosterSample(t)
	files[OneRosterUsers] = append(files[OneRosterUsers], []byte("x,active,,maybe,3e8c7b14-2f6d-4a90-b1c5-7d9e0f1a2b02,student,u,,A,B,,1,,,,,07,\n")...)
	_, problems = ParseOneRoster(BytesUploads(files))
	if len(problems) != 1 || problems[0].Line != 10 || problems[0].Field != "enabledUser" {
		t.Errorf("bad line: %+v", problems)
	}
	files = oneRosterSample(t)
	// A manifest is taken (real exports always hold one) but must say
	// which OneRoster version the files are.
	files["manifest.csv"] = []byte("propertyName,value\n")
	if _, problems = ParseOneRoster(BytesUploads(files)); len(problems) != 1 || problems[0].File != "manifest.csv" {
		t.Errorf("manifest without oneroster.version: %+v", problems)
	}
}

func TestUnzipOneRosterCapsExpansion(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	f, _ := zw.Create("users.csv")
	zeros := make([]byte, 1<<20)
	for i := 0; i < MaxRosterUnzipped>>20+1; i++ {
		_, _ = f.Write(zeros)
	}
	_ = zw.Close()
	if buf.Len() > 1<<20 {
		t.Fatalf("the bomb is %d bytes compressed", buf.Len())
	}
	_, problems := UnzipOneRoster(library.BytesUpload(buf.Bytes()))
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "expands to more than") {
		t.Errorf("bomb: %+v", problems)
	}
}

func TestPlanRosterConflictsAndFullSync(t *testing.T) {
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	existing := []user.Account{
		{ID: "a", Name: "Ann", StudentNumber: "1", ExternalID: "X1", Grade: "6"},
		{ID: "b", Name: "Bob", StudentNumber: "2"},
		{ID: "c", Name: "Cy", StudentNumber: "3", Inactive: true},
		{ID: "d", Name: "Dee", StudentNumber: "4"},
	}
	drafts := []StudentDraft{
		{Line: 2, Name: "Ann", StudentNumber: "1", ExternalID: "X1", Grade: "7"}, // changed
		{Line: 3, Name: "Bob", StudentNumber: "2", ExternalID: "X2"},             // adopts an id
		{Line: 4, Name: "Cy", StudentNumber: "3"},                                // reactivated
		{Line: 5, Name: "Eve", StudentNumber: "1", ExternalID: "X9"},             // conflict: Ann's number
		{Line: 6, Name: "Fay", StudentNumber: "6"},                               // added
	}
	p := PlanRoster(existing, drafts, RosterOptions{Full: true, HasGrade: true}, now)
	r := p.Report
	if len(r.Added) != 1 || r.Added[0].Name != "Fay" {
		t.Errorf("added = %+v", r.Added)
	}
	if len(r.Changed) != 3 || len(r.Conflicts) != 1 || r.Conflicts[0].Line != 5 {
		t.Errorf("changed = %+v, conflicts = %+v", r.Changed, r.Conflicts)
	}
	if len(r.Deactivated) != 1 || r.Deactivated[0].ID != "d" {
		t.Errorf("deactivated = %+v, want Dee", r.Deactivated)
	}
	if r.Changed[2].Changes[len(r.Changed[2].Changes)-1] != "reactivated" {
		t.Errorf("Cy's changes = %v", r.Changed[2].Changes)
	}
	// A row in conflict still lists its student: a full sync does not
	// retire them.
	renumbered := []StudentDraft{{Line: 2, Name: "Ann", StudentNumber: "99", ExternalID: "X1"}}
	if p := PlanRoster(existing[:1], renumbered, RosterOptions{Full: true}, now); len(p.Report.Conflicts) != 1 || len(p.Report.Deactivated) != 0 {
		t.Errorf("renumbered Ann: %+v", p.Report)
	}
	// Without Full nobody is retired.
	if p := PlanRoster(existing, drafts[:1], RosterOptions{HasGrade: true}, now); len(p.Report.Deactivated) != 0 {
		t.Errorf("partial sync deactivated %+v", p.Report.Deactivated)
	}
}

func TestPlanRolloverKeepsSpelling(t *testing.T) {
	now := time.Now()
	st := []user.Account{
		{ID: "1", Grade: "Year 6"}, {ID: "2", Grade: "Reception"}, {ID: "3", Grade: "Year 13"},
		{ID: "4", Grade: "Blue group"}, {ID: "5", Grade: "07"}, {ID: "6", Grade: "Year 12", Inactive: true},
	}
	p, ok := PlanRollover(st, "2025-2026", "", now)
	if !ok || p.LeavingGrade != "Year 13" {
		t.Fatalf("plan = %+v", p)
	}
	got := map[string]string{}
	for _, a := range p.Changed {
		got[a.ID] = a.Grade
		if a.ID == "3" && !a.Inactive {
			t.Error("the leaving grade stays active")
		}
	}
	want := map[string]string{"1": "Year 7", "2": "Year 1", "3": "Year 13", "5": "08"}
	for id, g := range want {
		if got[id] != g {
			t.Errorf("student %s: grade %q, want %q", id, got[id], g)
		}
	}
	if len(p.Unreadable) != 1 || p.Unreadable[0].ID != "4" {
		t.Errorf("unreadable = %+v", p.Unreadable)
	}
	if _, ok := PlanRollover(st, "2026", "sixth form", now); ok {
		t.Error("an unreadable leaving grade was accepted")
	}
	if ValidSchoolYear("2025-2027") || !ValidSchoolYear("2025-26") || !ValidSchoolYear("2026") {
		t.Error("ValidSchoolYear")
	}
}
