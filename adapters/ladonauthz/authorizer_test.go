package ladonauthz_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ory/ladon"

	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

const policyDir = "../../policies"

var (
	anonymous = user.Anonymous
	reader    = user.Principal{AccountID: "a-reader", Role: user.RoleReader, Tier: user.TierStandard}
	premium   = user.Principal{AccountID: "a-premium", Role: user.RoleReader, Tier: user.TierPremium}
	student   = user.Principal{AccountID: "a-student", Role: user.RoleStudent, SchoolID: "s-1", Tier: user.TierStandard}
	staff     = user.Principal{AccountID: "a-staff", Role: user.RoleStaff, SchoolID: "s-1", Tier: user.TierStandard}
	librarian = user.Principal{AccountID: "a-librarian", Role: user.RoleLibrarian, SchoolID: "s-1", Tier: user.TierStandard}
	admin     = user.Principal{AccountID: "a-admin", Role: user.RoleAdmin, Tier: user.TierStandard}
	teacher   = user.Principal{AccountID: "a-teacher", Role: user.RoleTeacher, SchoolID: "s-1", Tier: user.TierStandard}

	everyone      = []user.Principal{anonymous, reader, premium, student, staff, teacher, librarian, admin}
	authenticated = []user.Principal{reader, premium, student, staff, teacher, librarian, admin}
)

func mustLoad(tb testing.TB, dir string) *ladonauthz.Authorizer {
	tb.Helper()
	a, err := ladonauthz.Load(dir)
	if err != nil {
		tb.Fatalf("Load(%q): %v", dir, err)
	}
	return a
}

func name(p user.Principal) string {
	if p.Tier == user.TierPremium {
		return p.Subject() + "-premium"
	}
	return p.Subject()
}

// TestRepositoryPolicies checks the decisions of the real policies/ files.
func TestRepositoryPolicies(t *testing.T) {
	a := mustLoad(t, policyDir)

	type row struct {
		action, resource string
		allowed          []user.Principal
		refused          []user.Principal
	}
	rows := []row{
		{"read", "system:health", everyone, nil},
		{"read", "system:metrics", everyone, nil},
		{"read", "system:openapi", everyone, nil},
		{"read", "system:keys", everyone, nil},
		{"login", "auth:session", everyone, nil},
		{"refresh", "auth:session", everyone, nil},
		{"logout", "auth:session", everyone, nil},
		{"signup", "auth:account", everyone, nil},
		{"view", "web:pages", everyone, nil},   // the pages ask the library's permissions themselves
		{"submit", "web:forms", everyone, nil}, // likewise the forms
		{"read", "users:me", authenticated, []user.Principal{anonymous}},
		{"read", "books:content:free", authenticated, []user.Principal{anonymous}},
		{"read", "books:content:premium", []user.Principal{premium, admin}, []user.Principal{anonymous, reader, student, staff, teacher, librarian}},
		// Default deny: unknown resources and actions.
		{"read", "system:secrets", nil, everyone},
		{"delete", "users:profile", nil, everyone},
		{"read", "users:stats:account", []user.Principal{admin}, []user.Principal{anonymous, reader, student, staff, librarian}}, // without a target: only admins
		{"write", "system:health", nil, everyone},
		{"read", "users:someone-else", nil, everyone},
		{"read", "books:content", authenticated, []user.Principal{anonymous}}, // the route; the book's access is decided below
		{"read", "books:content:secret", nil, everyone},
		{"delete", "books:catalog", []user.Principal{admin}, []user.Principal{anonymous, reader, student, staff, librarian}},
		{"read", "books:content:premium:extra", nil, everyone},
		// The background jobs are read by the roles that start them.
		{"read", "library:jobs", []user.Principal{librarian, admin}, []user.Principal{anonymous, reader, student, staff, teacher}},
		// Classes: the list route is open to those who may see a class; a
		// class itself is asked with its facts (TestClassPolicies).
		{"read", "library:classes", []user.Principal{teacher, staff, librarian, admin}, []user.Principal{anonymous, reader, student}},
		{"read", "library:class", []user.Principal{admin}, []user.Principal{anonymous, reader, student, staff, teacher, librarian}},
		{"delete", "library:jobs", nil, everyone},
		// Books read: the desk marks a returned loan (staff is read-only),
		// a student their own, from their page or the app.
		{"finish", "library:loans", []user.Principal{librarian, admin}, []user.Principal{anonymous, reader, student, staff, teacher}},
		{"finish", "library:ownhistory", []user.Principal{student}, []user.Principal{anonymous, reader, staff, teacher, librarian, admin}},
		{"read", "users:readingrecord", authenticated, []user.Principal{anonymous}},
		{"finish", "users:readingrecord", []user.Principal{student}, []user.Principal{anonymous, reader, staff, teacher, librarian, admin}},
		{"read", "", nil, everyone},
		{"", "users:me", nil, everyone},
		// Matching is case-sensitive.
		{"Read", "users:me", nil, everyone},
		{"read", "USERS:ME", nil, everyone},
		{"READ", "system:health", nil, everyone},
		{"read", "System:Health", nil, everyone},
		{"Login", "auth:session", nil, everyone},
	}
	for _, r := range rows {
		for _, want := range []struct {
			who     []user.Principal
			allowed bool
		}{{r.allowed, true}, {r.refused, false}} {
			for _, p := range want.who {
				t.Run(fmt.Sprintf("%s_%s_%s", r.action, r.resource, name(p)), func(t *testing.T) {
					err := a.Authorize(context.Background(), ports.AccessRequest{Principal: p, Action: r.action, Resource: r.resource})
					checkDecision(t, err, want.allowed)
				})
			}
		}
	}
}

