package pdftext

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ledongthuc/pdf"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"ragd"
	"ragd/internal/ingest/document"
)

// pdfcpu looks for a configuration directory (creating one under the
// user's config dir) unless told not to; ragd never wants that.
var disablePDFCPUConfig sync.Once

func pdfcpuConfig() *model.Configuration {
	disablePDFCPUConfig.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	conf.Cmd = model.EXTRACTIMAGES
	conf.ValidationMode = model.ValidationRelaxed
	conf.UnsupportedResourcePolicy = model.UnsupportedResourceSkip
	conf.Limits.MaxImagePixels = 64 << 20
	conf.Limits.MaxImageBytes = 256 << 20
	return conf
}

// readPDFCPU reads, validates (relaxed) and optimizes the document, which
// lists each page's image XObjects; a document pdfcpu does not validate is
// read again without validation.
func readPDFCPU(data []byte) (*model.Context, error) {
	ctx, err := api.ReadValidateAndOptimize(bytes.NewReader(data), pdfcpuConfig())
	if err == nil {
		return ctx, nil
	}
	ctx, err2 := api.ReadContext(bytes.NewReader(data), pdfcpuConfig())
	if err2 != nil || ctx == nil {
		return nil, err
	}
	if err2 = api.OptimizeContext(ctx); err2 != nil {
		return nil, err
	}
	return ctx, nil
}

// pdfPageImage is an image of one page before it is added to the result.
type pdfPageImage struct {
	document.Image
	place *pdfPlacement // where the page draws it, nil if unknown
}

// extractPDFImages lists the image XObjects each page uses (pdfcpu) and
// takes caption and context from the page's text (ledongthuc/pdf). An image
// used on several pages (a logo in the header) is returned once, for the
// first page that draws it. Inline images (BI … EI) are not extracted.
func extractPDFImages(data []byte, maxPages int) ([]document.Image, error) {
	ctx, err := readPDFCPU(data)
	if err != nil {
		return nil, &document.ParseError{Type: ragd.SourcePDF, Err: err}
	}
	if maxPages > 0 && ctx.PageCount > maxPages {
		return nil, &document.ParseError{Type: ragd.SourcePDF, Err: fmt.Errorf("the document has %d pages, more than ingest.max_pages (%d)", ctx.PageCount, maxPages)}
	}
	if ctx.Optimize == nil {
		return nil, nil
	}
	pages, home := placeImages(ctx, pdfTextPages(data, maxPages, ctx.PageCount))
	var sink document.ImageSink
	for pageNr := 1; pageNr <= ctx.PageCount && !sink.Full(); pageNr++ {
		if pt := pages[pageNr]; pt != nil {
			renderPage(ctx, &sink, pt, pageNr, home)
		}
	}
	return sink.Images(), nil
}

// pdfTextPages reads the pages' text side, nil when it cannot be read or
// does not match pdfcpu's page count: the text is optional, without it
// images still come out, with no caption or context.
func pdfTextPages(data []byte, maxPages, pageCount int) (text []pdf.Page) {
	defer func() { _ = recover() }()
	if r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
		if pages, err := pdfPages(r, maxPages); err == nil && len(pages) == pageCount {
			return pages
		}
	}
	return nil
}

// placeImages finds where each image is drawn. A producer may give every
// page the same resources, so an image is placed on the first page that
// draws it, or, when no page is seen to, the first that lists it. It
// returns the text of each page holding an image and each image's page
// (by object number).
func placeImages(ctx *model.Context, text []pdf.Page) (map[int]*pdfPageText, map[int]int) {
	pages := make(map[int]*pdfPageText)
	home := map[int]int{}    // object number → page
	placed := map[int]bool{} // home is a page that draws it
	for pageNr := 1; pageNr <= ctx.PageCount; pageNr++ {
		objNrs := slices.DeleteFunc(pdfcpu.ImageObjNrs(ctx, pageNr), func(n int) bool { return placed[n] })
		if len(objNrs) == 0 {
			continue // (a header logo seen on an earlier page)
		}
		pt := &pdfPageText{height: 792, down: -1}
		if text != nil {
			*pt = readPDFPageText(text[pageNr-1])
		}
		pages[pageNr] = pt
		for _, objNr := range objNrs {
			obj := ctx.Optimize.ImageObjects[objNr]
			if obj == nil {
				continue
			}
			if pt.placement(obj.ResourceNames[pageNr-1]) != nil {
				home[objNr], placed[objNr] = pageNr, true
			} else if _, ok := home[objNr]; !ok {
				home[objNr] = pageNr
			}
		}
	}
	return pages, home
}

