package httpedge

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/readinglibrary/service/core/errs"
)

// metrics are the service's Prometheus series. Labels use route names, never
// raw paths, so ids in URLs cannot blow up the series count.
type metrics struct {
	registry             *prometheus.Registry
	requests             *prometheus.CounterVec
	duration             *prometheus.HistogramVec
	rateLimitStoreErrors prometheus.Counter
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "library_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "library_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
		rateLimitStoreErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "library_ratelimit_store_errors_total", Help: "Requests let through because the rate-limit store failed.",
		}),
	}
	reg.MustRegister(m.requests, m.duration, m.rateLimitStoreErrors)
	// A caller may pass a registry that already has the runtime collectors.
	_ = reg.Register(collectors.NewGoCollector())
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(route, method string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
}

// metricsPath is where metrics are served, on the metrics listener and, with
// a metrics token, on the public port.
const metricsPath = "/metrics"

// MetricsHandler serves the Prometheus metrics without any check, for a
// listener that only the scraper can reach (LIBRARY_METRICS_ADDR).
func (e *Edge) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+metricsPath, promhttp.HandlerFor(e.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}

// serveMetrics is GET /metrics on the public port, which exists only with a
// metrics token: the caller must send exactly that token.
func (e *Edge) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if !e.metricsTokenOK(r) {
		WriteError(w, r, errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "GET /metrics needs the metrics bearer token."))
		return
	}
	promhttp.HandlerFor(e.metrics.registry, promhttp.HandlerOpts{}).ServeHTTP(w, r)
}

// metricsTokenOK compares digests so the comparison takes the same time
// whatever the length or content of the token sent.
func (e *Edge) metricsTokenOK(r *http.Request) bool {
	scheme, value, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(value)))
	want := sha256.Sum256([]byte(e.cfg.MetricsToken))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}