func checkDecision(t *testing.T, err error, allowed bool) {
	t.Helper()
	if allowed {
		if err != nil {
			t.Fatalf("got %v, want allowed", err)
		}
		return
	}
	if err == nil {
		t.Fatal("got allowed, want forbidden")
	}
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("got %T %v, want *errs.Error", err, err)
	}
	if e.Kind != errs.Forbidden || e.ClientCode() != "forbidden" {
		t.Fatalf("got kind %q code %q, want %q %q", e.Kind, e.ClientCode(), errs.Forbidden, "forbidden")
	}
	if e.Err == nil {
		t.Fatal("got no cause in Err, want the ladon error")
	}
}

// A teacher opens the class whose teacher is their account, and no other;
// staff and librarians open the classes of their own school.
func TestClassPolicies(t *testing.T) {
	a := mustLoad(t, policyDir)
	other := user.Principal{AccountID: "a-teacher-2", Role: user.RoleTeacher, SchoolID: "s-1", Tier: user.TierStandard}
	otherStaff := user.Principal{AccountID: "a-staff-2", Role: user.RoleStaff, SchoolID: "s-2", Tier: user.TierStandard}
	tests := []struct {
		name    string
		p       user.Principal
		ctx     map[string]any
		allowed bool
	}{
		{"TeacherOwnClass", teacher, map[string]any{"resource_school_id": "s-1", "teacher_account_id": "a-teacher"}, true},
		{"TeacherAnotherTeachersClass", other, map[string]any{"resource_school_id": "s-1", "teacher_account_id": "a-teacher"}, false},
		{"TeacherClassWithoutTeacher", teacher, map[string]any{"resource_school_id": "s-1", "teacher_account_id": ""}, false},
		{"TeacherWithoutFacts", teacher, nil, false},
		{"StaffOwnSchool", staff, map[string]any{"resource_school_id": "s-1", "teacher_account_id": "a-teacher"}, true},
		{"StaffOtherSchool", otherStaff, map[string]any{"resource_school_id": "s-1", "teacher_account_id": ""}, false},
		{"LibrarianOwnSchool", librarian, map[string]any{"resource_school_id": "s-1", "teacher_account_id": ""}, true},
		{"StudentOfTheClass", student, map[string]any{"resource_school_id": "s-1", "teacher_account_id": "a-student"}, false},
		{"Admin", admin, map[string]any{"resource_school_id": "s-9", "teacher_account_id": ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := a.Authorize(context.Background(), ports.AccessRequest{Principal: tt.p, Action: "read", Resource: "library:class", Context: tt.ctx})
			checkDecision(t, err, tt.allowed)
		})
	}
}

