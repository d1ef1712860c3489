package archive

import "encoding/json"

// wireRecord is a record as read. Its vectors stay raw until parseVector
// reads them, with the record at hand to name in an error: decoded by
// encoding/json, a null element would pass as 0.
type wireRecord struct {
	Type     string     `json:"type"`
	Header   *Header    `json:"header,omitempty"`
	Chunk    *wireChunk `json:"chunk,omitempty"`
	Image    *wireImage `json:"image,omitempty"`
	Document *Document  `json:"document,omitempty"`
	Trailer  *Trailer   `json:"trailer,omitempty"`
}

// wireChunk is a Chunk whose vector is not read yet (the outer field
// shadows Chunk's own).
type wireChunk struct {
	Chunk
	Vector json.RawMessage `json:"vector"`
}

// wireImage is an Image whose vector is not read yet.
type wireImage struct {
	Image
	Vector json.RawMessage `json:"vector"`
}
