package jobs

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"ragd"
)

// Every field of a document job's result, and its progress, read back
// from a file job's outcome as the job wrote them; a new result field
// must be given a place in fileOutcome (this fails until it is).
func TestOutcomeKeepsTheWholeResult(t *testing.T) {
	created := time.Date(2026, 12, 1, 8, 0, 0, 123, time.UTC)
	pl := DocumentPayload{Namespace: "docs", ParentID: "p", CreatedAt: created}
	res := ragd.DocumentResult{Source: "file:///docs/a.pdf", ChunksIndexed: 7, DedupHit: true, ContentHash: "abc",
		Replaced: 3, ImagesIndexed: 2, PagesOCR: 1, MovedFrom: "0123456789abcdef0123456789abcdef", VectorsCarried: 7}
	res.DocumentID = ragd.DocumentID("docs", res.Source)
	v := reflect.ValueOf(res)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("set DocumentResult.%s in this test", v.Type().Field(i).Name)
		}
	}
	for _, progress := range []ragd.Progress{{Done: 7, Total: 7, Unit: "chunks"}, {Done: 3, Total: 5, Unit: "pages"}} {
		body, err := json.Marshal(newOutcome(pl, 2, progress, res))
		if err != nil {
			t.Fatal(err)
		}
		job := outcomeJob("p.0", string(body))
		var got ragd.DocumentResult
		if job == nil || json.Unmarshal(job.Result, &got) != nil || got != res || job.Progress != progress ||
			job.Retried != 2 || !job.CreatedAt.Equal(created) || job.Namespace != "docs" || job.Status != ragd.JobCompleted {
			t.Fatalf("outcome %s read as %+v (result %s), want %+v", body, job, job.Result, res)
		}
	}
}
