package metrics

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
