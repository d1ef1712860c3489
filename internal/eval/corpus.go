package eval

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CorpusPackages are the standard-library packages whose package
// documentation makes up the evaluation corpus. The development question set
// (testdata/devset.jsonl) is written against these documents: changing the
// list means checking the set again (TestDevsetSubstringsExist does).
var CorpusPackages = []string{
	"archive/zip",
	"bufio",
	"bytes",
	"compress/gzip",
	"container/heap",
	"context",
	"crypto/tls",
	"database/sql",
	"embed",
	"encoding/csv",
	"encoding/gob",
	"encoding/json",
	"errors",
	"flag",
	"fmt",
	"html/template",
	"io",
	"iter",
	"log/slog",
	"maps",
	"math/rand/v2",
	"mime/multipart",
	"net/http",
	"net/url",
	"os",
	"os/exec",
	"os/signal",
	"path/filepath",
	"regexp",
	"runtime",
	"slices",
	"sort",
	"strconv",
	"strings",
	"sync",
	"sync/atomic",
	"testing",
	"text/template",
	"time",
	"unicode/utf8",
}

// CorpusFileName is the name of the Markdown file BuildCorpus writes for
// the package with import path pkg: "net/http" → "net-http.md".
func CorpusFileName(pkg string) string {
	return strings.ReplaceAll(pkg, "/", "-") + ".md"
}

// BuildCorpus writes one Markdown file per package of CorpusPackages into
// dir (created if missing): a "# Package <path>" heading followed by the
// package's documentation comment, read from the sources under
// goroot/src. Doc-comment headings become level-2 headings, code blocks stay
// indented, doc links keep their text. The output depends only on the
// sources (files are selected for linux/amd64 whatever the host), so the
// same Go release always gives the same corpus. It returns the paths
// written, in CorpusPackages order.
func BuildCorpus(goroot, dir string) ([]string, error) {
	if goroot == "" {
		return nil, errors.New("eval: BuildCorpus: empty GOROOT")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, pkg := range CorpusPackages {
		md, err := PackageMarkdown(goroot, pkg)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, CorpusFileName(pkg))
		if err := os.WriteFile(path, md, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// PackageMarkdown renders the documentation comment of the standard-library
// package pkg (import path) found under goroot/src as Markdown.
func PackageMarkdown(goroot, pkg string) ([]byte, error) {
	dp, err := loadDoc(goroot, pkg)
	if err != nil {
		return nil, err
	}
	pr := dp.Printer()
	pr.HeadingLevel = 2
	// Doc links ([Reader], [io.Writer]) keep their text; the Markdown loader
	// drops link targets anyway.
	pr.DocLinkBaseURL = "https://pkg.go.dev"
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Package %s\n\n", pkg)
	b.Write(pr.Markdown(dp.Parser().Parse(dp.Doc)))
	return b.Bytes(), nil
}

// PackageDoc returns the text of the package documentation comment of pkg
// (comment markers removed), as go doc shows it.
func PackageDoc(goroot, pkg string) (string, error) {
	dp, err := loadDoc(goroot, pkg)
	if err != nil {
		return "", err
	}
	return dp.Doc, nil
}

// loadDoc parses the package's non-test Go files for linux/amd64 (whatever
// the host) with comments and reads its documentation with go/doc, which
// also knows the package's symbols, so doc links like [Once] resolve.
func loadDoc(goroot, pkg string) (*doc.Package, error) {
	ctxt := build.Default
	ctxt.GOROOT = goroot
	ctxt.GOPATH = ""
	ctxt.GOOS = "linux"
	ctxt.GOARCH = "amd64"
	ctxt.CgoEnabled = true
	ctxt.BuildTags = nil
	dir := filepath.Join(goroot, "src", filepath.FromSlash(pkg))
	bp, err := ctxt.ImportDir(dir, build.IgnoreVendor)
	if err != nil {
		return nil, fmt.Errorf("eval: package %s: %w", pkg, err)
	}
	names := slices.Concat(bp.GoFiles, bp.CgoFiles)
	slices.Sort(names)
	fset := token.NewFileSet()
	files := make([]*ast.File, 0, len(names))
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("eval: package %s: %w", pkg, err)
		}
		files = append(files, f)
	}
	dp, err := doc.NewFromFiles(fset, files, pkg)
	if err != nil {
		return nil, fmt.Errorf("eval: package %s: %w", pkg, err)
	}
	if strings.TrimSpace(dp.Doc) == "" {
		return nil, fmt.Errorf("eval: package %s has no package documentation in %s", pkg, dir)
	}
	return dp, nil
}
