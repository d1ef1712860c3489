package promexport

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// CountCancelled exports count as the ragd_jobs_cancelled gauge. Asynq's
// own queue metrics never see a cancelled job: its task is removed.
func (m *Metrics) CountCancelled(count func(context.Context) (int, error)) {
	m.registry.MustRegister(&cancelledCollector{count: count, desc: prometheus.NewDesc("ragd_jobs_cancelled",
		"Top-level ingest jobs (a directory once) cancelled within the job retention (jobs.retention), as rag_stats counts them.", nil, nil)})
}

// cancelledCollector reads the count at each scrape.
type cancelledCollector struct {
	desc  *prometheus.Desc
	count func(context.Context) (int, error)
}

func (c *cancelledCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *cancelledCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := c.count(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}