// renderPage renders the images whose home is the page into the sink, in
// drawing order where known (else object order, as listed), with their
// captions and context.
func renderPage(ctx *model.Context, sink *document.ImageSink, pt *pdfPageText, pageNr int, home map[int]int) {
	var page []pdfPageImage
	pending := 0 // bytes of page
	for _, objNr := range pdfcpu.ImageObjNrs(ctx, pageNr) {
		if sink.Len()+len(page) >= document.MaxImages || sink.Room()-pending <= 0 {
			break
		}
		obj := ctx.Optimize.ImageObjects[objNr]
		if home[objNr] != pageNr || obj == nil || obj.ImageDict == nil {
			continue
		}
		name := obj.ResourceNames[pageNr-1]
		sd := obj.ImageDict
		if document.TooSmall(dictInt(sd, "Width"), dictInt(sd, "Height")) {
			continue
		}
		img, ok := renderPDFImage(ctx, sd, name, objNr, sink.Room()-pending)
		if !ok {
			continue
		}
		if !sink.AcceptBeside(&img, pending) {
			continue
		}
		if img.Width == 0 || img.Height == 0 {
			img.Width, img.Height = dictInt(sd, "Width"), dictInt(sd, "Height")
		}
		img.Page = pageNr
		page = append(page, pdfPageImage{Image: img, place: pt.placement(name)})
		pending += len(img.Data)
	}
	if len(page) == 0 {
		return
	}
	sort.SliceStable(page, func(i, j int) bool { return drawOrder(page[i]) < drawOrder(page[j]) })
	pt.describe(page)
	for i := range page {
		page[i].Position = i
		sink.Add(page[i].Image, false)
	}
}

// drawOrder sorts images the page draws first, in drawing order.
func drawOrder(im pdfPageImage) int {
	if im.place == nil {
		return math.MaxInt
	}
	return im.place.order
}

// dictInt returns an integer entry of the stream dictionary, 0 if missing.
func dictInt(sd *types.StreamDict, key string) int {
	if v := sd.IntEntry(key); v != nil {
		return *v
	}
	return 0
}

// renderPDFImage turns an image XObject into an image file: JPEG and JPEG
// 2000 streams as stored, others re-encoded by pdfcpu (PNG, or TIFF for
// CCITT). ok is false for images pdfcpu cannot render and for data over
// limit bytes.
func renderPDFImage(ctx *model.Context, sd *types.StreamDict, name string, objNr, limit int) (img document.Image, ok bool) {
	defer func() {
		if recover() != nil {
			img, ok = document.Image{}, false
		}
		sd.Content = nil // the decoded pixels: let them go with the image
	}()
	if limit <= 0 {
		return document.Image{}, false
	}
	mi, err := pdfcpu.ExtractImage(ctx, sd, false, name, objNr, false)
	if err != nil || mi == nil || mi.Reader == nil {
		return document.Image{}, false
	}
	b, err := io.ReadAll(io.LimitReader(mi, int64(limit)+1))
	if err != nil || len(b) == 0 || len(b) > limit {
		return document.Image{}, false
	}
	return document.Image{Data: b, Format: document.DetectImageFormat(b, "x."+mi.FileType)}, true
}

// pdfPlacement is where a page draws an image: its bounding box in default
// user space, and the drawing order.
type pdfPlacement struct {
	name           string // resource name, qualified by the form XObjects it is drawn through ("Fm1.Im0")
	order          int
	x0, y0, x1, y1 float64
}

// pdfPageText is what a page offers to describe its images.
type pdfPageText struct {
	lines   []pdfLine
	height  float64 // page height, for the caption distance limit
	down    float64 // -1 when reading order goes to lower y (the usual), +1 when flipped
	places  []pdfPlacement
	capUsed map[int]bool
}

func (pt *pdfPageText) placement(name string) *pdfPlacement {
	for i := range pt.places {
		if pt.places[i].name == name {
			return &pt.places[i]
		}
	}
	return nil
}

