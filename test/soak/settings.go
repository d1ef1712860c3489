package soak

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Settings are one soak's knobs, from the environment.
type Settings struct {
	Duration    time.Duration // SOAK_DURATION, default 10m
	Concurrency int           // SOAK_CONCURRENCY, default 8
	Warmup      time.Duration // SOAK_WARMUP, default 2m (a fifth of shorter runs)
	Interval    time.Duration // SOAK_INTERVAL, default 10s (5s for runs under 5m)
	Bin         string        // RAGD_SOAK_BIN: the ragd binary to run
	Addr        string        // RAGD_SOAK_ADDR, default 127.0.0.1:28200
}

// LoadSettings reads the Settings from the environment.
func LoadSettings() (Settings, error) {
	s := Settings{Bin: os.Getenv("RAGD_SOAK_BIN"), Addr: envOr("RAGD_SOAK_ADDR", "127.0.0.1:28200")}
	var err error
	if s.Duration, err = envDuration("SOAK_DURATION", 10*time.Minute); err != nil {
		return s, err
	}
	if s.Concurrency, err = strconv.Atoi(envOr("SOAK_CONCURRENCY", "8")); err != nil || s.Concurrency < 1 {
		return s, fmt.Errorf("SOAK_CONCURRENCY=%q: want a whole number ≥ 1", os.Getenv("SOAK_CONCURRENCY"))
	}
	warm := min(2*time.Minute, s.Duration/5)
	if s.Warmup, err = envDuration("SOAK_WARMUP", warm); err != nil {
		return s, err
	}
	every := 10 * time.Second
	if s.Duration < 5*time.Minute {
		every = 5 * time.Second
	}
	if s.Interval, err = envDuration("SOAK_INTERVAL", every); err != nil {
		return s, err
	}
	if s.Warmup >= s.Duration {
		return s, fmt.Errorf("SOAK_WARMUP %s must be shorter than SOAK_DURATION %s", s.Warmup, s.Duration)
	}
	return s, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 10m or 90s", name, v)
	}
	return d, nil
}
