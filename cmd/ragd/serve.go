package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"ragd/internal/app"
	"ragd/internal/platform/config"
	"ragd/internal/server/api"
)

// runServe runs the REST API, and the worker too with --worker.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	withWorker := fs.Bool("worker", false, "also run the ingest worker in this process")
	ctx, a, stop, err := start(fs, args)
	if err != nil {
		return err
	}
	defer stop()
	cfg := a.Config
	handler, closeHandler, err := a.Handler()
	if err != nil {
		return err
	}
	defer closeHandler()

	if *withWorker {
		w := a.NewWorker()
		if err := w.Start(); err != nil {
			return err
		}
		defer w.Shutdown()
	}
	watchCtx, stopWatching := context.WithCancel(ctx)
	waitWatchers, err := a.Watch(watchCtx, cfg.Watch)
	if err != nil {
		stopWatching()
		return err
	}
	waitScheduler := a.Schedule(watchCtx)
	defer func() { stopWatching(); waitWatchers(); waitScheduler() }()
	srv := api.NewHTTPServer(cfg.HTTP.Addr, handler)
	errc := make(chan error, 1)
	go func() { errc <- api.ListenAndServe(srv) }()
	a.Log.Info("listening", "addr", cfg.HTTP.Addr, "worker", *withWorker)
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
	ctx, a, stop, err := start(flag.NewFlagSet("worker", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	defer stop()
	w := a.NewWorker()
	if err := w.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	w.Shutdown()
	return nil
}

// loadConfig reads --config, else $RAGD_CONFIG, else ./config.yaml if
// present, else the config.yaml of the binary's checkout (configPath).
func loadConfig(fs *flag.FlagSet, args []string) (config.Config, error) {
	path := fs.String("config", os.Getenv("RAGD_CONFIG"), "config file (default ./config.yaml if present, else the one of the checkout holding bin/ragd)")
	if err := fs.Parse(args); err != nil {
		return config.Config{}, err
	}
	if *path == "" {
		*path = configPath()
	}
	return config.Load(*path, os.Environ())
}

// start loads the configuration and assembles ragd; the returned context ends
// on SIGINT or SIGTERM, and stop releases everything.
func start(fs *flag.FlagSet, args []string) (context.Context, *app.App, func(), error) {
	cfg, err := loadConfig(fs, args)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	a, err := app.New(ctx, cfg, app.NewLogger(cfg.Log))
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	tuneGC(a.Log)
	return ctx, a, func() { a.Close(); cancel() }, nil
}

// runMCP serves MCP on stdin/stdout for an agent host that spawned ragd.
// Nothing but protocol messages may reach stdout: logs go to stderr.
func runMCP(args []string) error {
	ctx, a, stop, err := start(flag.NewFlagSet("mcp", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	defer stop()
	a.PreloadSearch()
	return a.MCP.RunStdio(ctx)
}

// runWatch keeps one directory in sync with a namespace until interrupted:
// `ragd watch PATH --kb NAME`. The sync jobs run on the workers (or in
// this process with --worker).
func runWatch(args []string) error {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	kb := fs.String("kb", "", "namespace to keep in sync (default: default)")
	recursive := fs.Bool("recursive", true, "include subdirectories")
	prune := fs.Bool("prune", true, "delete the documents whose file is gone")
	withWorker := fs.Bool("worker", false, "also run the ingest worker in this process")
	var path string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		path, args = args[0], args[1:]
	}
	ctx, a, stop, err := start(fs, args)
	if err != nil {
		return err
	}
	defer stop()
	if path == "" && fs.NArg() > 0 {
		path = fs.Arg(0)
	}
	if path == "" {
		return fmt.Errorf("watch: name the directory: ragd watch PATH --kb NAME")
	}
	if *withWorker {
		w := a.NewWorker()
		if err := w.Start(); err != nil {
			return err
		}
		defer w.Shutdown()
	}
	wait, err := a.Watch(ctx, []config.WatchEntry{{Path: path, KBName: *kb, Recursive: recursive, Prune: prune}})
	if err != nil {
		return err
	}
	wait()
	return nil
}
