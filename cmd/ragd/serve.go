package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"

	"ragd/api"
)

// runServe runs the REST API, and the worker too with --worker.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	withWorker := fs.Bool("worker", false, "also run the ingest worker in this process")
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := newApp(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()

	redisOpt, err := asynq.ParseRedisURI(cfg.Redis.URL)
	if err != nil {
		return err
	}
	monitoring := asynqmon.New(asynqmon.Options{RootPath: "/monitoring", RedisConnOpt: redisOpt})
	defer monitoring.Close()
	e := api.New(a.svc, api.Options{MaxBodyBytes: cfg.HTTP.MaxBodyBytes, Monitoring: monitoring, Log: a.log})

	if *withWorker {
		w := a.newWorker()
		if err := w.Start(); err != nil {
			return err
		}
		defer w.Shutdown()
	}
	srv := &http.Server{Addr: cfg.HTTP.Addr, Handler: e, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	a.log.Info("listening", "addr", cfg.HTTP.Addr, "worker", *withWorker)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// runWorker runs only the ingest worker.
func runWorker(args []string) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := newApp(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()
	w := a.newWorker()
	if err := w.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	w.Shutdown()
	return nil
}
