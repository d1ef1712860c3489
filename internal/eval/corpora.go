package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Sources says where on this machine the corpora are read from.
type Sources struct {
	GOROOT     string   // Go installation (stdlib corpus)
	GOMODCACHE string   // module cache (gomod corpus)
	NpmDirs    []string // candidate npm installations (npm corpus), first with docs wins
}

// DefaultNpmDirs are where npm lives: NodeSource's nodejs package, then
// Debian's npm package.
var DefaultNpmDirs = []string{"/usr/lib/node_modules/npm", "/usr/share/nodejs/npm"}

// Corpus is one evaluation corpus, generated from files on this machine at
// evaluation time (no third-party text is committed: only questions and
// the passages' identifiers).
type Corpus struct {
	Name string
	// From describes the source, for the report.
	From string
	// Build writes the corpus's files into dir.
	Build func(src Sources, dir string) error
}

// Corpora are the evaluation corpora, in report order.
var Corpora = []Corpus{
	{Name: "stdlib", From: "package docs of 40 standard-library packages (GOROOT)", Build: func(src Sources, dir string) error {
		_, err := BuildCorpus(src.GOROOT, dir)
		return err
	}},
	{Name: "gomod", From: "README.md of " + fmt.Sprint(len(GoModules)) + " modules of ragd's go.mod (GOMODCACHE)", Build: buildGoMod},
	{Name: "npm", From: "npm " + NpmVersion + "'s own docs (docs/content)", Build: buildNpm},
	{Name: "man", From: fmt.Sprint(len(ManPages)) + " Debian section-1 manual pages rendered by man(1)", Build: buildMan},
	{Name: "moddocs", From: "the Markdown docs (not READMEs) of two modules of ragd's go.mod: grpc-go's Documentation/, the MCP Go SDK's docs/ and design/ (GOMODCACHE)", Build: buildModDocs},
}

// GoModules are the modules whose README.md make up the gomod corpus.
// Fixed versions: the questions quote these READMEs, so they stay when
// ragd's go.mod moves on; `go mod download` of Modules() fetches them.
var GoModules = []string{
	"github.com/VividCortex/ewma@v1.2.0",
	"github.com/beorn7/perks@v1.0.1",
	"github.com/cespare/xxhash/v2@v2.3.0",
	"github.com/creack/pty@v1.1.24",
	"github.com/fsnotify/fsnotify@v1.10.1",
	"github.com/getkin/kin-openapi@v0.153.0",
	"github.com/go-jose/go-jose/v4@v4.1.9",
	"github.com/go-logr/logr@v1.4.4",
	"github.com/go-openapi/jsonpointer@v0.22.5",
	"github.com/go-openapi/spec@v0.22.3",
	"github.com/go-openapi/strfmt@v0.25.0",
	"github.com/go-viper/mapstructure/v2@v2.5.0",
	"github.com/golang-jwt/jwt/v5@v5.3.1",
	"github.com/hashicorp/golang-lru/v2@v2.0.7",
	"github.com/hibiken/asynq@v0.26.0",
	"github.com/hibiken/asynqmon@v0.7.2",
	"github.com/labstack/echo/v4@v4.16.4",
	"github.com/ledongthuc/pdf@v0.0.0-20260907135840-6c8c28e0e8a0",
	"github.com/mailru/easyjson@v0.7.7",
	"github.com/modelcontextprotocol/go-sdk@v1.8.0",
	"github.com/oklog/ulid@v1.3.1",
	"github.com/pdfcpu/pdfcpu@v0.15.0",
	"github.com/prometheus/client_golang@v1.25.0",
	"github.com/redis/go-redis/v9@v9.23.0",
	"github.com/robfig/cron/v3@v3.0.1",
	"github.com/segmentio/encoding@v0.5.4",
	"github.com/vbauerster/mpb/v8@v8.16.2",
	"github.com/weaviate/weaviate@v1.37.2",
	"github.com/yuin/goldmark@v1.8.7",
	"go.yaml.in/yaml/v3@v3.0.6",
	"google.golang.org/grpc@v1.80.0",
	"google.golang.org/protobuf@v1.36.12",
}

