package docx

import (
	"archive/zip"
	"bufio"
	"io"
	"strings"
)

// docxPart is one XML part of the package being inflated. encoding/xml
// reads an io.ByteReader directly, without a buffer of its own, so every
// byte of a token passes through ReadByte, which bounds the size of any
// single token (a text node, a tag with endless attributes, a comment):
// the decoder buffers a whole token before returning it.
type docxPart struct {
	name  string
	in    *bufio.Reader // over the inflating docxInflate
	close func() error
	token int // bytes read since the last token was returned
}

// openDOCXPart starts inflating f, a part of an archive of size bytes.
func openDOCXPart(f *zip.File, size int64) (*docxPart, error) {
	limit, err := docxAllowance(f, size)
	if err != nil {
		return nil, err
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(f.Name, "/")
	guard := &docxInflate{r: rc, name: name, left: limit, ratio: limit < maxDOCXPart}
	return &docxPart{name: name, in: bufio.NewReaderSize(guard, 4<<10), close: rc.Close}, nil
}

// docxAllowance is how many bytes f may inflate to: at most maxDOCXPart,
// and at most maxDOCXRatio times its compressed size beyond a small
// allowance. The compressed size is the header's, which a forger may raise,
// but never more than the archive. A header already claiming more fails.
func docxAllowance(f *zip.File, size int64) (int64, error) {
	compressed := min(f.CompressedSize64, uint64(max(size, 0)))
	limit := int64(maxDOCXPart)
	if byRatio := maxDOCXRatio*compressed + docxRatioAllowance; byRatio < uint64(limit) {
		limit = int64(byRatio)
	}
	if f.UncompressedSize64 > uint64(limit) {
		return 0, docxOverInflated(strings.TrimPrefix(f.Name, "/"), limit < maxDOCXPart)
	}
	return limit, nil
}

// docxOverInflated reports a part over its allowance.
func docxOverInflated(name string, ratio bool) error {
	if ratio {
		return docxLimit("%s inflates more than %d× its compressed size", name, maxDOCXRatio)
	}
	return docxLimit("%s inflates to more than %s", name, mib(maxDOCXPart))
}

// ReadByte reads the next byte of the part, failing once the token being
// read exceeds maxDOCXToken bytes.
func (p *docxPart) ReadByte() (byte, error) {
	if p.token >= maxDOCXToken {
		return 0, p.tokenTooLong()
	}
	p.token++
	return p.in.ReadByte()
}

// Read is there for io.Reader, under the same bound; encoding/xml uses
// ReadByte.
func (p *docxPart) Read(b []byte) (int, error) {
	switch {
	case len(b) == 0:
		return 0, nil
	case p.token >= maxDOCXToken:
		return 0, p.tokenTooLong()
	}
	n, err := p.in.Read(b[:min(len(b), maxDOCXToken-p.token)])
	p.token += n
	return n, err
}

func (p *docxPart) tokenTooLong() error {
	return docxLimit("%s has a text node, tag or comment over %s", p.name, mib(maxDOCXToken))
}

// tokenDone starts the count of the next token.
func (p *docxPart) tokenDone() { p.token = 0 }

// Close releases the inflater.
func (p *docxPart) Close() error { return p.close() }

// docxInflate passes a part's inflated bytes through, failing (rather than
// truncating) once more than left bytes came: this checks what the part
// really inflates to, not only what its header claims.
type docxInflate struct {
	r     io.Reader
	name  string
	left  int64
	ratio bool // left is the ratio bound, not maxDOCXPart
}

// Read passes inflated bytes through, or fails past the allowance.
func (c *docxInflate) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, docxOverInflated(c.name, c.ratio)
	}
	// one byte more than allowed tells a part at the limit from one over it
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, docxOverInflated(c.name, c.ratio)
	}
	return n, err
}
