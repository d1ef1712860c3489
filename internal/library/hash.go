package library

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// hasher streams a file into sha256; the result matches ragd.ContentHash of
// the same bytes, which is what the worker records as the raw hash.
type hasher struct{ hash.Hash }

func newHasher() hasher { return hasher{sha256.New()} }

func (h hasher) sum() string { return hex.EncodeToString(h.Sum(nil)) }
