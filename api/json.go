package api

import (
	"bytes"
	"encoding/json"

	"strconv"
	"sync"

	"github.com/labstack/echo/v4"
)

// jsonSerializer writes a JSON answer in one write with its length, where
// Echo's default encodes straight into the response: an answer larger
// than the response's 4 KiB buffer (a search's five chunks are 5–8 KiB)
// then goes out chunked in several writes, a system call each. The bytes
// are the same (json.Encoder, a newline after the value).
type jsonSerializer struct {
	echo.DefaultJSONSerializer // Deserialize
}

// answerBuffers are reused across answers; one grown past maxPooled is
// dropped so that a rare huge answer does not stay in memory.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 1 << 20

// Serialize implements echo.JSONSerializer.
func (jsonSerializer) Serialize(c echo.Context, v any, indent string) error {
	buf := answerBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooled {
			buf.Reset()
			answerBuffers.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	r := c.Response()
	if !r.Committed {
		r.Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	}
	_, err := r.Write(buf.Bytes())
	return err
}

var _ echo.JSONSerializer = jsonSerializer{}
