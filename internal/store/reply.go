package store

import (
	"errors"
	"math"
	"time"

	"github.com/weaviate/weaviate/usecases/byteops"
	"google.golang.org/protobuf/encoding/protowire"

	"ragd"
)

// Field numbers of Weaviate's search reply (protocol v1, search_get.proto
// and properties.proto) that ragd reads; every other field is skipped.
const (
	replyResults = 2 // SearchReply.results

	resultProperties = 1 // SearchResult.properties
	resultMetadata   = 2 // SearchResult.metadata

	propertiesNonRef = 11 // PropertiesResult.non_ref_props
	propertiesFields = 1  // Properties.fields (map entries: key 1, value 2)

	metaID              = 1  // MetadataResult.id
	metaDistance        = 7  // float
	metaDistancePresent = 8  // bool
	metaScore           = 11 // float
	metaScorePresent    = 12 // bool
	metaVectorBytes     = 19 // little-endian float32s

	valueNumber = 1  // double
	valueBool   = 3  // bool
	valueList   = 5  // ListValue
	valueDate   = 6  // string
	valueInt    = 8  // int64
	valueText   = 13 // string

	listTextValues = 8 // ListValue.text_values (TextValues.values = 1)
)

var errMalformed = errors.New("malformed protobuf")

// replyReader reads one reply. Its hits' strings share one copy of the
// reply's bytes, so a reply costs one allocation for all its text.
type replyReader struct {
	buf []byte // the reply, valid while it is read
	all string // a copy of buf
}

// str is v, a part of the reply, as a string sharing the copy.
func (r *replyReader) str(v []byte) string {
	off := cap(r.buf) - cap(v)
	if off < 0 || off+len(v) > len(r.all) {
		return string(v)
	}
	return r.all[off : off+len(v)]
}

// readHits reads a SearchReply's results, in order, as hits of namespace:
// scored by distance (1 − distance) for a vector search, by score
// otherwise — what the client's path made of the same reply. room is how
// many hits it is likely to hold.
func readHits(b []byte, namespace string, vectorMode bool, room int) ([]ragd.Hit, error) {
	r := &replyReader{buf: b, all: string(b)}
	hits := make([]ragd.Hit, 0, max(room, 0))
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != replyResults || typ != protowire.BytesType {
			return nil
		}
		h, err := r.readResult(v, namespace, vectorMode)
		hits = append(hits, h)
		return err
	})
	return hits, err
}

// readResult reads one SearchResult.
func (r *replyReader) readResult(b []byte, namespace string, vectorMode bool) (ragd.Hit, error) {
	h := ragd.Hit{Chunk: ragd.Chunk{Namespace: namespace}}
	var distance, score float32
	var hasDistance, hasScore bool
	var access []string
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch {
		case typ != protowire.BytesType:
			return nil
		case num == resultProperties:
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num != propertiesNonRef || typ != protowire.BytesType {
					return nil
				}
				return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
					if num != propertiesFields || typ != protowire.BytesType {
						return nil
					}
					return r.readProperty(v, &h.Chunk, &access)
				})
			})
		case num == resultMetadata:
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
				switch num {
				case metaID:
					h.ID = r.str(v)
				case metaDistance:
					distance = math.Float32frombits(uint32(x))
				case metaDistancePresent:
					hasDistance = x != 0
				case metaScore:
					score = math.Float32frombits(uint32(x))
				case metaScorePresent:
					hasScore = x != 0
				case metaVectorBytes:
					if len(v) > 0 {
						h.Vector = byteops.Fp32SliceFromBytes(v)
					}
				}
				return nil
			})
		}
		return nil
	})
	h.Access = ragd.LoadedAccess(access)
	if !hasDistance {
		distance = 0
	}
	if !hasScore {
		score = 0
	}
	if vectorMode {
		h.Score = 1 - float64(distance)
	} else {
		h.Score = float64(score)
	}
	return h, err
}

// readProperty reads one map entry of a result's properties into c.
func (r *replyReader) readProperty(b []byte, c *ragd.Chunk, access *[]string) error {
	var key string
	var val value
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			key = r.str(v)
		case 2:
			return r.readValue(v, &val)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch key {
	case propText:
		c.Text = val.text
	case propDocumentID:
		c.DocumentID = val.text
	case propSource:
		c.Source = val.text
	case propSourceType:
		c.SourceType = ragd.SourceType(val.text)
	case propContentHash:
		c.ContentHash = val.text
	case propPath:
		c.Path = val.text
	case propSummary:
		c.Summary = val.text
	case propChunkIndex:
		c.Index = val.int()
	case propLevel:
		c.Level = val.int()
	case propPage:
		c.Page = val.int()
	case propOCR:
		c.OCR = val.kind == valueBool && val.b
	case propTimestamp:
		if ts, err := time.Parse(time.RFC3339Nano, val.text); err == nil {
			c.Timestamp = ts
		}
	case propTags:
		c.Tags = val.list
	case propAccess:
		*access = val.list
	}
	return nil
}

// value is a Value of the kinds ragd's properties have.
type value struct {
	kind int
	text string // text, date
	i    int64
	f    float64
	b    bool
	list []string // a text list
}

// int is the value as an int, as the client's path read int and number
// values; 0 for any other kind.
func (v value) int() int {
	switch v.kind {
	case valueInt:
		return int(v.i)
	case valueNumber:
		return int(v.f)
	}
	return 0
}

func (r *replyReader) readValue(b []byte, val *value) error {
	return eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch {
		case num == valueText && typ == protowire.BytesType, num == valueDate && typ == protowire.BytesType:
			val.kind, val.text = int(num), r.str(v)
		case num == valueInt && typ == protowire.VarintType:
			val.kind, val.i = valueInt, int64(x)
		case num == valueNumber && typ == protowire.Fixed64Type:
			val.kind, val.f = valueNumber, math.Float64frombits(x)
		case num == valueBool && typ == protowire.VarintType:
			val.kind, val.b = valueBool, x != 0
		case num == valueList && typ == protowire.BytesType:
			val.kind, val.list = valueList, nil
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num != listTextValues || typ != protowire.BytesType {
					return nil
				}
				return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
					if num == 1 && typ == protowire.BytesType {
						val.list = append(val.list, r.str(v))
					}
					return nil
				})
			})
		}
		return nil
	})
}

// eachField calls f with each field of the message b: its number, wire
// type and value (the bytes of a length-delimited field, the number of a
// varint or fixed one). Groups are skipped.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x32 uint32
			x32, n = protowire.ConsumeFixed32(b)
			x = uint64(x32)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		if typ == protowire.StartGroupType {
			continue
		}
		if err := f(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}
