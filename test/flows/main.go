//go:build flows

// Command flows measures how much of ragd one request crosses: the Go
// files and packages a REST search (not cached) and a REST ingest of
// inline text (enqueue, the worker's run, the commit) execute, read from
// coverage counters cleared just before the request and written just
// after it, with ragd assembled in this process on the test services.
// `make flows` builds it with -cover and runs it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/coverage"
	"sort"
	"strings"
	"time"

	"ragd/internal/app"
	"ragd/internal/platform/config"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "flows:", err)
		os.Exit(1)
	}
}

func run() error {
	tmp, err := os.MkdirTemp("", "flows")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cfg := config.Default()
	cfg.Redis.URL = os.Getenv("RAGD_TEST_REDIS_URL")
	cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr = os.Getenv("RAGD_TEST_WEAVIATE_URL"), os.Getenv("RAGD_TEST_WEAVIATE_GRPC_ADDR")
	cfg.Embed.ModelPath, cfg.Search.WordNetDir = os.Getenv("RAGD_TEST_GLOVE_PATH"), os.Getenv("RAGD_TEST_WORDNET_DIR")
	name := fmt.Sprintf("Flows%d", time.Now().UnixNano())
	cfg.Weaviate.Collection, cfg.Redis.KeyPrefix, cfg.Worker.Queue = name, "test:"+name, "test-"+name
	cfg.Ingest.Roots, cfg.Data.Dir = []string{tmp}, tmp
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer a.Close()
	defer dropCollection(cfg)
	w := a.NewWorker()
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Shutdown()
	a.LoadSearch()
	h, closeHandler, err := a.Handler()
	if err != nil {
		return err
	}
	defer closeHandler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	post(srv.URL+"/tools/rag_index", map[string]any{"text": "Harbour charts show the tides.", "kb_name": "flows", "wait": true})
	post(srv.URL+"/tools/rag_search", map[string]any{"query": "warm up", "kb_name": "flows"})
	time.Sleep(time.Second)
	for _, f := range []struct {
		name string
		do   func() int
	}{
		{"search", func() int {
			return post(srv.URL+"/tools/rag_search", map[string]any{"query": "harbour tides", "kb_name": "flows"})
		}},
		{"ingest", func() int {
			return post(srv.URL+"/tools/rag_index", map[string]any{"text": "Lighthouse keepers log the ships.", "kb_name": "flows", "wait": true})
		}},
	} {
		ran, err := measure(filepath.Join(tmp, f.name), f.do)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		report(f.name, ran)
	}
	return nil
}

// post sends body as JSON and returns the status.
func post(url string, body any) int {
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// measure returns the product files (package → files) with a block run
// while do ran.
func measure(dir string, do func() int) (map[string][]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := coverage.ClearCounters(); err != nil {
		return nil, fmt.Errorf("build with -cover -covermode=atomic (make flows): %w", err)
	}
	if status := do(); status != http.StatusOK {
		return nil, fmt.Errorf("request answered %d", status)
	}
	if err := coverage.WriteCountersDir(dir); err != nil {
		return nil, err
	}
	if err := coverage.WriteMetaDir(dir); err != nil {
		return nil, err
	}
	profile := filepath.Join(dir, "profile.txt")
	if b, err := exec.Command("go", "tool", "covdata", "textfmt", "-i="+dir, "-o="+profile).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("covdata: %v %s", err, b)
	}
	return ranFiles(profile)
}

// ranFiles reads a text coverage profile: the files of product packages
// (not this command) with a block run at least once.
func ranFiles(profile string) (map[string][]string, error) {
	fh, err := os.Open(profile)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	ran := map[string]map[string]bool{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		file, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || file == "mode" || strings.HasSuffix(rest, " 0") || strings.HasPrefix(file, "ragd/test/") {
			continue
		}
		dir := path.Dir(file)
		if ran[dir] == nil {
			ran[dir] = map[string]bool{}
		}
		ran[dir][path.Base(file)] = true
	}
	out := map[string][]string{}
	for dir, files := range ran {
		for f := range files {
			out[dir] = append(out[dir], f)
		}
		sort.Strings(out[dir])
	}
	return out, sc.Err()
}

func report(flow string, ran map[string][]string) {
	dirs := make([]string, 0, len(ran))
	files := 0
	for d, fs := range ran {
		dirs = append(dirs, d)
		files += len(fs)
	}
	sort.Strings(dirs)
	fmt.Printf("%s: %d files in %d packages\n", flow, files, len(dirs))
	for _, d := range dirs {
		fmt.Printf("  %s (%d): %s\n", d, len(ran[d]), strings.Join(ran[d], " "))
	}
}

// dropCollection deletes the run's collections (chunks and images).
func dropCollection(cfg config.Config) {
	for _, c := range []string{cfg.Weaviate.Collection, cfg.Weaviate.Collection + "Image"} {
		req, _ := http.NewRequest(http.MethodDelete, cfg.Weaviate.URL+"/v1/schema/"+c, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
}
