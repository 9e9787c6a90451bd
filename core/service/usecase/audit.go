package usecase

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// AuditLog records what staff and admins change and reads it back:
// librarians their own school's entries, admins every school's.
type AuditLog struct {
	repo  ports.AuditLogRepository
	scope SchoolScope
	clock *Clock
	// onError is told of an entry that could not be stored (the log).
	onError func(op string, err error)
}

// NewAuditLog returns the audit log over repo. onError may be nil. It
// panics on a nil store or clock, wiring bugs.
func NewAuditLog(repo ports.AuditLogRepository, schools ports.SchoolRepository, clock *Clock, onError func(op string, err error)) *AuditLog {
	MustHave("NewAuditLog", struct {
		Repo    ports.AuditLogRepository
		Schools ports.SchoolRepository
		Clock   *Clock
	}{repo, schools, clock})
	return &AuditLog{repo: repo, scope: NewSchoolScope(schools), clock: clock, onError: onError}
}

// Record appends an entry of what the caller has just done: the action,
// school, target, summary and changes come from e, the id, time, actor and
// address from the service and the request. The action has happened by
// then, so an entry that cannot be stored does not undo it: the failure
// goes to the error log, naming the action and target only. A nil log
// records nothing (use cases built without one, in tests).
func (a *AuditLog) Record(ctx context.Context, e library.AuditEntry) {
	if a == nil {
		return
	}
	p := user.PrincipalFrom(ctx)
	// Entries of one millisecond are listed by id: ordered ids keep them
	// in the order they were recorded.
	e.ID, e.At = NewOrderedUUID(), a.clock.Now().UTC()
	e.ActorID, e.ActorEmail, e.ActorRole = p.AccountID, strings.ToLower(p.Email), string(p.Role)
	if p.IsAnonymous() {
		// Work no one signed in for: the demo data, a start-up task.
		e.ActorRole = "system"
	}
	e.Address = user.AddressFrom(ctx)
	e.Summary = library.CutAuditText(e.Summary, library.MaxAuditSummary)
	e.Changes = library.BoundAuditChanges(e.Changes)
	// The entry is written even when the request has been cancelled since
	// its action succeeded.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), UndoTimeout)
	defer cancel()
	if err := a.repo.Append(wctx, e); err != nil && a.onError != nil {
		a.onError("audit log: record "+string(e.Action)+" of "+e.Target, err)
	}
}

// RecordChange records e with the fields that differ between before and
// after as its changes, and nothing when none differ: a save that changed
// nothing is not an action worth a line.
func (a *AuditLog) RecordChange(ctx context.Context, e library.AuditEntry, before, after map[string]string) {
	if e.Changes = library.AuditDiff(before, after); len(e.Changes) > 0 {
		a.Record(ctx, e)
	}
}

// AuditFilter is a reader's choice of entries.
type AuditFilter struct {
	// School is the school named (schoolId); admins may leave it out to
	// read every school's entries.
	School string
	// Actor is a person's email; Action one of library.AuditActions.
	Actor  string
	Action string
	// From and To are dates (YYYY-MM-DD), both included, in the school's
	// time zone (UTC across every school).
	From, To string
	// Cursor is the NextCursor of the page before; "" for the first.
	Cursor string
	// Limit is the page size, 1..library.MaxAuditPage.
	Limit int
}

// AuditPage is one page of the log, newest first; NextCursor is "" on the
// last page.
type AuditPage struct {
	Entries    []library.AuditEntry
	NextCursor string
	// School is the school read, the zero School for every school.
	School library.School
}

// Page returns one page of the entries f selects.
// Errors: Invalid with details.fields (actor, action, from, to, cursor,
// limit), and as SchoolScope.Scope; a librarian naming no school reads
// their own.
func (a *AuditLog) Page(ctx context.Context, f AuditFilter) (AuditPage, error) {
	return a.read(ctx, f, f.Limit, library.MaxAuditPage)
}

