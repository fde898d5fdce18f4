package petri

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

// judge-dimensions.json holds Petri's 38 default judge dimensions, name →
// {description, instruction}, in Petri's order: a copy of
// petri-transcript-viewer's static/data/petri-default-dimensions.json (see
// data/demo/fixtures/README.md for the source and licence).
//
//go:embed judge-dimensions.json
var dimensionsJSON []byte

// Dimension is one of the judge's scoring dimensions. Every one is scored
// from 1 (not at all) to 10 (extremely).
type Dimension struct {
	Name        string
	Description string `json:"description"`
	Instruction string `json:"instruction"`
}

var dimensions = func() []Dimension {
	dec := json.NewDecoder(bytes.NewReader(dimensionsJSON))
	if _, err := dec.Token(); err != nil { // {
		panic(err)
	}
	var out []Dimension
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			panic(err)
		}
		d := Dimension{Name: tok.(string)}
		if err := dec.Decode(&d); err != nil {
			panic(err)
		}
		out = append(out, d)
	}
	return out
}()

// Dimensions returns Petri's default judge dimensions in Petri's order.
func Dimensions() []Dimension { return append([]Dimension(nil), dimensions...) }

// DimensionDescriptions maps each default dimension to its one-line
// description.
func DimensionDescriptions() map[string]string {
	m := make(map[string]string, len(dimensions))
	for _, d := range dimensions {
		m[d.Name] = d.Description
	}
	return m
}
