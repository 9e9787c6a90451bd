package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
)

type accountBody struct {
	AccountID string `json:"account_id"`
	Email     string `json:"email"`
	Name      string `json:"name"`
	SchoolID  string `json:"school_id"`
	Role      string `json:"role"`
	Tier      string `json:"tier"`
	Suspended bool   `json:"suspended"`
	CreatedAt string `json:"created_at"`
}

func toAccountBody(a user.Account) accountBody {
	return accountBody{AccountID: a.ID, Email: a.Email, Name: a.Name, SchoolID: a.SchoolID, Role: string(a.Role),
		Tier: string(a.Tier), Suspended: a.Suspended, CreatedAt: timestamp(a.CreatedAt)}
}

type updateUserRequest struct {
	Tier *string `json:"tier" validate:"omitnil,oneof=standard premium"`
	Role *string `json:"role" validate:"omitnil,oneof=admin staff librarian student reader"`
}

func (h *handler) updateUser(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[updateUserRequest](w, r)
	if !ok {
		return
	}
	var tier *user.Tier
	var role *user.Role
	if req.Tier != nil {
		t := user.Tier(*req.Tier)
		tier = &t
	}
	if req.Role != nil {
		ro := user.Role(*req.Role)
		role = &ro
	}
	a, err := h.deps.Library.Staff.UpdateUser(r.Context(), pathID(r), tier, role)
	if err == nil {
		httpedge.Logger(r).Info("account changed by an admin", "account_id", a.ID, "role", a.Role, "tier", a.Tier)
	}
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}

func (h *handler) listAccounts(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	accts, err := h.deps.Library.Staff.Accounts(r.Context(), school)
	respond(w, r, http.StatusOK, accountsReply{Accounts: mapSlice(accts, toAccountBody)}, err)
}

type inviteRequest struct {
	Email    string  `json:"email" validate:"required"`
	SchoolID string  `json:"school_id" validate:"required"`
	Password *string `json:"password" validate:"omitnil,min=1"` // left out: the account gets an invitation token
	Role     *string `json:"role" validate:"omitnil,oneof=librarian staff teacher"`
}

func (h *handler) invite(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[inviteRequest](w, r)
	if !ok {
		return
	}
	a, token, err := h.deps.Library.Staff.Invite(r.Context(), req.Email, req.SchoolID, deref(req.Password), user.Role(deref(req.Role)))
	if err == nil {
		httpedge.Logger(r).Info("staff account invited", "account_id", a.ID, "school_id", a.SchoolID, "role", a.Role)
	}
	body := inviteReply{Account: toAccountBody(a)}
	if token != "" {
		body.InviteToken, body.InviteExpiresIn = token, int(identity.InviteTTL.Seconds())
	}
	respond(w, r, http.StatusCreated, body, err)
}

type acceptInviteRequest struct {
	Token    string `json:"token" validate:"required"`
	Password string `json:"password" validate:"required"`
}

func (h *handler) acceptInvite(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[acceptInviteRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Staff.AcceptInvite(r.Context(), req.Token, req.Password)
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}

type manageRequest struct {
	AccountID string `json:"account_id" validate:"required"`
	Suspended *bool  `json:"suspended" validate:"required"`
}

func (h *handler) manageAccount(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[manageRequest](w, r)
	if !ok {
		return
	}
	a, err := h.deps.Library.Staff.ManageAccount(r.Context(), "", req.AccountID, *req.Suspended)
	if err == nil {
		httpedge.Logger(r).Info("account suspension changed", "account_id", a.ID, "suspended", a.Suspended)
	}
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}

func (h *handler) unlockAccount(w http.ResponseWriter, r *http.Request) {
	a, err := h.deps.Library.Staff.UnlockSignIn(r.Context(), "", pathID(r))
	if err == nil {
		httpedge.Logger(r).Info("sign-in lock lifted", "account_id", a.ID)
	}
	respond(w, r, http.StatusOK, accountReply{Account: toAccountBody(a)}, err)
}