func TestClientContextCannotOverridePrincipal(t *testing.T) {
	a := mustLoad(t, policyDir)
	tests := []struct {
		name    string
		p       user.Principal
		ctx     map[string]any
		allowed bool
	}{
		{"StandardClaimsPremium", reader, map[string]any{"tier": "premium"}, false},
		{"AnonymousClaimsPremium", anonymous, map[string]any{"tier": "premium", "role": "admin", "account_id": "a-admin"}, false},
		{"StandardClaimsAdminRole", reader, map[string]any{"role": "admin"}, false},
		{"PremiumClaimsStandard", premium, map[string]any{"tier": "standard"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := a.Authorize(context.Background(), ports.AccessRequest{Principal: tt.p, Action: "read", Resource: "books:content:premium", Context: tt.ctx})
			checkDecision(t, err, tt.allowed)
		})
	}
}

func TestDeniedKeepsLadonCause(t *testing.T) {
	a := mustLoad(t, policyDir)
	err := a.Authorize(context.Background(), ports.AccessRequest{Principal: anonymous, Action: "read", Resource: "users:me"})
	if got, want := errors.Is(err, ladon.ErrRequestDenied), true; got != want {
		t.Fatalf("errors.Is(err, ladon.ErrRequestDenied) = %v, want %v (err %v)", got, want, err)
	}
	e, _ := errs.As(err)
	if got, want := e.Message, "You do not have permission to do this."; got != want {
		t.Fatalf("got message %q, want %q", got, want)
	}
}

// writePolicies writes files into a fresh directory and returns it.
func writePolicies(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func policy(id, extra string) string {
	return `{"id":"` + id + `","subjects":["reader"],"actions":["read"],"resources":["books:content:free"],"effect":"allow"` + extra + `}`
}

func TestCustomConditions(t *testing.T) {
	dir := writePolicies(t, map[string]string{"p.json": `[
		{"id":"loans-school-read","subjects":["librarian","staff"],"actions":["read"],"resources":["library:loan"],"effect":"allow",
		 "conditions":{"resource_school_id":{"type":"SameSchoolCondition"}}},
		{"id":"progress-own-update","subjects":["reader","student"],"actions":["update"],"resources":["books:progress"],"effect":"allow",
		 "conditions":{"owner_account_id":{"type":"EqualsAccountCondition","options":{}}}},
		{"id":"catalog-pattern-read","subjects":["reader"],"actions":["read"],"resources":["catalog:<[^:]+>"],"effect":"allow"}
	]`})
	a := mustLoad(t, dir)
	tests := []struct {
		name    string
		p       user.Principal
		action  string
		res     string
		ctx     map[string]any
		allowed bool
	}{
		{"SameSchool", librarian, "read", "library:loan", map[string]any{"resource_school_id": "s-1"}, true},
		{"OtherSchool", librarian, "read", "library:loan", map[string]any{"resource_school_id": "s-2"}, false},
		{"SchoolMissing", librarian, "read", "library:loan", nil, false},
		{"SchoolEmpty", librarian, "read", "library:loan", map[string]any{"resource_school_id": ""}, false},
		{"SchoolNotString", librarian, "read", "library:loan", map[string]any{"resource_school_id": 1}, false},
		{"NoSchoolCallerEmptyResourceSchool", user.Principal{AccountID: "x", Role: user.RoleStaff}, "read", "library:loan", map[string]any{"resource_school_id": ""}, false},
		{"ClientSchoolIgnored", librarian, "read", "library:loan", map[string]any{"resource_school_id": "s-2", "school_id": "s-2"}, false},
		{"Owner", reader, "update", "books:progress", map[string]any{"owner_account_id": "a-reader"}, true},
		{"NotOwner", reader, "update", "books:progress", map[string]any{"owner_account_id": "a-premium"}, false},
		{"OwnerMissing", reader, "update", "books:progress", nil, false},
		{"ClientAccountIgnored", reader, "update", "books:progress", map[string]any{"owner_account_id": "a-premium", "account_id": "a-premium"}, false},
		{"AnonymousOwnerEmpty", anonymous, "update", "books:progress", map[string]any{"owner_account_id": ""}, false},
		{"PatternOneSegment", reader, "read", "catalog:lyon", nil, true},
		{"PatternCannotCrossSeparator", reader, "read", "catalog:lyon:secret", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := a.Authorize(context.Background(), ports.AccessRequest{Principal: tt.p, Action: tt.action, Resource: tt.res, Context: tt.ctx})
			checkDecision(t, err, tt.allowed)
		})
	}
}

