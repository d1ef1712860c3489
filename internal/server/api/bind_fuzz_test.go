package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/retrieval/answer"
	searchsvc "ragd/internal/retrieval/search"
	"ragd/internal/server/api"
	"ragd/internal/testkit/testenv"
)

// The REST binders under fuzzing: the real Echo server and error handler of
// api.New, before services that validate as the real ones do where that
// needs no Redis or Weaviate (search and answer plan the request) and
// otherwise accept what reaches them (the library), recording it.

// binderSearch validates as searchsvc.Service does and finds nothing.
type binderSearch struct{ plan *searchsvc.Service }

func (s binderSearch) Search(ctx context.Context, req searchsvc.RetrieveRequest) (searchsvc.SearchResponse, error) {
	return searchsvc.SearchResponse{}, s.plan.CheckRetrieve(ctx, req)
}

// binderAnswer plans as answer.Service does and answers nothing.
type binderAnswer struct{ plan *searchsvc.Service }

func (a binderAnswer) Query(ctx context.Context, req answer.QueryRequest, _ func(string) error) (answer.QueryResponse, error) {
	if req.Mode == answer.ModeAgentic || req.Mode == answer.ModeAuto {
		req.Mode = ""
	}
	return answer.QueryResponse{Route: answer.RouteNotFound}, a.plan.CheckRetrieve(ctx, req.RetrieveRequest)
}

// binderLibrary records the request that reached it and enqueues nothing.
type binderLibrary struct {
	api.Librarian // the methods no binder route calls
	got           *any
}

var binderJob = "fuzz-job"

func (l binderLibrary) Index(_ context.Context, req library.IndexRequest) (library.Enqueued, error) {
	*l.got = req
	return library.Enqueued{JobID: &binderJob, Status: ragd.JobQueued}, nil
}

func (l binderLibrary) IndexDirectory(_ context.Context, req library.DirectoryRequest) (library.Enqueued, error) {
	*l.got = req
	return library.Enqueued{JobID: &binderJob, Status: ragd.JobQueued}, nil
}

func (l binderLibrary) PlanDirectory(_ context.Context, req library.DirectoryRequest) (library.SyncPlan, error) {
	*l.got = req
	return library.SyncPlan{}, nil
}

func (l binderLibrary) WaitJob(context.Context, string, time.Duration, func(*ragd.Job)) (*ragd.Job, error) {
	return &ragd.Job{ID: binderJob, Status: ragd.JobCompleted, Result: json.RawMessage(`{}`)}, nil
}

// binderServer is api.New before the binder services; got hears what
// reached the library.
func binderServer(got *any) http.Handler {
	plan := &searchsvc.Service{}
	return api.New(api.Services{Search: binderSearch{plan}, Answer: binderAnswer{plan}, Library: binderLibrary{got: got}},
		api.Options{MaxBodyBytes: 8 << 10, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// TestBindRefusesNonObjects: a JSON body that is not an object is a 422 at
// "body" on every route. FuzzBind found null accepted as an empty request
// by the routes whose service did not then miss a field.
func TestBindRefusesNonObjects(t *testing.T) {
	var got any
	e := binderServer(&got)
	for _, body := range []string{"null", " null\n", "[]", `"text"`, "1", "true"} {
		for _, path := range binderPaths {
			got = nil
			req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			var d struct{ Detail []ragd.FieldError }
			_ = json.Unmarshal(rec.Body.Bytes(), &d)
			if rec.Code != http.StatusUnprocessableEntity || len(d.Detail) != 1 || strings.Join(d.Detail[0].Loc, ".") != "body" ||
				!strings.HasPrefix(d.Detail[0].Msg, "body must be a JSON object, not ") || got != nil {
				t.Errorf("POST %s %q: %d %s (service got %v)", path, body, rec.Code, rec.Body.String(), got)
			}
		}
	}
}

// binderPaths are the routes that bind a JSON body.
var binderPaths = []string{"/tools/rag_search", "/tools/rag_query", "/tools/rag_index", "/tools/rag_index_directory"}

// FuzzBind posts arbitrary bodies to each JSON route: no panic, bounded
// time, never a 500; a refusal is 400, 413, 415 or 422 with {"detail"} (a
// 422 naming fields under "body"); an accepted body was a JSON object and
// the request the service got re-marshals to itself.
func FuzzBind(f *testing.F) {
	for _, s := range []string{
		`{"query":"what is a goroutine","top_k":5,"kb_name":"default","mode":"hybrid","scope_filter":{"tags":["go"],"source_types":["pdf"]}}`,
		`{"query":"q","top_k":"5"}`, `{"query":"q","scope_filter":{"kb_names":[1]}}`, `{"query":"q","include_sources":false,"stream":true,"mode":"agentic"}`,
		`{"text":"hello","tags":["a"],"title":"t","wait":true}`, `{"file_path":"/etc/passwd","force":true}`, `{"url":"http://x"}`,
		`{"directory_path":"/tmp","recursive":false,"sync":true,"prune":false,"dry_run":true}`, `[]`, `null`, `{"a":1}{"b":2}`, ``,
	} {
		for i := range binderPaths {
			f.Add(uint8(i), []byte(s))
		}
	}
	for i, b := range testenv.JSONRPCSeeds(f) {
		f.Add(uint8(i), b)
	}
	var got any
	e := binderServer(&got)
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		testenv.Within(t, testenv.DefaultBound, func() {
			got = nil
			req := httptest.NewRequest(http.MethodPost, binderPaths[int(route)%len(binderPaths)], bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			checkBound(t, body, rec, got)
		})
	})
}

func checkBound(t *testing.T, body []byte, rec *httptest.ResponseRecorder, got any) {
	switch rec.Code {
	case http.StatusOK, http.StatusAccepted:
		if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
			t.Fatalf("%d for a body that is not a JSON object: %q", rec.Code, body)
		}
		if got != nil {
			checkRoundTrip(t, got)
		}
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		var d struct{ Detail string }
		if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || d.Detail == "" {
			t.Fatalf("%d answer %q has no detail (%v)", rec.Code, rec.Body.String(), err)
		}
	case http.StatusUnprocessableEntity:
		var d struct{ Detail []ragd.FieldError }
		if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || len(d.Detail) == 0 {
			t.Fatalf("422 answer %q is not a list of fields (%v)", rec.Body.String(), err)
		}
		for _, fe := range d.Detail {
			if len(fe.Loc) == 0 || fe.Loc[0] != "body" || fe.Msg == "" || fe.Type == "" {
				t.Fatalf("422 field %+v", fe)
			}
		}
	default:
		t.Fatalf("status %d for %q: %q", rec.Code, body, rec.Body.String())
	}
}

// checkRoundTrip asserts what the service got survives JSON: encoded,
// decoded into its type and encoded again it is the same.
func checkRoundTrip(t *testing.T, got any) {
	one, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("request %+v does not marshal: %v", got, err)
	}
	var two []byte
	switch got.(type) {
	case library.IndexRequest:
		var again library.IndexRequest
		err = json.Unmarshal(one, &again)
		two, _ = json.Marshal(again)
	case library.DirectoryRequest:
		var again library.DirectoryRequest
		err = json.Unmarshal(one, &again)
		two, _ = json.Marshal(again)
	}
	if err != nil || !bytes.Equal(one, two) {
		t.Fatalf("request %s re-decodes as %s (%v)", one, two, err)
	}
}
