package httpapi

import (
	"github.com/readinglibrary/service/adapters/httpedge"
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
