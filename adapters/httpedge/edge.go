package httpedge

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Config holds the edge's settings.
type Config struct {
	IssuerURL      string         // public base URL of this service, e.g. https://library.example.org
	CookieSecure   bool           // Secure attribute on cookies; off only for plain-http development
	AllowedOrigins []string       // browser origins allowed for CORS and cookie-authenticated changes
	TrustedProxies []netip.Prefix // peers whose X-Forwarded-For is believed
	RequestTimeout time.Duration  // deadline of one request's work (default 15s)
	// MetricsToken, when set, serves GET /metrics on the public handler to
	// callers that send it as a bearer token. Empty: the route does not
	// exist there and metrics are served only by MetricsHandler, on a
	// listener of their own.
	MetricsToken string
}

// Sessions turns an access token into its account and session id
// (identity.Identity).
type Sessions interface {
	AuthenticateSession(ctx context.Context, token string) (user.Account, string, error)
}

// Deps are what the chain itself calls.
type Deps struct {
	Sessions    Sessions
	Authorizer  ports.Authorizer
	RateLimiter ports.RateLimiter
	Logger      *slog.Logger
	// Registry receives the HTTP metrics; a new one is made when nil.
	Registry *prometheus.Registry
}

// Budget is the rate-limit budget a route's anonymous callers spend.
type Budget int

const (
	// BudgetCaller: the caller's own budget (the account's, or the client
	// address's anonymous one).
	BudgetCaller Budget = iota
	// BudgetNone: operational endpoints; probes and scrapers are never
	// limited.
	BudgetNone
	// BudgetSignIn: routes that start or extend a session; anonymous
	// callers spend their address's sign-in budget.
	BudgetSignIn
)

// Route is one route of a front door and the permission the guard asks the
// policies for before its handler runs.
type Route struct {
	Name     string
	Method   string
	Path     string // gorilla/mux template, e.g. /v1/books/{book_id}
	Action   string
	Resource string
	// MediaType lists the body types a POST/PUT/PATCH/DELETE takes,
	// separated by commas; empty means JSON.
	MediaType string
	// Page marks an HTML page: not part of the JSON API (so not in
	// openapi.json), and every form post to it must come from an allowed
	// origin, signed in or not.
	Page bool
	// Budget is the rate-limit budget of the route (a fixed path only).
	Budget Budget
	Handle http.HandlerFunc
	// OnError renders the guard's refusals (CSRF, policy, body type) in
	// the route's own format, e.g. an HTML page; nil means the JSON error
	// body.
	OnError func(http.ResponseWriter, *http.Request, error)
}

// fail writes a refusal of the route guard in the route's own format.
func (rt Route) fail(w http.ResponseWriter, r *http.Request, err error) {
	if rt.OnError != nil {
		rt.OnError(w, r, err)
		return
	}
	WriteError(w, r, err)
}

// Edge is the shared middleware of every front door. Build one with New,
// then serve all routes through it with Handler.
type Edge struct {
	deps    Deps
	cfg     Config
	metrics *metrics
}

// New checks the dependencies and settles the configuration's defaults. It
// panics on a missing dependency.
func New(deps Deps, cfg Config) *Edge {
	if deps.Sessions == nil || deps.Authorizer == nil || deps.RateLimiter == nil {
		panic("httpedge.New: nil dependency")
	}
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Registry == nil {
		deps.Registry = prometheus.NewRegistry()
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 15 * time.Second
	}
	cfg.IssuerURL = strings.TrimRight(cfg.IssuerURL, "/")
	cfg.AllowedOrigins = withOwnOrigin(cfg.AllowedOrigins, cfg.IssuerURL)
	return &Edge{deps: deps, cfg: cfg, metrics: newMetrics(deps.Registry)}
}

// Config is the configuration in force, defaults filled in.
func (e *Edge) Config() Config { return e.cfg }