// GoModFileName is the corpus file of a module: path and version with
// slashes as dashes, "github.com/a/b@v1" → "github.com-a-b@v1.md".
func GoModFileName(modVersion string) string {
	return strings.ReplaceAll(modVersion, "/", "-") + ".md"
}

// escapeModulePath is the module cache's case encoding: an upper-case
// letter becomes '!' and its lower case.
func escapeModulePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func buildGoMod(src Sources, dir string) error {
	if src.GOMODCACHE == "" {
		return errors.New("eval: gomod corpus: empty GOMODCACHE")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, mv := range GoModules {
		path := filepath.Join(src.GOMODCACHE, filepath.FromSlash(escapeModulePath(mv)), "README.md")
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("eval: gomod corpus (run go mod download %s): %w", mv, err)
		}
		if err := os.WriteFile(filepath.Join(dir, GoModFileName(mv)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ModDocDirs are the folders of Markdown files that make up the moddocs
// corpus: documentation, not READMEs, of modules at these versions
// (fetched as GoModules are), a family of files none of the other corpora uses and ragd
// was never tuned on. Each file is named Prefix + its name.
var ModDocDirs = []struct{ Module, Dir, Prefix string }{
	{"google.golang.org/grpc@v1.80.0", "Documentation", "grpc-"},
	{"github.com/modelcontextprotocol/go-sdk@v1.8.0", "docs", "mcp-"},
	{"github.com/modelcontextprotocol/go-sdk@v1.8.0", "design", "mcp-design-"},
}

// Modules are the module@versions the gomod and moddocs corpora read
// from the module cache, each once: the arguments of the `go mod
// download` the scripts run before building the corpora.
func Modules() []string {
	mods := slices.Clone(GoModules)
	for _, d := range ModDocDirs {
		if !slices.Contains(mods, d.Module) {
			mods = append(mods, d.Module)
		}
	}
	return mods
}

// buildModDocs copies every .md file of ModDocDirs (not recursing).
func buildModDocs(src Sources, dir string) error {
	if src.GOMODCACHE == "" {
		return errors.New("eval: moddocs corpus: empty GOMODCACHE")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range ModDocDirs {
		from := filepath.Join(src.GOMODCACHE, filepath.FromSlash(escapeModulePath(d.Module)), d.Dir)
		names, err := filepath.Glob(filepath.Join(from, "*.md"))
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return fmt.Errorf("eval: moddocs corpus: no Markdown in %s (run go mod download %s)", from, d.Module)
		}
		for _, p := range names {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, d.Prefix+filepath.Base(p)), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// NpmVersion is the npm whose docs the npm questions quote; another
// version's docs differ, so the corpus is refused rather than scored wrong.
const NpmVersion = "11.19.1"

// npmDocsDir finds docs/content of an npm installation of NpmVersion.
func npmDocsDir(dirs []string) (string, error) {
	var seen []string
	for _, d := range dirs {
		content := filepath.Join(d, "docs", "content")
		if _, err := os.Stat(content); err != nil {
			continue
		}
		v, err := npmVersion(d)
		if err != nil {
			return "", err
		}
		if v == NpmVersion {
			return content, nil
		}
		seen = append(seen, d+" is npm "+v)
	}
	return "", fmt.Errorf("eval: npm corpus: no npm %s with docs/content in %s (%s)", NpmVersion, strings.Join(dirs, ", "), strings.Join(seen, "; "))
}

func npmVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	const key = `"version": "`
	i := strings.Index(string(b), key)
	if i < 0 {
		return "", fmt.Errorf("eval: no version in %s/package.json", dir)
	}
	rest := string(b[i+len(key):])
	return rest[:strings.IndexByte(rest, '"')], nil
}

// buildNpm copies npm's Markdown docs, section/name.md → section-name.md.
func buildNpm(src Sources, dir string) error {
	content, err := npmDocsDir(src.NpmDirs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(content, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, err := filepath.Rel(content, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, strings.ReplaceAll(filepath.ToSlash(rel), "/", "-")), b, 0o644)
	})
}
