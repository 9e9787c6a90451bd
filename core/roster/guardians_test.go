package roster

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// guardianUsers is a users.csv of the given rows, each
// "sourcedId,status,enabledUser,role,givenName,familyName,email,agentSourcedIds"
// with the agents (the rest of the row) written as one quoted cell.
func guardianUsers(rows ...string) map[string][]byte {
	var b strings.Builder
	b.WriteString("sourcedId,status,enabledUser,orgSourcedIds,role,username,givenName,familyName,email,agentSourcedIds\n")
	for _, r := range rows {
		c := strings.SplitN(r, ",", 8)
		fmt.Fprintf(&b, "%s,%s,%s,,%s,u-%s,%s,%s,%s,\"%s\"\n", c[0], c[1], c[2], c[3], c[0], c[4], c[5], c[6], c[7])
	}
	return map[string][]byte{OneRosterUsers: []byte(b.String())}
}

// guardiansByStudent parses files and returns each draft's guardians by
// sourcedId, failing on problems.
func guardiansByStudent(t *testing.T, files map[string][]byte) (map[string][]user.Guardian, bool) {
	t.Helper()
	parsed, problems := ParseOneRoster(BytesUploads(files))
	drafts, hasGuardians := parsed.Students, parsed.HasGuardians
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	out := map[string][]user.Guardian{}
	for _, d := range drafts {
		out[d.ExternalID] = d.Guardians
	}
	return out, hasGuardians
}

var (
	gAnn = user.Guardian{Name: "Ann Lee", Email: "ann@example.org", Relationship: user.RelationshipParent}
	gBob = user.Guardian{Name: "Bob Lee", Email: "bob@example.org", Relationship: user.RelationshipGuardian}
	gCy  = user.Guardian{Name: "Cy Lee", Relationship: user.RelationshipRelative}
)

func TestParseOneRosterLinksGuardians(t *testing.T) {
	for name, c := range map[string]struct {
		rows []string
		want map[string][]user.Guardian
	}{
		"guardian before, naming the student": {
			rows: []string{"p1,active,true,parent,Ann,Lee,ann@example.org,s1", "s1,active,true,student,Kim,Lee,,"},
			want: map[string][]user.Guardian{"s1": {gAnn}},
		},
		"guardian after, naming the student": {
			rows: []string{"s1,active,true,student,Kim,Lee,,", "p1,active,true,parent,Ann,Lee,ANN@example.org ,s1"},
			want: map[string][]user.Guardian{"s1": {gAnn}},
		},
		"student names a guardian listed after": {
			rows: []string{"s1,active,true,student,Kim,Lee,,p1", "p1,,TRUE,Parent,Ann,Lee,ann@example.org,"},
			want: map[string][]user.Guardian{"s1": {gAnn}},
		},
		"student names a guardian listed before": {
			rows: []string{"p1,active,true,PARENT,Ann,Lee,ann@example.org,", "s1,active,true,student,Kim,Lee,,p1"},
			want: map[string][]user.Guardian{"s1": {gAnn}},
		},
		// Linked from both sides, and from both siblings.
		"a guardian of two siblings": {
			rows: []string{"s1,active,true,student,Kim,Lee,,p1", "p1,active,true,parent,Ann,Lee,ann@example.org,s1,s2",
				"s2,active,true,student,Jo,Lee,,"},
			want: map[string][]user.Guardian{"s1": {gAnn}, "s2": {gAnn}},
		},
		// In the order of the guardians' rows, whatever the order of the
		// student's agentSourcedIds; one without an email is kept.
		"order of the guardians' rows": {
			rows: []string{"s1,active,true,student,Kim,Lee,,p3,p2, p1", "p1,active,true,parent,Ann,Lee,ann@example.org,",
				"p2,active,true,guardian,Bob,Lee,bob@example.org,", "p3,active,true,relative,Cy,Lee,,"},
			want: map[string][]user.Guardian{"s1": {gAnn, gBob, gCy}},
		},
		// Teachers, unknown ids, other students and guardians being
		// deleted or disabled are nobody's guardian.
		"other agents passed over": {
			rows: []string{"t1,active,true,teacher,Tom,Day,tom@example.org,s1", "s1,active,true,student,Kim,Lee,,t1,x9,s2,p2,p3",
				"s2,active,true,student,Jo,Lee,,", "p2,tobedeleted,true,parent,Dee,Lee,dee@example.org,s2",
				"p3,active,false,guardian,Eve,Lee,eve@example.org,s2", "p4,active,true,parent,Fay,Lee,fay@example.org,t1"},
			want: map[string][]user.Guardian{"s1": nil, "s2": nil},
		},
		// Two rows of one person (one email) are one guardian.
		"one email twice": {
			rows: []string{"p1,active,true,parent,Ann,Lee,ann@example.org,s1", "p2,active,true,guardian,Ann,Lee-Ray,Ann@Example.org,s1",
				"s1,active,true,student,Kim,Lee,,"},
			want: map[string][]user.Guardian{"s1": {gAnn}},
		},
		"a disabled student keeps its guardians": {
			rows: []string{"s1,tobedeleted,false,student,Kim,Lee,,p1", "p1,active,true,parent,Ann,Lee,ann@example.org,"},
			want: map[string][]user.Guardian{"s1": {gAnn}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, hasGuardians := guardiansByStudent(t, guardianUsers(c.rows...))
			if !hasGuardians || !reflect.DeepEqual(got, c.want) {
				t.Errorf("guardians %+v (reported %v), want %+v", got, hasGuardians, c.want)
			}
		})
	}
}

