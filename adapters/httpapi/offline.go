package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/selfcheck"
	"github.com/readinglibrary/service/core/service/usecase"
)

// The desk's offline scans: the desk's browser uploads what it scanned
// while the server could not be reached, and the librarian settles the
// scans the rules refused.

type offlineScanRequest struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Code      string `json:"code"`
	Student   string `json:"student"`
	ScannedAt string `json:"scanned_at"` // RFC 3339, read by the handler so a bad one names its scan
}

type offlineUploadRequest struct {
	Scans []offlineScanRequest `json:"scans" validate:"required"`
}

type offlinePutAside struct {
	StudentName   string `json:"student_name"`
	StudentNumber string `json:"student_number"`
	Homeroom      string `json:"homeroom"`
}

type offlineScanBody struct {
	ID         string           `json:"id"`
	Kind       string           `json:"kind"`
	Code       string           `json:"code"`
	Student    string           `json:"student,omitempty"`
	ScannedAt  time.Time        `json:"scanned_at"`
	UploadedAt time.Time        `json:"uploaded_at"`
	UploadedBy string           `json:"uploaded_by"`
	Status     string           `json:"status"` // applied, conflict, dismissed, or pending
	Reason     string           `json:"reason"`
	Message    string           `json:"message"`
	LoanID     string           `json:"loan_id"`
	SettledBy  string           `json:"settled_by"`
	Duplicate  bool             `json:"duplicate"`
	PutAside   *offlinePutAside `json:"put_aside"`
}

func toOfflineScanBody(op library.OfflineOp) offlineScanBody {
	b := offlineScanBody{ID: op.ID, Kind: op.Kind, Code: op.Code, Student: op.Card, ScannedAt: op.ScannedAt, UploadedAt: op.UploadedAt,
		UploadedBy: op.UploadedBy, Status: op.Status, Reason: op.Reason, Message: op.Message, LoanID: op.LoanID, SettledBy: op.SettledBy}
	if b.Status == "" {
		b.Status = "pending"
	}
	return b
}

func toOfflineResultBody(res selfcheck.OfflineResult) offlineScanBody {
	b := toOfflineScanBody(res.Op)
	b.Duplicate = res.Duplicate
	if pa := res.PutAside; pa != nil {
		b.PutAside = &offlinePutAside{StudentName: pa.StudentName, StudentNumber: pa.StudentNumber, Homeroom: pa.Homeroom}
	}
	return b
}

type offlineUploadReply struct {
	Results []offlineScanBody `json:"results"`
}

type offlineScansReply struct {
	Scans      []offlineScanBody `json:"scans"`
	Pagination pagination        `json:"pagination"`
}

type offlineSettleRequest struct {
	Action string `json:"action" validate:"required"`
}

type offlineSettleReply struct {
	Scan offlineScanBody `json:"scan"`
}

func (h *handler) uploadOfflineScans(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[offlineUploadRequest](w, r)
	if !ok {
		return
	}
	ops := make([]library.OfflineOp, len(req.Scans))
	unread := errs.FieldErrors{}
	for i, s := range req.Scans {
		ops[i] = library.OfflineOp{ID: s.ID, Kind: s.Kind, Code: s.Code, Card: s.Student}
		if s.ScannedAt == "" {
			continue // the use case names the missing time
		}
		at, err := time.Parse(time.RFC3339, s.ScannedAt)
		if err != nil {
			unread.Add(fmt.Sprintf("scans[%d].scanned_at", i), "must be a date and time such as 2026-01-05T10:00:00Z")
		}
		ops[i].ScannedAt = at
	}
	_, results, err := h.deps.Library.SelfCheck.UploadOffline(r.Context(), school, ops, unread)
	respond(w, r, http.StatusOK, offlineUploadReply{Results: mapSlice(results, toOfflineResultBody)}, err)
}

func (h *handler) listOfflineConflicts(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, nil, func(p map[string]string, q usecase.ListQuery) (any, error) {
		_, ops, total, err := h.deps.Library.SelfCheck.OfflineConflicts(r.Context(), p["schoolId"], q)
		return offlineScansReply{Scans: mapSlice(ops, toOfflineScanBody), Pagination: pageOf(q.Page, q.Limit, total)}, err
	})
}

func (h *handler) settleOfflineScan(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[offlineSettleRequest](w, r)
	if !ok {
		return
	}
	res, err := h.deps.Library.SelfCheck.SettleOffline(r.Context(), school, pathID(r), req.Action)
	respond(w, r, http.StatusOK, offlineSettleReply{Scan: toOfflineResultBody(res)}, err)
}
