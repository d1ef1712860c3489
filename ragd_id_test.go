package ragd

import "testing"

// A picture's id is its own: deterministic, and never a chunk's of the
// same document, version and place.
func TestImageIDIsNoChunkID(t *testing.T) {
	if ImageID("d", "h", 0) != ImageID("d", "h", 0) {
		t.Fatal("ImageID is not deterministic")
	}
	if ImageID("d", "h", 0) == ChunkID("d", "h", 0) || ImageID("d", "h", 0) == ImageID("d", "h", 1) {
		t.Fatal("an image id collides with a chunk's or another image's")
	}
}
