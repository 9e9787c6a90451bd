package httpapi

import (
	"context"
	_ "embed"
	"net/http"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
)

//go:embed openapi.json
var openAPIDocument []byte

func (h *handler) healthz(w http.ResponseWriter, r *http.Request) {
	httpedge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 503 while the database does not answer, so load balancers
// take the replica out until it recovers; liveness (/healthz) stays 200.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := h.deps.Health.Ping(ctx); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	httpedge.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (h *handler) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPIDocument)
}

// oidcConfiguration is the discovery document edge proxies read to find the
// keys that verify this service's tokens.
func (h *handler) oidcConfiguration(w http.ResponseWriter, r *http.Request) {
	iss := h.edge.Config().IssuerURL
	w.Header().Set("Cache-Control", "public, max-age=300")
	httpedge.WriteJSON(w, http.StatusOK, map[string]any{
		"issuer":                                iss,
		"jwks_uri":                              iss + "/.well-known/jwks.json",
		"token_endpoint":                        iss + "/api/auth/login",
		"response_types_supported":              []string{"token"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"claims_supported":                      []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "email"},
	})
}

func (h *handler) jwks(w http.ResponseWriter, r *http.Request) {
	doc, err := h.deps.Tokens.JWKS(r.Context())
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/jwk-set+json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(doc)
}