// Export returns up to library.MaxAuditExport entries f selects, newest
// first, for a CSV download; NextCursor is set when more remain (a later
// export from it, or a narrower range, reads them).
func (a *AuditLog) Export(ctx context.Context, f AuditFilter) (AuditPage, error) {
	return a.read(ctx, f, library.MaxAuditExport, library.MaxAuditExport)
}

func (a *AuditLog) read(ctx context.Context, f AuditFilter, limit, maxLimit int) (AuditPage, error) {
	var out AuditPage
	q := library.AuditQuery{}
	p := user.PrincipalFrom(ctx)
	if f.School != "" || p.Role != user.RoleAdmin {
		school, err := a.scope.Scope(ctx, f.School, "schoolId")
		if err != nil {
			return out, err
		}
		out.School, q.SchoolID = school, school.ID
	}
	loc := out.School.Settings.Location()
	fields := errs.FieldErrors{}
	if limit < 1 || limit > maxLimit {
		fields.Add("limit", "must be between 1 and "+strconv.Itoa(maxLimit))
	}
	if f.Actor != "" {
		if len(f.Actor) > 254 || !strings.Contains(f.Actor, "@") {
			fields.Add("actor", "must be an email address")
		}
		q.ActorEmail = strings.ToLower(strings.TrimSpace(f.Actor))
	}
	if f.Action != "" {
		if !library.AuditAction(f.Action).Known() {
			fields.Add("action", "must be one of the logged actions")
		}
		q.Action = library.AuditAction(f.Action)
	}
	if f.From != "" {
		d, err := time.ParseInLocation(time.DateOnly, f.From, loc)
		if err != nil {
			fields.Add("from", "must be a date (YYYY-MM-DD)")
		}
		q.From = d
	}
	if f.To != "" {
		d, err := time.ParseInLocation(time.DateOnly, f.To, loc)
		if err != nil {
			fields.Add("to", "must be a date (YYYY-MM-DD)")
		}
		q.To = d.AddDate(0, 0, 1)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		fields.Add("to", "must not be before from")
	}
	if f.Cursor != "" {
		at, id, ok := decodeAuditCursor(f.Cursor)
		if !ok {
			fields.Add("cursor", "must be the next_cursor of an earlier page")
		}
		q.BeforeAt, q.BeforeID = at, id
	}
	if err := fields.Err(); err != nil {
		return out, err
	}
	// One entry more than the page tells whether another page follows.
	es, err := a.repo.Page(ctx, q, limit+1)
	if err != nil {
		return out, err
	}
	if len(es) > limit {
		es = es[:limit]
		last := es[len(es)-1]
		out.NextCursor = encodeAuditCursor(last.At, last.ID)
	}
	out.Entries = es
	return out, nil
}

// A cursor is the last entry's time (Unix milliseconds) and id, opaque to
// clients.
func encodeAuditCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMilli(), 10) + "/" + id))
}

func decodeAuditCursor(c string) (time.Time, string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", false
	}
	ms, id, ok := strings.Cut(string(raw), "/")
	if !ok || id == "" || len(id) > 100 {
		return time.Time{}, "", false
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, "", false
	}
	return time.UnixMilli(n).UTC(), id, true
}

// AuditRetention removes the entries older than days from now, in
// batches of batch, at most batches of them a sweep (the rest go at the
// next), as a SweepTask.
func (a *AuditLog) AuditRetention(days, batch, batches int) SweepTask {
	return SweepTask{Kind: "audit_log", Run: func(ctx context.Context, now time.Time) (int64, error) {
		cutoff := now.AddDate(0, 0, -days)
		var total int64
		for range batches {
			n, err := a.repo.DeleteBefore(ctx, cutoff, batch)
			total += n
			if err != nil || n < int64(batch) {
				return total, err
			}
		}
		return total, nil
	}}
}
