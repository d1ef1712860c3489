package api

import (
	"bytes"
	"encoding/json"

	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
	fastjson "github.com/segmentio/encoding/json"
)

// jsonSerializer writes a JSON answer with its length, where Echo's
// default encodes straight into the response: an answer larger than the
// response's 2 KiB buffer (a search's five chunks are 5–8 KiB) then goes
// out chunked in several writes, a system call each. On a heldConn the
// answer leaves in one write (writeHeld). The bytes
// are json.Encoder's (HTML escaped, a newline after the value), written
// by segmentio's encoder, which makes them in a third of the time: a
// search answer's encoding was a quarter of its handler's CPU.
type jsonSerializer struct {
	echo.DefaultJSONSerializer // Deserialize
}

// answerBuffers are reused across answers; one grown past maxPooled is
// dropped so that a rare huge answer does not stay in memory.
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 1 << 20

// Serialize implements echo.JSONSerializer.
func (jsonSerializer) Serialize(c echo.Context, v any, indent string) error {
	buf := answerBuffers.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= maxPooled {
			answerBuffers.Put(buf)
		}
	}()
	out, err := encodeAnswer((*buf)[:0], v, indent)
	*buf = out
	if err != nil {
		return err
	}
	r := c.Response()
	if !r.Committed {
		r.Header().Set(echo.HeaderContentLength, strconv.Itoa(len(out)))
	}
	return writeHeld(c.Request(), r, out)
}

// encodeAnswer appends v as json.Encoder writes it (indented, when asked,
// by encoding/json itself: only people ask, with ?pretty).
func encodeAnswer(dst []byte, v any, indent string) ([]byte, error) {
	if indent != "" {
		b := bytes.NewBuffer(dst)
		enc := json.NewEncoder(b)
		enc.SetIndent("", indent)
		err := enc.Encode(v)
		return b.Bytes(), err
	}
	out, err := fastjson.Append(dst, v, fastjson.EscapeHTML|fastjson.SortMapKeys)
	if err != nil {
		return dst, err
	}
	return append(out, '\n'), nil
}

var _ echo.JSONSerializer = jsonSerializer{}
