package app

import (
	"github.com/readinglibrary/service/adapters/httpapi"
	"github.com/readinglibrary/service/adapters/webapp"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/ports"
)

// pageRoutes builds the librarian's web app and hands its pages to the HTTP
// edge, so they pass the same middleware chain as the JSON API (cookie
// session, rate limits, CSRF rule, route policy). The pages are not part of
// the JSON API and so not in openapi.json.
func pageRoutes(lib *service.Library, identity *service.Identity, authz ports.Authorizer, cookieSecure bool) []httpapi.ExtraRoute {
	web := webapp.New(webapp.Deps{Library: lib, Identity: identity, Authorizer: authz, LoggerOf: httpapi.RequestLogger, StatusOf: httpapi.StatusOf}, webapp.Config{CookieSecure: cookieSecure})
	var out []httpapi.ExtraRoute
	for _, rt := range web.Routes() {
		out = append(out, httpapi.ExtraRoute{
			RouteInfo: httpapi.RouteInfo{Name: rt.Name, Method: rt.Method, Path: rt.Path, Action: rt.Action, Resource: rt.Resource, Page: true},
			Handle:    rt.Handle, MediaType: rt.MediaType, Error: web.Refused,
		})
	}
	return out
}
