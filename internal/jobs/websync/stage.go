package websync

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"ragd"
	"ragd/internal/ingest/sourcetype"
	"ragd/internal/jobs/sourcesync"
)

// Stage hands over the page the plan staged while the crawl read it:
// its upload, a file name whose extension is its content type's, and the
// page URL as its citation.
func (s *Syncer) Stage(_ context.Context, p *sourcesync.Plan, page string) (sourcesync.File, error) {
	f := sourcesync.File{Item: page, Source: ragd.SourceItemURI(ragd.SourceWeb, p.Src.URL, page), WebURL: page}
	sp, ok := stateOf(p).staged[page]
	if !ok {
		return f, fmt.Errorf("web: %w", sourcesync.ErrNotPlanned(page))
	}
	name, err := fileName(page, sp.typ)
	if err != nil {
		return f, err
	}
	f.Upload, f.Filename, f.Type = sp.upload, name, sp.typ
	return f, nil
}

// fileName is the name a page is read under: the last segment of its
// path (index for a directory) with the extension of its type, which
// picks the pipeline's reader.
func fileName(page string, typ ragd.SourceType) (string, error) {
	ext := "." + string(typ)
	if t, ok := sourcetype.ForExtension(ext); !ok || t != typ {
		return "", fmt.Errorf("web: %s: a page of type %q: %w", page, typ, sourcetype.ErrUnsupported)
	}
	base := "index"
	if u, err := url.Parse(page); err == nil && !strings.HasSuffix(u.Path, "/") && u.Path != "" {
		base = strings.TrimSuffix(path.Base(u.Path), path.Ext(u.Path))
	}
	base = strings.Map(func(r rune) rune {
		if r < ' ' || r == '/' || r == '\\' || r == 0x7f {
			return '_'
		}
		return r
	}, base)
	if base == "" || base == "." || base == ".." {
		base = "index"
	}
	return base + ext, nil
}
