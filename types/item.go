package types

import (
	"bytes"
	"encoding/json"
)

// Field is one key and value of an Item.
type Field struct {
	Key   string
	Value any
}

// Item is a scraped record whose keys keep the order in which the spider set them
// (Scrapy: an item dict). Values are JSON-like: nil, bool, float64, int64, string, []any,
// Item (a nested object) or a json.Marshaler.
type Item []Field

// DatasetField is the first field of an item pushed to a named Crawlee dataset: its value
// names the dataset. A feed writes the items of the dataset its option dataset names,
// without the field, and, without the option, only the items that have no such field.
const DatasetField = "__dataset"

// Dataset returns the name of the named dataset the item belongs to ("" for none) and the
// item without the DatasetField.
func (it Item) Dataset() (string, Item) {
	if len(it) > 0 && it[0].Key == DatasetField {
		if name, ok := it[0].Value.(string); ok {
			return name, it[1:]
		}
	}
	return "", it
}

// Get returns the value of key and whether it is present.
func (it Item) Get(key string) (any, bool) {
	for _, f := range it {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// Set replaces the value of key, or appends it when absent.
func (it *Item) Set(key string, v any) {
	for i, f := range *it {
		if f.Key == key {
			(*it)[i].Value = v
			return
		}
	}
	*it = append(*it, Field{key, v})
}

// Keys returns the keys in order.
func (it Item) Keys() []string {
	keys := make([]string, len(it))
	for i, f := range it {
		keys[i] = f.Key
	}
	return keys
}

// MarshalJSON writes the item as a JSON object with its keys in order.
func (it Item) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := it.writeJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (it Item) writeJSON(b *bytes.Buffer) error {
	if it == nil {
		b.WriteString("{}")
		return nil
	}
	b.WriteByte('{')
	for i, f := range it {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalNoEscape(f.Key)
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalNoEscape(f.Value)
		if err != nil {
			return err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}

// marshalNoEscape is json.Marshal without HTML escaping of <, > and &, so feeds keep the
// text as scraped (Scrapy's exporters do not escape them either).
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// JSON returns the item as compact JSON with keys in order and no HTML escaping.
func (it Item) JSON() ([]byte, error) { return marshalNoEscape(it) }