// readPDFPageText reads a page's lines and image placements; whatever the
// library cannot read stays empty.
func readPDFPageText(p pdf.Page) (pt pdfPageText) {
	pt.height, pt.down = 792, -1
	func() {
		defer func() {
			if recover() != nil {
				pt.lines = nil
			}
		}()
		pt.lines = pageLines(p.Content().Text)
	}()
	func() {
		defer func() {
			if recover() != nil {
				pt.places = nil
			}
		}()
		pt.places = pagePlacements(p)
	}()
	func() {
		defer func() { _ = recover() }()
		mb := p.V.Key("MediaBox")
		for v, n := p.V, 0; mb.IsNull() && !v.IsNull() && n < 32; v, n = v.Key("Parent"), n+1 {
			mb = v.Key("MediaBox")
		}
		if mb.Len() == 4 {
			if h := math.Abs(mb.Index(3).Float64() - mb.Index(1).Float64()); h > 0 {
				pt.height = h
			}
		}
	}()
	var up, dn int
	for i := 1; i < len(pt.lines); i++ {
		switch d := pt.lines[i].y - pt.lines[i-1].y; {
		case d < 0:
			dn++
		case d > 0:
			up++
		}
	}
	if up > dn {
		pt.down = 1
	}
	return pt
}

// pdfMatrix is a PDF transformation matrix [a b c d e f].
type pdfMatrix [6]float64

var pdfIdentity = pdfMatrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: m applied first.
func (m pdfMatrix) mul(n pdfMatrix) pdfMatrix {
	return pdfMatrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m pdfMatrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

func matrixOf(v pdf.Value) (pdfMatrix, bool) {
	if v.Kind() != pdf.Array || v.Len() != 6 {
		return pdfIdentity, false
	}
	var m pdfMatrix
	for i := range m {
		m[i] = v.Index(i).Float64()
	}
	return m, true
}

// pagePlacements interprets the page's content streams, and those of the
// form XObjects it draws, for the image XObjects drawn (Do) and the
// transformation in force, which maps the unit square onto the image. It
// panics on content the library cannot parse.
func pagePlacements(p pdf.Page) []pdfPlacement {
	var (
		out   []pdfPlacement
		calls int
	)
	var walk func(strm, res pdf.Value, ctm pdfMatrix, prefix string, depth int)
	walk = func(strm, res pdf.Value, ctm pdfMatrix, prefix string, depth int) {
		if strm.Kind() != pdf.Stream && strm.Kind() != pdf.Array {
			return
		}
		var saved []pdfMatrix
		cur := ctm
		pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
			args := make([]pdf.Value, stk.Len())
			for i := len(args) - 1; i >= 0; i-- {
				args[i] = stk.Pop()
			}
			switch op {
			case "q":
				saved = append(saved, cur)
			case "Q":
				if n := len(saved); n > 0 {
					cur, saved = saved[n-1], saved[:n-1]
				}
			case "cm":
				if len(args) == 6 {
					var m pdfMatrix
					for i := range m {
						m[i] = args[i].Float64()
					}
					cur = m.mul(cur)
				}
			case "Do":
				if len(args) != 1 || calls >= 5000 {
					return
				}
				calls++
				name := args[0].Name()
				xo := res.Key("XObject").Key(name)
				qn := name
				if prefix != "" {
					qn = prefix + "." + name
				}
				switch xo.Key("Subtype").Name() {
				case "Image":
					pl := pdfPlacement{name: qn, order: len(out), x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1)}
					for _, c := range [4][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
						x, y := cur.apply(c[0], c[1])
						pl.x0, pl.y0 = min(pl.x0, x), min(pl.y0, y)
						pl.x1, pl.y1 = max(pl.x1, x), max(pl.y1, y)
					}
					out = append(out, pl)
				case "Form":
					if depth >= 8 {
						return
					}
					m, _ := matrixOf(xo.Key("Matrix"))
					fres := xo.Key("Resources")
					if fres.IsNull() {
						fres = res
					}
					walk(xo, fres, m.mul(cur), qn, depth+1)
				}
			}
		})
	}
	walk(p.V.Key("Contents"), p.Resources(), pdfIdentity, "", 0)
	return out
}

// pdfCaption is a caption candidate: a line opening with "Figure N" or
// "Fig. N" and the lines that continue it.
type pdfCaption struct {
	text        string
	y           float64
	first, last int // line indexes
}