// hasGuardians says whether the file says who students' guardians are:
// the agentSourcedIds column and any parent, guardian or relative, even
// one being deleted (its students then have none).
func TestParseOneRosterHasGuardians(t *testing.T) {
	if _, has := guardiansByStudent(t, guardianUsers("s1,active,true,student,Kim,Lee,,", "t1,active,true,teacher,Tom,Day,,s1")); has {
		t.Error("a file without parents says it gives guardians")
	}
	if got, has := guardiansByStudent(t, guardianUsers("s1,active,true,student,Kim,Lee,,", "p1,tobedeleted,true,parent,Ann,Lee,,s1")); !has || got["s1"] != nil {
		t.Errorf("a parent being deleted: %+v, reported %v; want no guardians, reported", got, has)
	}
	noColumn := map[string][]byte{OneRosterUsers: []byte("sourcedId,enabledUser,orgSourcedIds,role,username,givenName,familyName\n" +
		"s1,true,,student,k,Kim,Lee\np1,true,,parent,a,Ann,Lee\n")}
	if _, has := guardiansByStudent(t, noColumn); has {
		t.Error("a file without agentSourcedIds says it gives guardians")
	}
}

func TestParseOneRosterGuardianProblems(t *testing.T) {
	many := make([]string, 0, user.MaxGuardians+2)
	ids := make([]string, 0, user.MaxGuardians+1)
	for i := range user.MaxGuardians + 1 {
		many = append(many, fmt.Sprintf("p%d,active,true,parent,P%d,Lee,p%d@example.org,", i, i, i))
		ids = append(ids, fmt.Sprintf("p%d", i))
	}
	tooManyAgents := make([]string, maxAgents+1)
	for i := range tooManyAgents {
		tooManyAgents[i] = fmt.Sprintf("x%d", i)
	}
	for name, c := range map[string]struct {
		rows []string
		want []library.LineError // line, field and a part of the message
	}{
		// More than MaxGuardians is the student's problem, on its line,
		// whichever side names the guardians.
		"too many guardians, named by the student": {
			rows: append(slices.Clone(many), "s1,active,true,student,Kim,Lee,,"+strings.Join(ids, ",")),
			want: []library.LineError{{Line: 7, Field: "agentSourcedIds", Message: "links 5 parents or guardians (lines 2, 3, 4, 5, 6); a student may have at most 4"}},
		},
		"too many guardians, naming the student": {
			rows: append([]string{"s1,active,true,student,Kim,Lee,,"}, strings.ReplaceAll(strings.Join(many, "\n"), "org,", "org,s1")),
			want: []library.LineError{{Line: 2, Field: "agentSourcedIds", Message: "links 5"}},
		},
		// A linked guardian must be valid, on its own line.
		"a linked guardian's bad email": {
			rows: []string{"s1,active,true,student,Kim,Lee,,", "p1,active,true,parent,Ann,Lee,ann@,s1"},
			want: []library.LineError{{Line: 3, Field: "email", Message: "valid email"}},
		},
		"a linked guardian without name or email": {
			rows: []string{"s1,active,true,student,Kim,Lee,,p1", "p1,active,true,parent, , ,,"},
			want: []library.LineError{{Line: 3, Field: "givenName", Message: "name or an email"}},
		},
		"a linked guardian's long name": {
			rows: []string{"s1,active,true,student,Kim,Lee,,p1", "p1,active,true,parent," + strings.Repeat("a", 101) + ",Lee,,"},
			want: []library.LineError{{Line: 3, Field: "givenName", Message: "between 1 and 100"}},
		},
		"one sourcedId for two guardians": {
			rows: []string{"s1,active,true,student,Kim,Lee,,p1", "p1,active,true,parent,Ann,Lee,,", "p1,active,true,parent,Bob,Lee,,"},
			want: []library.LineError{{Line: 4, Field: "sourcedId", Message: "same sourcedId as line 3"}},
		},
		"too many agents": {
			rows: []string{"s1,active,true,student,Kim,Lee,," + strings.Join(tooManyAgents, ",")},
			want: []library.LineError{{Line: 2, Field: "agentSourcedIds", Message: "more than 32"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			parsed, problems := ParseOneRoster(BytesUploads(guardianUsers(strings.Split(strings.Join(c.rows, "\n"), "\n")...)))
			drafts := parsed.Students
			if drafts != nil || len(problems) != len(c.want) {
				t.Fatalf("drafts %+v, problems %+v, want %+v", drafts, problems, c.want)
			}
			for i, w := range c.want {
				if p := problems[i]; p.File != OneRosterUsers || p.Line != w.Line || p.Field != w.Field || !strings.Contains(p.Message, w.Message) {
					t.Errorf("problem %+v, want %+v", p, w)
				}
			}
		})
	}
	// An invalid guardian nobody names is not imported, so not checked.
	if got, _ := guardiansByStudent(t, guardianUsers("s1,active,true,student,Kim,Lee,,", "p1,active,true,parent,Ann,Lee,ann@,")); got["s1"] != nil {
		t.Errorf("guardians %+v", got)
	}
}

func TestParseStudentsCSVGuardians(t *testing.T) {
	in := "name,student_number,Guardian_Name,guardian_email,guardian2_name,guardian2_email\n" +
		"Kim,S1, Ann Lee ,ANN@example.org,,\n" +
		"Jo,S2,,,Bob Lee,\n" +
		"Al,S3,,bob@example.org,Bob Lee,BOB@example.org\n" +
		"Cy,S4,,,,\n"
	drafts, problems := ParseStudentsCSV(strings.NewReader(in))
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	want := [][]user.Guardian{
		{{Name: "Ann Lee", Email: "ann@example.org"}},
		{{Name: "Bob Lee"}},
		{{Email: "bob@example.org"}}, // the second pair repeats the first's email
		nil,
	}
	for i, d := range drafts {
		if !reflect.DeepEqual(d.Guardians, want[i]) {
			t.Errorf("line %d: guardians %+v, want %+v", d.Line, d.Guardians, want[i])
		}
	}
	if header := StudentsCSVHeader(strings.NewReader(in)); !HasGuardianColumns(header) {
		t.Errorf("HasGuardianColumns(%q) = false", header)
	}
	if HasGuardianColumns([]string{"name", "grade"}) || !HasGuardianColumns([]string{"name", "GUARDIAN2_EMAIL"}) {
		t.Error("HasGuardianColumns")
	}

	// Each problem on its row's line, in the column of its pair.
	bad := "name,guardian_name,guardian_email,guardian2_name,guardian2_email\n" +
		"Kim,Ann,ann@,,\n" +
		"Jo,,,Bob,bob@@example.org\n" +
		"Al," + strings.Repeat("x", 101) + ",,,\n"
	drafts, problems = ParseStudentsCSV(strings.NewReader(bad))
	wantProblems := []library.LineError{
		{Line: 2, Field: "guardian_email"},
		{Line: 3, Field: "guardian2_email"},
		{Line: 4, Field: "guardian_name"},
	}
	if drafts != nil || len(problems) != len(wantProblems) {
		t.Fatalf("drafts %+v, problems %+v, want %+v", drafts, problems, wantProblems)
	}
	for i, w := range wantProblems {
		if p := problems[i]; p.Line != w.Line || p.Field != w.Field || p.Message == "" {
			t.Errorf("problem %+v, want line %d field %s", p, w.Line, w.Field)
		}
	}
}

func TestValidateStudentGuardians(t *testing.T) {
	five := make([]user.Guardian, 5)
	for i := range five {
		five[i] = user.Guardian{Email: fmt.Sprintf("p%d@example.org", i)}
	}
	fiveOneRepeated := slices.Clone(five)
	fiveOneRepeated[4].Email = " P0@example.org"
	for name, c := range map[string]struct {
		guardians []user.Guardian
		want      []string
	}{
		"none":                    {},
		"four":                    {guardians: five[:4]},
		"five":                    {guardians: five, want: []string{"guardians"}},
		"five with one repeated":  {guardians: fiveOneRepeated},
		"name only, relationship": {guardians: []user.Guardian{{Name: "Ann", Relationship: " Parent "}}},
		"neither name nor email":  {guardians: []user.Guardian{gAnn, {Name: " ", Relationship: "parent"}}, want: []string{"guardians[1].name"}},
		"bad email":               {guardians: []user.Guardian{{Name: "Ann", Email: "ann@"}}, want: []string{"guardians[0].email"}},
		"long name":               {guardians: []user.Guardian{{Name: strings.Repeat("é", 101)}}, want: []string{"guardians[0].name"}},
		"unknown relationship":    {guardians: []user.Guardian{{Name: "Ann", Relationship: "aunt"}}, want: []string{"guardians[0].relationship"}},
	} {
		got := ValidateStudent(StudentDraft{Name: "Kim", Guardians: c.guardians})
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, c.want) {
			t.Errorf("%s: fields %v, want %v", name, got, c.want)
		}
	}
}

