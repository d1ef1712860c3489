package document

// Image is a picture found in a document.
type Image struct {
	Index    int    // 0-based order in the document
	Page     int    // 1-based page for PDF, 0 for DOCX
	Position int    // DOCX: index of the block (as Parse numbers them) the picture sits in or precedes; PDF: 0-based drawing order among the page's images
	Format   string // "png", "jpeg", "gif", "bmp", "tiff", "webp", "jp2", "emf", "wmf", "svg", … ("" if unknown)
	// Width and Height are the pixel size when cheaply known (from the
	// image header), else 0.
	Width, Height int
	// Caption is the picture's caption: for DOCX the adjacent paragraph
	// styled Caption or starting "Figure N"/"Fig. N"/"Table N", else the alt
	// text; for PDF the nearest line on the page starting "Figure N"/"Fig. N"
	// (with the lines that continue it).
	Caption string
	// Alt is the picture's alternative text (DOCX wp:docPr descr, else its
	// title; VML alt), "" when there is none or for PDF.
	Alt string
	// Nearby is up to about NearbyChars characters of the text around the
	// picture: the paragraphs before and after it (DOCX), the lines closest
	// to it on its page (PDF).
	Nearby string
	// Data is the image file: a DOCX media part as stored; for PDF the
	// JPEG/JPEG 2000 stream as stored, other image streams re-encoded as PNG
	// (TIFF for CCITT fax) by pdfcpu, since a raw PDF pixel stream is no
	// image file.
	Data []byte
}

// MIMEType returns the media type of the image data, "" if unknown.
func (img Image) MIMEType() string { return ImageMIMEType(img.Format) }

// The limits on the pictures read from one document.
const (
	MaxImages     = 200      // images returned per document
	MaxImageBytes = 20 << 20 // bytes of image data per document
	MinImageSide  = 32       // smaller pictures (icons, bullets, rules) are skipped
	NearbyChars   = 300      // length of Image.Nearby
)