func (pt *pdfPageText) captions() []pdfCaption {
	var gaps []float64
	for i := 1; i < len(pt.lines); i++ {
		gaps = append(gaps, math.Abs(pt.lines[i].y-pt.lines[i-1].y))
	}
	gap := medianPositive(gaps)
	var out []pdfCaption
	for i := 0; i < len(pt.lines); i++ {
		t := document.OneLine(pt.lines[i].text)
		if !document.FigureStart.MatchString(t) {
			continue
		}
		c := pdfCaption{text: t, y: pt.lines[i].y, first: i, last: i}
		for j := i + 1; j < len(pt.lines) && j <= i+3 && len(c.text) < document.MaxCaptionChars; j++ {
			next := document.OneLine(pt.lines[j].text)
			if next == "" || document.FigureStart.MatchString(next) || (gap > 0 && math.Abs(pt.lines[j].y-pt.lines[j-1].y) > gap*1.5) {
				break
			}
			c.text = joinLine(c.text, next)
			c.last = j
		}
		c.text = document.Clip(c.text, document.MaxCaptionChars)
		out = append(out, c)
		i = c.last
	}
	return out
}

// joinLine appends a wrapped line, without a space after a hyphen.
func joinLine(s, next string) string {
	if s == "" || strings.HasSuffix(s, "-") {
		return s + next
	}
	return s + " " + next
}

// distance is how far y lies from the placement's vertical extent, a line
// above the image counting double: captions go below pictures more often.
func (pt *pdfPageText) distance(pl *pdfPlacement, y float64) float64 {
	var d float64
	switch {
	case y < pl.y0:
		d = pl.y0 - y
		if pt.down > 0 { // flipped: lower y is above
			d *= 2
		}
	case y > pl.y1:
		d = y - pl.y1
		if pt.down < 0 {
			d *= 2
		}
	}
	return d
}

// describe sets Caption and Nearby of the page's images.
func (pt *pdfPageText) describe(page []pdfPageImage) {
	if len(pt.lines) == 0 {
		return
	}
	caps := pt.captions()
	capOf := make([]int, len(page)) // index into caps, -1 for none
	for i := range capOf {
		capOf[i] = -1
	}
	placed := true
	for _, im := range page {
		placed = placed && im.place != nil
	}
	if placed {
		// greedy: the closest image-caption pairs first
		type pair struct {
			img, cap int
			d        float64
		}
		var pairs []pair
		for i := range page {
			for j, c := range caps {
				if d := pt.distance(page[i].place, c.y); d <= pt.height/2 {
					pairs = append(pairs, pair{i, j, d})
				}
			}
		}
		slices.SortStableFunc(pairs, func(a, b pair) int {
			switch {
			case a.d < b.d:
				return -1
			case a.d > b.d:
				return 1
			}
			return 0
		})
		owner := make([]int, len(caps)) // image given the caption, -1 for none
		for i := range owner {
			owner[i] = -1
		}
		for _, p := range pairs {
			if capOf[p.img] < 0 && owner[p.cap] < 0 {
				capOf[p.img], owner[p.cap] = p.cap, p.img
			}
		}
		// An image left without a caption shares the nearest one when it is
		// about as close to it as the image that got it: a row of pictures
		// above one caption.
		for _, p := range pairs {
			if o := owner[p.cap]; capOf[p.img] < 0 && o >= 0 &&
				p.d <= pt.distance(page[o].place, caps[p.cap].y)*1.25+24 {
				capOf[p.img] = p.cap
			}
		}
	} else {
		for i := range page {
			if i < len(caps) {
				capOf[i] = i
			}
		}
	}

	for i := range page {
		skip := map[int]bool{}
		if c := capOf[i]; c >= 0 {
			page[i].Caption = caps[c].text
			for l := caps[c].first; l <= caps[c].last; l++ {
				skip[l] = true
			}
		}
		page[i].Nearby = pt.nearby(page[i].place, skip)
	}
}

// nearby returns up to document.NearbyChars of the page's text: the lines closest to
// the image when its placement is known, else the page's first lines, in
// reading order either way.
func (pt *pdfPageText) nearby(pl *pdfPlacement, skip map[int]bool) string {
	idx := make([]int, 0, len(pt.lines))
	for i, ln := range pt.lines {
		if !skip[i] && strings.TrimSpace(ln.text) != "" {
			idx = append(idx, i)
		}
	}
	if pl != nil {
		sort.SliceStable(idx, func(a, b int) bool {
			return pt.distance(pl, pt.lines[idx[a]].y) < pt.distance(pl, pt.lines[idx[b]].y)
		})
	}
	n := 0
	for k, i := range idx {
		if n >= document.NearbyChars {
			idx = idx[:k]
			break
		}
		n += len(document.OneLine(pt.lines[i].text)) + 1
	}
	slices.Sort(idx)
	var s string
	for _, i := range idx {
		s = joinLine(s, document.OneLine(pt.lines[i].text))
	}
	return document.Clip(s, document.NearbyChars)
}
