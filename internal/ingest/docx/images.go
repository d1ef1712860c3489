package docx

import (
	"archive/zip"
	"fmt"
	"io"

	"ragd"
	"ragd/internal/ingest/document"
)

// docxImgPar is a paragraph, in the order paragraphs start, as the picture
// extraction sees it. Empty paragraphs no picture sits in are left out: they
// are neither caption nor context.
type docxImgPar struct {
	text      string // trimmed; whitespace-collapsed once a picture's text is taken from it
	block     int32  // index of the block it is or precedes, as Parse numbers them
	caption   bool   // styled Caption or opening with a caption label
	collapsed bool
}

// docxPic is one accepted picture's place in the document.
type docxPic struct {
	par int    // innermost paragraph holding it, -1 if none
	rel string // relationship id of the media part
	alt string
}

// docxPictures is the picture side of the model. Pictures are accepted
// (their media read, the image limits applied) as the walk finds them, so
// at most document.MaxImages are kept; their caption and context come from
// the paragraphs once the walk is over.
type docxPictures struct {
	files map[string]*zip.File
	rels  map[string]string // relationship id → media part
	err   error             // why the pictures cannot be read
	pars  []docxImgPar
	refs  []docxPic // of sink.out, one for one
	sink  document.ImageSink
	media map[string][]byte // parts already read
}

// extractDOCXImages reads the pictures the main document part places
// (DrawingML a:blip r:embed and VML v:imagedata r:id), resolves them through
// the part's relationships to the media parts, and takes caption and
// context from the paragraphs around them. Headers, footers and notes are
// not searched.
func extractDOCXImages(data []byte) ([]document.Image, error) {
	m, err := readDOCX(data, docxWant{pictures: true})
	if err != nil {
		return nil, document.Errorf("", ragd.SourceDOCX, "%w", err)
	}
	imgs, err := m.pics.images()
	if err != nil {
		return nil, document.Errorf("", ragd.SourceDOCX, "%w", err)
	}
	return imgs, nil
}

// newDOCXPictures reads the main part's relationships for the pictures;
// their failure is the pictures' err.
func newDOCXPictures(pkg *docxPackage) *docxPictures {
	rels, err := readDOCXRels(pkg)
	return &docxPictures{files: pkg.files, rels: rels, err: err, media: map[string][]byte{}}
}

// openPar files a paragraph that starts, returning its index.
func (p *docxPictures) openPar() int {
	p.pars = append(p.pars, docxImgPar{})
	return len(p.pars) - 1
}

// closePar completes paragraph i and reports whether it is kept; text is
// its trimmed text (the block's own, not a copy), block the number of
// blocks before it.
func (p *docxPictures) closePar(i int, text string, st docxStyle, block int, placed bool) bool {
	if text == "" && !placed && i == len(p.pars)-1 {
		p.pars = p.pars[:i] // no picture refers to it, none can look past it
		return false
	}
	p.pars[i] = docxImgPar{
		text:    text,
		caption: text != "" && (st.caption || docxCaptionStart(text)),
		block:   int32(block),
	}
	return true
}

// docxCaptionStart reports a paragraph opening with a caption label; the
// label starts with F or T, which spares collapsing every other paragraph.
func docxCaptionStart(text string) bool {
	switch text[0] {
	case 'f', 'F', 't', 'T':
		return document.CaptionStart.MatchString(collapseSpace(text))
	}
	return false
}

// collapseAround collapses the whitespace of the paragraphs a picture's
// text may come from: its own and the nearest non-empty ones on each side,
// three for the context and one more for a caption it skips.
func (p *docxPictures) collapseAround(par int) {
	if par < 0 || par >= len(p.pars) {
		return
	}
	p.collapse(par)
	for _, step := range []int{-1, 1} {
		for j, n := par+step, 0; j >= 0 && j < len(p.pars) && n < 4; j += step {
			if p.pars[j].text != "" {
				p.collapse(j)
				n++
			}
		}
	}
}

// collapse collapses paragraph j's whitespace, once.
func (p *docxPictures) collapse(j int) {
	if !p.pars[j].collapsed {
		p.pars[j].text, p.pars[j].collapsed = collapseSpace(p.pars[j].text), true
	}
}

// place accepts the picture ref found in the walk, if the image limits let
// it in, and reports whether it did. A panic of an image decoder ends the
// pictures, not the text.
func (p *docxPictures) place(ref docxPic) (ok bool) {
	if p.err != nil || p.sink.Full() {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			ok, p.err = false, fmt.Errorf("malformed DOCX: %s", document.PanicText(r))
		}
	}()
	name, found := p.rels[ref.rel]
	if !found || p.files[name] == nil {
		return false // an external link or a dangling id
	}
	body, shared := p.media[name]
	if !shared {
		if body = readMedia(p.files[name], p.sink.Room()); body == nil {
			return false
		}
		p.media[name] = body
	}
	ref.alt = collapseSpace(ref.alt)
	img := document.Image{Data: body, Alt: ref.alt}
	if !p.sink.Accept(&img, name, shared) {
		return false
	}
	p.sink.Add(img, shared)
	p.refs = append(p.refs, ref)
	return true
}

// images returns the accepted pictures with their position, caption and
// context.
func (p *docxPictures) images() ([]document.Image, error) {
	if p.err != nil {
		return nil, p.err
	}
	out := p.sink.Images()
	for i := range out {
		p.collapseAround(p.refs[i].par)
		out[i].Position, out[i].Caption, out[i].Nearby = docxPictureText(p.pars, p.refs[i])
	}
	return out, nil
}

// readMedia returns the inflated part, nil if it is unreadable or larger
// than limit bytes.
func readMedia(f *zip.File, limit int) []byte {
	if limit <= 0 || f.UncompressedSize64 > uint64(limit) {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(limit)+1))
	if err != nil || len(b) > limit || len(b) == 0 {
		return nil
	}
	return b
}
