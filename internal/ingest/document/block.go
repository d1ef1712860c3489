package document

// BlockKind is the structural role of a Block.
type BlockKind int

// The block kinds a loader produces.
const (
	BlockParagraph BlockKind = iota
	BlockHeading
	BlockCode
	BlockListItem
	BlockTable // one table row, cells joined by " | "
)

// Block is one structural unit of a loaded document.
type Block struct {
	Kind  BlockKind
	Level int    // heading depth 1..6 for BlockHeading, 0 otherwise
	Text  string // whitespace-normalized; code keeps its indentation
	Page  int    // 1-based page for PDF, 0 otherwise
	OCR   bool   // read by OCR from a scanned PDF page
}
