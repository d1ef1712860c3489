package config

import (
	"fmt"
	"time"
)

// validate checks the sources' settings.
func (s Sources) validate() []error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(s.GitMaxRepoBytes > 0, "sources.git_max_repo_bytes must be positive")
	check(s.GitMaxFiles > 0, "sources.git_max_files must be positive")
	check(s.GitTimeout > 0, "sources.git_timeout must be positive")
	check(s.S3MaxObjects > 0, "sources.s3_max_objects must be positive")
	check(s.S3Timeout > 0, "sources.s3_timeout must be positive")
	check(s.WebMaxPages > 0, "sources.web_max_pages must be positive")
	check(s.WebMaxDepth > 0, "sources.web_max_depth must be positive")
	check(s.WebMaxPageBytes > 0, "sources.web_max_page_bytes must be positive")
	check(s.WebMaxTime > 0, "sources.web_max_time must be positive")
	check(s.WebConcurrency > 0 && s.WebConcurrency <= 16, "sources.web_concurrency must be between 1 and 16, not %d", s.WebConcurrency)
	check(s.WebDelay >= 0, "sources.web_delay must not be negative")
	check(s.MinEvery >= time.Minute, "sources.min_every must be at least 1m, not %s", s.MinEvery)
	check(s.ScheduleJitter >= 0, "sources.schedule_jitter must not be negative")
	check(s.ScheduleTick > 0 && s.ScheduleTick <= s.MinEvery, "sources.schedule_tick must be positive and at most sources.min_every, not %s", s.ScheduleTick)
	return errs
}
