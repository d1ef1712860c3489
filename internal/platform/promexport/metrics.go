// Package promexport exposes ragd's Prometheus metrics: request latency by
// route, cache hits and misses, circuit-breaker states, dependency call
// latency (embedder, chat model, Weaviate) and the Asynq queues.
package promexport

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds ragd's collectors in their own registry.
type Metrics struct {
	registry     *prometheus.Registry
	httpDuration *prometheus.HistogramVec
	cacheLookups *prometheus.CounterVec
	breakerState *prometheus.GaugeVec
	callDuration *prometheus.HistogramVec
}

// New registers ragd's collectors, the Go runtime's and, when queues is
// not nil, the job queue's (jobs.Queue.Collector).
func New(queues prometheus.Collector) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ragd_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route", "method", "status"}),
		cacheLookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ragd_cache_lookups_total", Help: "Result cache lookups by tool and result (hit or miss).",
		}, []string{"tool", "result"}),
		breakerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ragd_circuit_breaker_state", Help: "Circuit breaker state by dependency: 0 closed, 1 half-open, 2 open.",
		}, []string{"dependency"}),
		callDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ragd_dependency_call_duration_seconds", Help: "Latency of calls to dependencies (embedder, llm, weaviate) by outcome.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 14),
		}, []string{"dependency", "outcome"}),
	}
	m.registry.MustRegister(m.httpDuration, m.cacheLookups, m.breakerState, m.callDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if queues != nil {
		m.registry.MustRegister(queues)
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// ObserveRequest records one HTTP request.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	m.httpDuration.WithLabelValues(route, method, strconv.Itoa(status)).Observe(d.Seconds())
}

// ObserveCache records one cache lookup.
func (m *Metrics) ObserveCache(tool string, hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cacheLookups.WithLabelValues(tool, result).Inc()
}

// ObserveBreaker records a breaker's new state.
func (m *Metrics) ObserveBreaker(dependency string, _, to string) {
	m.breakerState.WithLabelValues(dependency).Set(float64(stateValue(to)))
}

// InitBreaker publishes a breaker's initial (closed) state.
func (m *Metrics) InitBreaker(dependency string) {
	m.breakerState.WithLabelValues(dependency).Set(0)
}

// ObserveCall records one call to a dependency.
func (m *Metrics) ObserveCall(dependency string, d time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.callDuration.WithLabelValues(dependency, outcome).Observe(d.Seconds())
}

// stateValue is a breaker state's gauge value: 0 closed, 1 half-open,
// 2 open.
func stateValue(s string) int {
	switch s {
	case "half-open":
		return 1
	case "open":
		return 2
	default:
		return 0
	}
}
