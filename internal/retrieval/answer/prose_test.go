package answer

import (
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest"
)

// readmeExcerpt is part of ragd's own README.md (copied: the live file
// changes): prose around shell code blocks, the document a new user asked
// about when the extractive answer came back made of command lines.
const readmeExcerpt = "# ragd\n\n" +
	"ragd is a self-hosted knowledge-base server for LLM agents, written in Go.\n" +
	"Programs and people use its REST API (agents will speak MCP to it too).\n" +
	"Ingest is asynchronous: the API validates a request, enqueues a job on\n" +
	"[Asynq](https://github.com/hibiken/asynq) (Redis) and answers at once with a\n" +
	"`job_id` to poll. Workers load files, URLs and whole directories (PDF, DOCX,\n" +
	"HTML, Markdown, text), chunk them along their headings, embed them and write\n" +
	"them to [Weaviate](https://weaviate.io); search is hybrid (BM25 + vectors).\n\n" +
	"## The two commands\n\n" +
	"On a fresh Debian machine with Go, npm and apt:\n\n" +
	"```sh\n" +
	"make run    # install what is missing, start Redis + Weaviate (data in ./data), run ragd on 127.0.0.1:8000\n" +
	"make test   # go.mod/go.sum must be tidy (`go mod tidy -diff`), then the same dependencies on their own ports and a throwaway data dir, go vet, go test -race, and each fuzz target for 10 s (the PDF parse through its sandbox)\n" +
	"```\n\n" +
	"Both install what they need, idempotently: Debian's `redis-server`,\n" +
	"`wordnet-base` (the thesaurus behind synonym expansion), `tesseract-ocr`,\n" +
	"`tesseract-ocr-eng` and `poppler-utils` (OCR of scanned PDFs), for `make test`\n" +
	"and `make deps` `chromium` (the web-console tests drive it headless through\n" +
	"chromedp; without it they fail rather than skip, unless `-short`).\n" +
	"They start Redis and Weaviate themselves, wait until both answer and stop what\n" +
	"they started when they exit. A Redis or Weaviate already answering on the\n" +
	"`make run` ports is reused and left running.\n\n" +
	"Other targets: `make bench` (benchmarks against raw Weaviate, same services as\n" +
	"the tests), `make eval` (retrieval quality on the question set in\n" +
	"`eval/testdata`, see `docs/RETRIEVAL.md`), `make build` (`bin/ragd`),\n" +
	"`make deps` (install only), `make fuzz` (every Go fuzz target in turn for\n" +
	"`FUZZTIME`, default 10m each; see below).\n\n" +
	"## Walk-through: ingest → poll → search\n\n" +
	"With `make run` running in one terminal (ingest is confined to the working\n" +
	"directory by default, see `ingest.roots`):\n\n" +
	"```sh\n" +
	"# Enqueue a file; the answer comes at once.\n" +
	"curl -s -XPOST localhost:8000/tools/rag_index \\\n" +
	"  -H 'Content-Type: application/json' \\\n" +
	"  -d '{\"file_path\": \"README.md\", \"kb_name\": \"docs\"}'\n" +
	"# → 202 {\"job_id\":\"6c0e…\",\"status\":\"queued\",\"document_id\":\"9f3a…\",\"dedup_hit\":false}\n\n" +
	"# Search.\n" +
	"curl -s -XPOST localhost:8000/tools/rag_search \\\n" +
	"  -H 'Content-Type: application/json' \\\n" +
	"  -d '{\"query\": \"how do I run the tests\", \"top_k\": 3, \"kb_name\": \"docs\"}'\n" +
	"```\n\n" +
	"A whole directory fans out into one job per supported file; its job reports\n" +
	"files done / total and lists its children.\n"

// chunkPassages is doc as ingest would store it: loaded as typ and chunked,
// one passage per chunk in document order.
func chunkPassages(t *testing.T, doc string, typ ragd.SourceType) []Passage {
	t.Helper()
	loaded, err := ingest.Parse([]byte(doc), typ, "README")
	if err != nil {
		t.Fatal(err)
	}
	var out []Passage
	for _, p := range ingest.Chunk(loaded, ingest.ChunkOptions{}) {
		out = append(out, Passage{Source: "README", Path: p.Path, Text: p.Text})
	}
	return out
}

// fencedLines returns the lines inside the fenced code blocks of a Markdown
// document, whitespace collapsed as an answer sentence has it.
func fencedLines(doc string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			in = !in
		case in && strings.TrimSpace(line) != "":
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return out
}

// answerSentences splits an extractive answer at its citation markers.
func answerSentences(answer string) []string {
	var out []string
	for _, s := range citationPattern.Split(answer, -1) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// isCodeSentence reports whether sentence holds, or is part of, a line of
// code.
func isCodeSentence(sentence string, code []string) bool {
	for _, line := range code {
		if strings.Contains(sentence, line) || strings.Contains(line, sentence) {
			return true
		}
	}
	return false
}

// Over a README of prose and shell snippets, questions the prose answers get
// prose: as Markdown (code blocks are blocks of their own, fences dropped,
// layout kept) and as plain text (fences kept, spacing collapsed).
func TestExtractPrefersProseToCode(t *testing.T) {
	code := fencedLines(readmeExcerpt)
	for _, typ := range []ragd.SourceType{ragd.SourceMarkdown, ragd.SourceText} {
		passages := chunkPassages(t, readmeExcerpt, typ)
		for _, q := range []string{"how do I run the tests", "how do I search the documents", "what does make run install"} {
			answer, cited := Extract(q, passages, 4)
			if answer == "" {
				t.Errorf("%s %q: no answer", typ, q)
				continue
			}
			checkCitations(t, answer, cited, len(passages))
			for _, s := range answerSentences(answer) {
				if isCodeSentence(s, code) {
					t.Errorf("%s %q: the answer quotes code although prose answers it:\n%s", typ, q, answer)
					break
				}
			}
		}
	}
}

// A command is still an answer when no prose says as much: the penalty
// orders code after prose, it does not drop it.
func TestExtractFallsBackToCode(t *testing.T) {
	doc := "# Project\n\nThe project indexes documents.\n\n## Testing\n\nBefore sending a patch:\n\n```sh\nmake test\ngo vet ./...\n```\n"
	for _, typ := range []ragd.SourceType{ragd.SourceMarkdown, ragd.SourceText} {
		passages := chunkPassages(t, doc, typ)
		answer, cited := Extract("how do I run the tests", passages, 3)
		if !strings.Contains(answer, "make test") {
			t.Errorf("%s: the command is missing from %q", typ, answer)
		}
		checkCitations(t, answer, cited, len(passages))
	}
}
