package app

import (
	"ragd/internal/jobs/websync"
	"ragd/internal/platform/keyspace"
)

// webSyncer is the web sources' kind: crawls through the ingest fetcher
// (ingest.allow_private_urls governs them as it does URL ingest), bounded
// by sources.web_*, pages staged under <data.dir>/uploads, each source's
// crawl state kept in Redis.
func (a *App) webSyncer(d services) *websync.Syncer {
	s := d.cfg.Sources
	return &websync.Syncer{UploadsDir: uploadsDir(d.cfg), Fetcher: d.fetcher, Registry: d.registry, KV: a.KV,
		Keys: keyspace.New(d.cfg.Redis.KeyPrefix), MaxFileBytes: d.cfg.Ingest.MaxFileBytes,
		Limits: websync.Limits{MaxPages: s.WebMaxPages, MaxDepth: s.WebMaxDepth, MaxPageBytes: s.WebMaxPageBytes,
			MaxTime: s.WebMaxTime, Concurrency: s.WebConcurrency, Delay: s.WebDelay}}
}
