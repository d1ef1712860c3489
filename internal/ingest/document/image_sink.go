package document

// ImageSink collects a document's pictures within MaxImages and
// MaxImageBytes. The zero value is empty and ready to use.
type ImageSink struct {
	out   []Image
	bytes int
}

// Full reports that no further image can be added.
func (s *ImageSink) Full() bool {
	return len(s.out) >= MaxImages || s.bytes >= MaxImageBytes
}

// Len is the number of images added.
func (s *ImageSink) Len() int { return len(s.out) }

// Room is how many more bytes of image data fit.
func (s *ImageSink) Room() int { return MaxImageBytes - s.bytes }

// Images are the images added, in the order they were added.
func (s *ImageSink) Images() []Image { return s.out }

// Accept fills in the format (detected from the data, else from the
// extension of name) and the size of img and reports whether it passes the
// limits; it does not add it. shared means img.Data was already counted
// (the same DOCX media part placed twice).
func (s *ImageSink) Accept(img *Image, name string, shared bool) bool {
	if s.Full() || len(img.Data) == 0 {
		return false
	}
	if !shared && len(img.Data) > s.Room() {
		return false
	}
	if img.Format == "" {
		img.Format = DetectImageFormat(img.Data, name)
	}
	if w, h := ImageSize(img.Data, img.Format); w > 0 && h > 0 {
		img.Width, img.Height = w, h
	}
	return !TooSmall(img.Width, img.Height)
}

// AcceptBeside is Accept for an image that would join pending bytes of
// images accepted but not yet added (a PDF page's, added once the page is
// read).
func (s *ImageSink) AcceptBeside(img *Image, pending int) bool {
	s.bytes += pending
	defer func() { s.bytes -= pending }()
	return s.Accept(img, "", false)
}

// Add appends img, numbering it; shared means its data was already counted.
func (s *ImageSink) Add(img Image, shared bool) {
	img.Index = len(s.out)
	if !shared {
		s.bytes += len(img.Data)
	}
	s.out = append(s.out, img)
}

// TooSmall reports a known size under MinImageSide on either side.
func TooSmall(w, h int) bool {
	return w > 0 && h > 0 && (w < MinImageSide || h < MinImageSide)
}
