package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
)

// The edge's writers and request helpers, under the names the handlers use.
var (
	writeError    = httpedge.WriteError
	writeJSON     = httpedge.WriteJSON
	loggerFrom    = httpedge.Logger
	requestIDFrom = httpedge.RequestID
)

// Cookie names. Clients and openapi.json know them by these names, so they
// never change.
const (
	accessCookie  = httpedge.AccessCookie
	refreshCookie = "sb-refresh-token"
	// deviceCookie holds the device token of the last account signed in
	// from this browser; only the sign-in route reads it.
	deviceCookie = "sb-device-token"
)

func (h *handler) clientIP(r *http.Request) string { return h.edge.ClientIP(r) }

func (h *handler) checkCSRF(r *http.Request) error { return h.edge.CheckCSRF(r) }
