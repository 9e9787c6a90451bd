package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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

func (h *handler) serveMetrics(w http.ResponseWriter, r *http.Request) {
	promhttp.HandlerFor(h.metrics.registry, promhttp.HandlerOpts{}).ServeHTTP(w, r)
}
