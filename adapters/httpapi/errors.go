// Package httpapi is the HTTP edge of the service: gorilla/mux routes, the
// middleware chain (request ids, logs, panics, CORS, authentication, rate
// limits, CSRF, policies), strict JSON decoding and the one error writer.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
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
