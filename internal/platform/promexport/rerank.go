package promexport

import "github.com/prometheus/client_golang/prometheus"

// RerankFallbacks registers ragd_rerank_fallbacks_total and returns the
// function that counts one search which kept its fused order because the
// reranker failed. Call it once per Metrics.
func (m *Metrics) RerankFallbacks() func(error) {
	c := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ragd_rerank_fallbacks_total",
		Help: "Searches that kept the fused order because the reranker failed, timed out or its breaker was open.",
	})
	m.registry.MustRegister(c)
	return func(error) { c.Inc() }
}

// RedisFallbacks registers ragd_search_redis_fallbacks_total and returns the
// function that counts one namespace search answered without Redis (the
// current versions from memory and the store; search/degraded.go). Call it
// once per Metrics.
func (m *Metrics) RedisFallbacks() func(error) {
	c := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ragd_search_redis_fallbacks_total",
		Help: "Namespace searches answered from Weaviate alone because Redis could not tell the current versions.",
	})
	m.registry.MustRegister(c)
	return func(error) { c.Inc() }
}
