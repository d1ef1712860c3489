package pdftext

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"ragd/internal/ingest/document"
)

// lzwName is how a stream names the LZWDecode filter. Stream dictionaries
// are never inside object streams, so a file that uses the filter spells
// the name out.
var lzwName = []byte("/" + filter.LZW)

// readablePDF is data with its LZWDecode streams re-encoded with
// FlateDecode, or data itself when it has none or cannot be rewritten.
//
// ledongthuc/pdf, which reads the text, refuses LZWDecode (its filter
// switch panics "unknown filter": Go's compress/lzw lacks the EarlyChange
// that PDF's LZW uses by default), while pdfcpu implements the filter in
// full. So pdfcpu decodes those streams (images aside: the text side
// never reads them and pdfcpu's image extraction decodes them itself),
// each within decodeBudget bytes, and writes the file anew. It runs in the
// parse sandbox like the rest of the parse.
func readablePDF(data []byte, decodeBudget int64) []byte {
	if !bytes.Contains(data, lzwName) {
		return data
	}
	out, err := recodeLZW(data, decodeBudget)
	if err != nil {
		return data // the text parse then says which filter it cannot read
	}
	return out
}

func recodeLZW(data []byte, decodeBudget int64) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("pdfcpu: %s", document.PanicText(r))
		}
	}()
	ctx, err := api.ReadContext(bytes.NewReader(data), pdfcpuConfig())
	if err != nil {
		return nil, err
	}
	for _, e := range ctx.Table {
		if e == nil {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if !ok || !usesLZW(sd) || sd.Image() {
			continue
		}
		raw, ok := deflated(sd, decodeBudget)
		if !ok {
			continue // left as it was: a predictor pdfcpu's LZW lacks, say
		}
		sd.Raw, sd.Content = raw, nil
		sd.FilterPipeline = []types.PDFFilter{{Name: filter.Flate}}
		sd.Update("Filter", types.Name(filter.Flate))
		sd.Delete("DecodeParms")
		n := int64(len(raw))
		sd.StreamLength, sd.StreamLengthObjNr = &n, nil
		sd.Update("Length", types.Integer(len(raw)))
		e.Object = sd
	}
	var b bytes.Buffer
	if err := api.WriteContext(ctx, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// deflated is the stream's content decoded (within budget bytes) and
// encoded with FlateDecode.
func deflated(sd types.StreamDict, budget int64) ([]byte, bool) {
	if sd.DecodeWithLimit(budget) != nil {
		return nil, false
	}
	f, err := filter.NewFilter(filter.Flate, nil)
	if err != nil {
		return nil, false
	}
	r, err := f.Encode(bytes.NewReader(sd.Content))
	if err != nil {
		return nil, false
	}
	raw, err := io.ReadAll(r)
	return raw, err == nil
}

func usesLZW(sd types.StreamDict) bool {
	for _, f := range sd.FilterPipeline {
		if f.Name == filter.LZW {
			return true
		}
	}
	return false
}
