package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ----- the audit log: a page of entries as JSON, or with ?format=csv the
// entries the filter selects as a CSV download (at most
// library.MaxAuditExport; X-Next-Cursor reads on) -----

type auditActorBody struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

type auditChangeBody struct {
	Field  string `json:"field"`
	Before string `json:"before"`
	After  string `json:"after"`
}

type auditEntryBody struct {
	ID       string            `json:"id"`
	SchoolID string            `json:"school_id"`
	At       time.Time         `json:"at"`
	Actor    auditActorBody    `json:"actor"`
	Address  string            `json:"address"`
	Action   string            `json:"action"`
	Target   string            `json:"target"`
	Summary  string            `json:"summary"`
	Changes  []auditChangeBody `json:"changes"`
}

type auditReply struct {
	// SchoolID is the school read; "" when an admin reads every school.
	SchoolID   string           `json:"school_id"`
	Entries    []auditEntryBody `json:"entries"`
	NextCursor string           `json:"next_cursor"`
}

func toAuditEntryBody(e library.AuditEntry) auditEntryBody {
	changes := make([]auditChangeBody, len(e.Changes))
	for i, c := range e.Changes {
		changes[i] = auditChangeBody(c)
	}
	return auditEntryBody{ID: e.ID, SchoolID: e.SchoolID, At: e.At.UTC(), Actor: auditActorBody{ID: e.ActorID, Email: e.ActorEmail, Role: e.ActorRole},
		Address: e.Address, Action: string(e.Action), Target: e.Target, Summary: e.Summary, Changes: changes}
}

// auditTable is the log as CSV: one row per entry, its time in the
// school's zone (UTC across every school), its changes in one cell.
func auditTable(page usecase.AuditPage) reportTable {
	loc := page.School.Settings.Location()
	t := reportTable{header: []string{"at", "school_id", "actor_email", "actor_role", "address", "action", "target", "summary", "changes"}}
	for _, e := range page.Entries {
		t.rows = append(t.rows, []string{e.At.In(loc).Format(time.RFC3339), e.SchoolID, e.ActorEmail, e.ActorRole, e.Address,
			string(e.Action), e.Target, e.Summary, auditChangesText(e.Changes)})
	}
	return t
}

// auditChangesText writes changes as "field: before → after; …".
func auditChangesText(cs []library.AuditChange) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Field + ": " + c.Before + " → " + c.After
	}
	return strings.Join(parts, "; ")
}

func (h *handler) listAudit(w http.ResponseWriter, r *http.Request) {
	p, asCSV, ok := reportParams(w, r, "actor", "action", "from", "to", "cursor", "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", library.DefaultAuditPage)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	f := usecase.AuditFilter{School: p["schoolId"], Actor: p["actor"], Action: p["action"], From: p["from"], To: p["to"],
		Cursor: p["cursor"], Limit: limit}
	audit := h.deps.Library.Audit
	read := audit.Page
	if asCSV {
		read = audit.Export
	}
	page, err := read(r.Context(), f)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if asCSV {
		if page.NextCursor != "" {
			w.Header().Set("X-Next-Cursor", page.NextCursor)
		}
		name := "audit-log"
		if page.School.Domain != "" {
			name += "-" + page.School.Domain
		}
		writeCSV(w, name, auditTable(page))
		return
	}
	httpedge.WriteJSON(w, http.StatusOK, auditReply{SchoolID: page.School.ID, Entries: mapSlice(page.Entries, toAuditEntryBody),
		NextCursor: page.NextCursor})
}
