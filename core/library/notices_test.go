package library

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
)

func TestNoticeSettingsGuardianFields(t *testing.T) {
	base := DefaultNoticeSettings()
	for _, c := range []struct {
		name   string
		change func(*NoticeSettings)
		field  string // "" when valid
	}{
		{"no copies", func(s *NoticeSettings) {}, ""},
		{"both kinds", func(s *NoticeSettings) { s.GuardianCopies = []string{NoticeHoldReady, NoticeOverdue} }, ""},
		{"a kind twice", func(s *NoticeSettings) { s.GuardianCopies = []string{NoticeOverdue, NoticeOverdue} }, ""},
		{"due soon is not copied", func(s *NoticeSettings) { s.GuardianCopies = []string{NoticeDueSoon} }, "guardian_copies"},
		{"a digest is not copied", func(s *NoticeSettings) { s.GuardianCopies = []string{NoticeOverdue, NoticeHomeroomDigest} }, "guardian_copies"},
		{"a contact of 200 characters", func(s *NoticeSettings) { s.Contact = strings.Repeat("é", 200) }, ""},
		{"a contact of 201", func(s *NoticeSettings) { s.Contact = strings.Repeat("é", 201) }, "contact"},
		{"a contact on two lines", func(s *NoticeSettings) { s.Contact = "call us\r\n555-0100" }, "contact"},
		{"a contact that is not UTF-8", func(s *NoticeSettings) { s.Contact = "caf\xe9" }, "contact"},
	} {
		s := base
		c.change(&s)
		err := ValidateNoticeSettings(s)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", c.name, err)
			}
			continue
		}
		var e *errs.Error
		fields := map[string]any{}
		if errors.As(err, &e) {
			fields, _ = e.Details["fields"].(map[string]any)
		}
		if fields[c.field] == nil || len(fields) != 1 {
			t.Errorf("%s: %v, want an error on %s alone", c.name, err, c.field)
		}
	}
}

func TestNormalizeNoticeSettings(t *testing.T) {
	s := NormalizeNoticeSettings(NoticeSettings{GuardianCopies: []string{NoticeHoldReady, NoticeOverdue, NoticeHoldReady}, Contact: "  library@school.example.org  "})
	if !slices.Equal(s.GuardianCopies, []string{NoticeOverdue, NoticeHoldReady}) || s.Contact != "library@school.example.org" {
		t.Errorf("normalised %+v", s)
	}
	if s := NormalizeNoticeSettings(NoticeSettings{GuardianCopies: []string{}}); s.GuardianCopies != nil {
		t.Errorf("no copies normalise to %#v, want nil (as the stores read them back)", s.GuardianCopies)
	}
	if !s.CopiesToGuardians(NoticeOverdue) || s.CopiesToGuardians(NoticeDueSoon) {
		t.Errorf("CopiesToGuardians of %v is wrong", s.GuardianCopies)
	}
}

// Each guardian's copy has a key of its own, apart from the student's
// notice and from the other guardian's, so each is claimed and sent once.
func TestGuardianNoticeKeys(t *testing.T) {
	student := NoticeKey("loan-1", NoticeOverdue, "2026-11-20", 7, "2026-11-29")
	a, b := GuardianNoticeKey(student, "ann@example.org"), GuardianNoticeKey(student, "bo@example.org")
	if a == student || b == student || a == b {
		t.Errorf("keys %q, %q, %q are not distinct", student, a, b)
	}
	if GuardianNoticeKey(NoticeKey("loan-1", NoticeOverdue, "2026-11-20", 14, "2026-12-06"), "ann@example.org") == a {
		t.Error("the copy of a later step has the key of the first")
	}
	for kind, want := range map[string]string{NoticeOverdue: NoticeOverdueGuardian, NoticeHoldReady: NoticeHoldReadyGuardian} {
		if got, ok := GuardianKind(kind); !ok || got != want {
			t.Errorf("GuardianKind(%s) = %s, %v", kind, got, ok)
		}
	}
	for _, kind := range []string{NoticeDueSoon, NoticeHoldExpiring, NoticeHomeroomDigest} {
		if _, ok := GuardianKind(kind); ok {
			t.Errorf("%s has a guardian copy", kind)
		}
	}
}
