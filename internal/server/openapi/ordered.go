package openapi

import (
	"bytes"
	"encoding/json"
)

// ordered is a JSON object that keeps insertion order, which a Go map
// would lose: UIs show properties and paths in document order.
type ordered[V any] struct {
	keys   []string
	values []V
}

func (o *ordered[V]) set(key string, v V) {
	o.keys = append(o.keys, key)
	o.values = append(o.values, v)
}

func (o *ordered[V]) get(key string) (V, bool) {
	for i, k := range o.keys {
		if k == key {
			return o.values[i], true
		}
	}
	var zero V
	return zero, false
}

// MarshalJSON writes the members in insertion order.
func (o *ordered[V]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, key := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		v, err := marshalJSON(o.values[i])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