func TestDenyOverridesAllow(t *testing.T) {
	dir := writePolicies(t, map[string]string{"p.json": `[
		` + policy("books-free-read", "") + `,
		{"id":"books-free-deny-standard","subjects":["reader"],"actions":["read"],"resources":["books:content:free"],"effect":"deny",
		 "conditions":{"tier":{"type":"StringEqualCondition","options":{"equals":"standard"}}}}
	]`})
	a := mustLoad(t, dir)
	err := a.Authorize(context.Background(), ports.AccessRequest{Principal: reader, Action: "read", Resource: "books:content:free"})
	checkDecision(t, err, false)
	if got, want := errors.Is(err, ladon.ErrRequestForcefullyDenied), true; got != want {
		t.Fatalf("errors.Is(err, ErrRequestForcefullyDenied) = %v, want %v", got, want)
	}
	err = a.Authorize(context.Background(), ports.AccessRequest{Principal: premium, Action: "read", Resource: "books:content:free"})
	checkDecision(t, err, true)
}

func TestLoadErrors(t *testing.T) {
	good := `[` + policy("good", "") + `]`
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"InvalidJSON", map[string]string{"a.json": good, "bad.json": `[{"id":"x",}]`}, []string{"bad.json", "invalid JSON"}},
		{"NotAnArray", map[string]string{"bad.json": policy("x", "")}, []string{"bad.json", "invalid JSON"}},
		{"UnknownCondition", map[string]string{"bad.json": `[` + policy("cond", `,"conditions":{"tier":{"type":"TierCondition"}}`) + `]`}, []string{"bad.json", `"cond"`, "TierCondition"}},
		{"UnknownConditionOption", map[string]string{"bad.json": `[` + policy("opt", `,"conditions":{"tier":{"type":"StringEqualCondition","options":{"equal":"premium"}}}`) + `]`}, []string{"bad.json", `"opt"`, "equal"}},
		{"EmptyEquals", map[string]string{"bad.json": `[` + policy("eq", `,"conditions":{"tier":{"type":"StringEqualCondition","options":{"equals":""}}}`) + `]`}, []string{"bad.json", `"eq"`, "equals"}},
		{"SelfReferencingCondition", map[string]string{"bad.json": `[` + policy("self", `,"conditions":{"school_id":{"type":"SameSchoolCondition"}}`) + `]`}, []string{"bad.json", `"self"`, "school_id"}},
		{"EffectCapitalised", map[string]string{"bad.json": `[{"id":"cap","subjects":["reader"],"actions":["read"],"resources":["users:me"],"effect":"Allow"}]`}, []string{"bad.json", `"cap"`, `"Allow"`}},
		{"EffectMissing", map[string]string{"bad.json": `[{"id":"noeff","subjects":["reader"],"actions":["read"],"resources":["users:me"]}]`}, []string{"bad.json", `"noeff"`, "effect"}},
		{"DuplicateID", map[string]string{"a.json": `[` + policy("dup", "") + `]`, "b.json": `[` + policy("dup", "") + `]`}, []string{"b.json", `"dup"`, "duplicate", "a.json"}},
		{"DuplicateIDInFile", map[string]string{"a.json": `[` + policy("dup", "") + `,` + policy("dup", "") + `]`}, []string{"a.json", `"dup"`, "duplicate"}},
		{"DotStar", map[string]string{"bad.json": `[{"id":"wide","subjects":["reader"],"actions":["read"],"resources":["books:<.*>"],"effect":"allow"}]`}, []string{"bad.json", `"wide"`, "<.*>", "separators"}},
		{"DotPlus", map[string]string{"bad.json": `[{"id":"wide","subjects":["reader"],"actions":["<.+>"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", `"wide"`, "<.+>"}},
		{"ClassWithColon", map[string]string{"bad.json": `[{"id":"wide","subjects":["reader"],"actions":["read"],"resources":["books:<[^/]+>"],"effect":"allow"}]`}, []string{"bad.json", `"wide"`, "separators"}},
		{"NestedQuantifier", map[string]string{"bad.json": `[{"id":"redos","subjects":["reader"],"actions":["read"],"resources":["files:<(a+)+b>"],"effect":"allow"}]`}, []string{"bad.json", `"redos"`, "quantifiers"}},
		{"CaseInsensitivePattern", map[string]string{"bad.json": `[{"id":"fold","subjects":["reader"],"actions":["<(?i)read>"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", `"fold"`, "case-insensitive"}},
		{"UppercaseAction", map[string]string{"bad.json": `[{"id":"upper","subjects":["reader"],"actions":["Read"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", `"upper"`, "uppercase"}},
		{"EmptySubjects", map[string]string{"bad.json": `[{"id":"nosub","subjects":[],"actions":["read"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", `"nosub"`, "empty subjects"}},
		{"UnknownSubject", map[string]string{"bad.json": `[{"id":"typo","subjects":["libarian"],"actions":["read"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", `"typo"`, "libarian"}},
		{"EmptyActions", map[string]string{"bad.json": `[{"id":"noact","subjects":["reader"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", `"noact"`, "empty actions"}},
		{"EmptyResources", map[string]string{"bad.json": `[{"id":"nores","subjects":["reader"],"actions":["read"],"resources":[],"effect":"allow"}]`}, []string{"bad.json", `"nores"`, "empty resources"}},
		{"EmptyID", map[string]string{"bad.json": `[{"subjects":["reader"],"actions":["read"],"resources":["books:x"],"effect":"allow"}]`}, []string{"bad.json", "policy #1", "empty id"}},
		{"MisspeltConditions", map[string]string{"bad.json": `[` + policy("typo", `,"condition":{"tier":{"type":"StringEqualCondition","options":{"equals":"premium"}}}`) + `]`}, []string{"bad.json", `"typo"`, `unknown field "condition"`}},
		{"UnbalancedPattern", map[string]string{"bad.json": `[{"id":"unbal","subjects":["reader"],"actions":["read"],"resources":["books:<[a-z]+"],"effect":"allow"}]`}, []string{"bad.json", `"unbal"`, "unbalanced"}},
		{"EmptyDir", map[string]string{}, []string{"no *.json policy files"}},
		{"OnlyOtherFiles", map[string]string{"README.md": "# none"}, []string{"no *.json policy files"}},
		{"EmptyArray", map[string]string{"a.json": `[]`}, []string{"no policies"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writePolicies(t, tt.files)
			a, err := ladonauthz.Load(dir)
			if err == nil {
				t.Fatalf("got Authorizer with %d policies, want an error", len(a.Policies()))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got error %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadMissingDir(t *testing.T) {
	if _, err := ladonauthz.Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("got nil error, want one for a missing directory")
	}
}

func TestPolicies(t *testing.T) {
	a := mustLoad(t, policyDir)
	ps := a.Policies()
	ids := map[string]ladonauthz.Policy{}
	for _, p := range ps {
		ids[p.ID] = p
	}
	for _, id := range []string{"system-public", "auth-session", "auth-signup", "users-me-read", "books-content-free", "books-content-premium-tier", "books-content-premium-admin"} {
		if _, ok := ids[id]; !ok {
			t.Errorf("got no policy %q, want it loaded", id)
		}
	}
	if got, want := ids["books-content-premium-tier"].Conditions["tier"], "StringEqualCondition"; got != want {
		t.Errorf("got tier condition %q, want %q", got, want)
	}
	if got, want := filepath.Base(ids["users-me-read"].File), "users.json"; got != want {
		t.Errorf("got file %q, want %q", got, want)
	}
	// The copies are independent of the authorizer.
	ps[0].Subjects[0] = "changed"
	if got := a.Policies()[0].Subjects[0]; got == "changed" {
		t.Errorf("got %q after changing a copy, want the loaded value", got)
	}
}

func TestConcurrentAuthorize(t *testing.T) {
	a := mustLoad(t, policyDir)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				p := everyone[i%len(everyone)]
				err := a.Authorize(context.Background(), ports.AccessRequest{Principal: p, Action: "read", Resource: "users:me"})
				if got, want := err == nil, !p.IsAnonymous(); got != want {
					t.Errorf("%s: got allowed=%v, want %v", name(p), got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
