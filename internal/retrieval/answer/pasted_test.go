package answer

import (
	"reflect"
	"strings"
	"testing"
)

// Passages shaped like READMEs' install and usage sections, where a command
// is pasted between lines of prose with no blank line or fence around it
// (plain-text notes, a chunk of a .txt file).
var pastedCommandPassages = []struct{ query, text, command string }{
	{"how do I build and install the ragd server binary",
		"Build the ragd server binary from source:\nmake build && export PATH=$PWD/bin:$PATH\nThe ragd server binary is installed in bin and serves on port 8000.",
		"make build"},
	{"how do I install the golangci-lint linter",
		"Install the linter:\ngo install github.com/golangci/golangci-lint/cmd/golangci-lint@latest\nThe golangci-lint linter runs many linters in parallel.",
		"go install"},
	{"how do I fetch the yaml library",
		"Add the yaml library to your module.\ngo get gopkg.in/yaml.v3\nThe yaml library decodes YAML into Go values.",
		"go get"},
	{"how do I start the redis server",
		"Start the redis server locally.\n$ redis-server --port 6380 --save ''\nThe redis server then listens on port 6380.",
		"redis-server"},
}

// TestExtractDoesNotOpenWithPastedCommand: a shell line pasted into prose
// was joined to the sentence after it ("make build && export PATH=… The
// server …") and opened the answer; it is a line of code of its own now, and
// the prose answers.
func TestExtractDoesNotOpenWithPastedCommand(t *testing.T) {
	for _, tc := range pastedCommandPassages {
		got, _ := Extract(tc.query, []Passage{{Text: tc.text}}, 2)
		if got == "" || strings.Contains(got, tc.command) {
			t.Errorf("Extract(%q) = %q, want prose without the command %q", tc.query, got, tc.command)
		}
	}
}

// TestSplitKeepsSpansWhole: a sentence does not end at a period inside an
// inline code span, a formula or brackets, however the text after it
// starts; a mark that never closes holds nothing together.
func TestSplitKeepsSpansWhole(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Sorting costs O(n. Log n) comparisons here. Merging is linear.", []string{"Sorting costs O(n. Log n) comparisons here.", "Merging is linear."}},
		{"Run `go vet ./... && go test. Then` in CI. It is quick.", []string{"Run `go vet ./... && go test. Then` in CI.", "It is quick."}},
		{"The energy is $E = m. C^2$ in these units. Mass matters.", []string{"The energy is $E = m. C^2$ in these units.", "Mass matters."}},
		{"See the options [timeout. Retries] below. They default sensibly.", []string{"See the options [timeout. Retries] below.", "They default sensibly."}},
		{"It costs $5 a month. The plan renews.", []string{"It costs $5 a month.", "The plan renews."}},
		{"Pick one: 1) fast. Slow is the other.", []string{"Pick one: 1) fast.", "Slow is the other."}},
	} {
		var got []string
		for _, s := range splitSentences(tc.in) {
			got = append(got, s.text)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitSentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
