package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
)

// acceptedResponse is the body of a 202: the same for every address, so
// it tells nobody whether an account exists.
type acceptedResponse struct {
	Message string `json:"message"`
}

type passwordResetRequest struct {
	Email string `json:"email" validate:"required"`
}

type passwordResetConfirmRequest struct {
	Token       string `json:"token" validate:"required"`
	NewPassword string `json:"new_password" validate:"required"`
}

type verifyEmailRequest struct {
	Token string `json:"token" validate:"required"`
}

// passwordReset answers 202 for any well-formed address: the lookup and the
// mail happen after the answer (identity.Identity.RequestPasswordReset).
func (h *handler) passwordReset(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[passwordResetRequest](w, r)
	if !ok {
		return
	}
	err := h.deps.Identity.RequestPasswordReset(r.Context(), req.Email)
	respond(w, r, http.StatusAccepted, acceptedResponse{
		Message: "If an account has this address, a link to choose a new password is on its way; it works once, for 30 minutes.",
	}, err)
}

func (h *handler) confirmPasswordReset(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[passwordResetConfirmRequest](w, r)
	if !ok {
		return
	}
	if err := h.deps.Identity.ResetPassword(r.Context(), req.Token, req.NewPassword); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// verifyEmail creates the account of a verified sign-up. It is a POST, not
// the GET of the mailed link: mail scanners open links, and must not
// confirm an address for whoever signed up with it. The link opens a web
// page whose button posts the token.
func (h *handler) verifyEmail(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[verifyEmailRequest](w, r)
	if !ok {
		return
	}
	acct, err := h.deps.Identity.ConfirmSignup(r.Context(), req.Token)
	if err == nil {
		httpedge.SetAccount(r, acct.ID)
	}
	respond(w, r, http.StatusCreated, userReply{User: toOwnProfile(acct)}, err)
}