func TestStudentDraftNormalizedGuardians(t *testing.T) {
	in := []user.Guardian{
		{Name: " Ann Lee ", Email: " Ann@Example.org ", Relationship: " Parent"},
		{Name: "Ann L.", Email: "ann@example.org", Relationship: "guardian"}, // same email
		{Name: "Bob"},
		{Name: "Bob ", Relationship: "relative"}, // same name, no email
		{Name: "Bob", Email: "bob@example.org"},
	}
	orig := slices.Clone(in)
	got := StudentDraft{Name: "Kim", Guardians: in}.Normalized().Guardians
	want := []user.Guardian{{Name: "Ann Lee", Email: "ann@example.org", Relationship: "parent"}, {Name: "Bob"}, {Name: "Bob", Email: "bob@example.org"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalized guardians = %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Error("Normalized changed the draft's list in place")
	}
	if g := (StudentDraft{Guardians: []user.Guardian{}}).Normalized().Guardians; g != nil {
		t.Errorf("an empty list normalises to %#v, want nil", g)
	}
}

func TestPlanRosterGuardians(t *testing.T) {
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	stored := []user.Guardian{{Name: "Ann Lee", Email: "Ann@Example.org ", Relationship: "parent"}}
	existing := []user.Account{{ID: "a", Name: "Kim", ExternalID: "s1", Guardians: stored}}
	same := StudentDraft{Line: 2, Name: "Kim", ExternalID: "s1",
		Guardians: []user.Guardian{{Name: "Ann Lee", Email: "ann@example.org", Relationship: "parent"}}}
	other := same
	other.Guardians = []user.Guardian{gBob}
	none := same
	none.Guardians = nil

	// The same guardians as stored, once normalised: no change.
	if p := PlanRoster(existing, []StudentDraft{same}, RosterOptions{HasGuardians: true}, now); p.Report.Unchanged != 1 || len(p.Changed) != 0 {
		t.Errorf("same guardians: %+v", p.Report)
	}
	// Other guardians: changed, and the planned account carries them.
	p := PlanRoster(existing, []StudentDraft{other}, RosterOptions{HasGuardians: true}, now)
	if len(p.Report.Changed) != 1 || !slices.Equal(p.Report.Changed[0].Changes, []string{"guardians"}) ||
		len(p.Changed) != 1 || !reflect.DeepEqual(p.Changed[0].Guardians, []user.Guardian{gBob}) || !reflect.DeepEqual(p.Before[0].Guardians, stored) {
		t.Errorf("other guardians: %+v, accounts %+v", p.Report, p.Changed)
	}
	// A file with guardians that gives the student none removes them.
	if p := PlanRoster(existing, []StudentDraft{none}, RosterOptions{HasGuardians: true}, now); len(p.Changed) != 1 || p.Changed[0].Guardians != nil {
		t.Errorf("no guardians: %+v", p.Changed)
	}
	// A file without guardians keeps the stored ones, whatever the draft.
	for _, d := range []StudentDraft{other, none} {
		if p := PlanRoster(existing, []StudentDraft{d}, RosterOptions{}, now); p.Report.Unchanged != 1 || len(p.Changed) != 0 {
			t.Errorf("without HasGuardians: %+v", p.Report)
		}
	}
	// A new student carries the draft's guardians.
	added := other
	added.ExternalID = "s2"
	if p := PlanRoster(existing, []StudentDraft{added}, RosterOptions{HasGuardians: true}, now); len(p.Added) != 1 || !reflect.DeepEqual(p.Added[0].Guardians, []user.Guardian{gBob}) {
		t.Errorf("added: %+v", p.Added)
	}
}