// Handler serves routes, in the order given, through the whole chain. It
// adds GET /metrics when the configuration has a metrics token, and panics
// on two routes of one name.
func (e *Edge) Handler(routes []Route) *Handler {
	h := &Handler{edge: e, routes: map[string]Route{}, unlimited: map[string]bool{}, signIn: map[string]bool{}}
	h.router = mux.NewRouter()
	h.router.NotFoundHandler = http.HandlerFunc(h.notFound)
	h.router.MethodNotAllowedHandler = http.HandlerFunc(h.methodNotAllowed)
	routes = slices.Clone(routes)
	if e.cfg.MetricsToken != "" {
		routes = append(routes, Route{Name: "system.metrics", Method: http.MethodGet, Path: metricsPath,
			Action: "read", Resource: "system:metrics", Budget: BudgetNone, Handle: e.serveMetrics})
	}
	for _, rt := range routes {
		if _, dup := h.routes[rt.Name]; dup {
			panic("httpedge: duplicate route name " + rt.Name)
		}
		h.routes[rt.Name] = rt
		h.order = append(h.order, rt.Name)
		switch rt.Budget {
		case BudgetNone:
			h.unlimited[rt.Path] = true
		case BudgetSignIn:
			h.signIn[rt.Method+" "+rt.Path] = true
		}
		h.router.Handle(rt.Path, rt.Handle).Methods(rt.Method).Name(rt.Name)
	}
	h.router.Use(h.routeGuard)

	// Outermost first: the request id and access log see everything, panics
	// become 500s, CORS preflights are answered before any budget is spent,
	// and authentication plus rate limiting wrap the whole router so 404 and
	// 405 are limited too.
	var chain http.Handler = h.router
	chain = h.authenticate(chain)
	chain = e.cors(chain)
	chain = e.secureHeaders(chain)
	chain = recoverPanics(chain)
	chain = e.accessLog(chain)
	chain = e.withRequestID(chain)
	h.root = chain
	return h
}

// Handler is every front door's routes behind the chain, as one
// http.Handler.
type Handler struct {
	edge   *Edge
	router *mux.Router
	routes map[string]Route
	order  []string
	// unlimited holds the paths of BudgetNone routes (whatever the
	// method), signIn the "METHOD /path" of BudgetSignIn ones; both are
	// looked up before routing, so that 404 and 405 are limited too.
	unlimited map[string]bool
	signIn    map[string]bool
	root      http.Handler
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.root.ServeHTTP(w, r) }

// Routes lists every route in the order served.
func (h *Handler) Routes() []Route {
	out := make([]Route, 0, len(h.order))
	for _, name := range h.order {
		out = append(out, h.routes[name])
	}
	return out
}

// MetricsHandler serves the Prometheus metrics without any check, for a
// listener that only the scraper can reach.
func (h *Handler) MetricsHandler() http.Handler { return h.edge.MetricsHandler() }

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, errs.E(errs.NotFound, errs.CodeRouteNotFound, "No route matches %s %s.", r.Method, r.URL.Path))
}

// methodNotAllowed answers 405 with the Allow header listing the methods the
// path does have.
func (h *Handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allow []string
	_ = h.router.Walk(func(rt *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		pattern, err := rt.GetPathRegexp()
		if err != nil {
			return nil
		}
		if ok, _ := regexp.MatchString(pattern, r.URL.Path); ok {
			methods, _ := rt.GetMethods()
			allow = append(allow, methods...)
		}
		return nil
	})
	sort.Strings(allow)
	allow = slices.Compact(allow) // /users/me and /users/{user_id} both match "me"
	w.Header().Set("Allow", strings.Join(allow, ", "))
	e := errs.E(errs.MethodNotAllowed, errs.CodeMethodNotAllowed, "%s is not allowed on %s.", r.Method, r.URL.Path)
	e.Details = map[string]any{"allow": allow}
	WriteError(w, r, e)
}
