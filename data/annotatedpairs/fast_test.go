package annotatedpairs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// fastAgrees decodes raw the fast way (with f, which a worker reuses
// from comparison to comparison) and the full way. Where the fast way
// answers, the full way must give the same row and no error.
func fastAgrees(f *fastDecoder, raw []byte, v2, haveMeta bool) (fast bool, err error) {
	got, ok := f.row(raw, v2, haveMeta)
	if !ok {
		return false, nil
	}
	want, err := fullRow(raw, v2, haveMeta)
	if err != nil {
		return true, fmt.Errorf("fast decode took %s, the full decoder refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		return true, fmt.Errorf("fast and full decoders differ on %s:\nfast %+v\nfull %+v", raw, got, want)
	}
	return true, nil
}

// comparisonsOf splits an AnnotatedPairs file into its comparisons as
// the import's reader does, with the file's version.
func comparisonsOf(t testing.TB, b []byte) (raws [][]byte, v2, haveMeta bool) {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil {
		t.Fatal(err)
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		switch tok.String() {
		case "metadata":
			var m struct {
				Version string `json:"version"`
			}
			v, err := dec.ReadValue()
			if err != nil {
				t.Fatal(err)
			}
			if err := jsonv2.Unmarshal(v, &m); err != nil {
				t.Fatal(err)
			}
			v2, haveMeta = len(m.Version) > 0 && m.Version[0] == '2', true
		case "comparisons":
			dec.ReadToken()
			for dec.PeekKind() != ']' {
				v, err := dec.ReadValue()
				if err != nil {
					t.Fatal(err)
				}
				raws = append(raws, bytes.Clone(v))
			}
			dec.ReadToken()
		default:
			dec.SkipValue()
		}
	}
	return raws, v2, haveMeta
}

// TestAPFastMatches checks the fast decoder against the full one on the
// fixtures (which it must take whole) and on comparisons of every odd
// shape (which it must either get right or leave to the full decoder).
func TestAPFastMatches(t *testing.T) {
	for _, name := range []string{"icai-example-v2-models.json", "icai-example-v2-40-principles.json"} {
		b, err := os.ReadFile(filepath.Join("..", "demo", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		raws, v2, haveMeta := comparisonsOf(t, b)
		if len(raws) == 0 {
			t.Fatalf("%s: no comparisons", name)
		}
		var f fastDecoder
		for i, raw := range raws {
			fast, err := fastAgrees(&f, raw, v2, haveMeta)
			if err != nil {
				t.Fatalf("%s comparisons[%d]: %v", name, i, err)
			}
			if !fast {
				t.Errorf("%s comparisons[%d] took the slow way: %s", name, i, raw)
			}
		}
	}
	cases := []struct {
		raw          string
		v2, haveMeta bool
		fast         bool // the fast decoder answers
	}{
		{`{"id":"c1","prompt":"p","response_a":{"text":"a","model":"m"},"response_b":{"model":"n","text":"b"},"annotations":{"z":{"pref":"a"},"h":{"pref":"b","no_pref_reason":null}},"metadata":{"k":"v","n":1,"o":{"x":[1, 2]}}}`, true, true, true},
		{` { "id" : 7 , "text_a" : "A\n\u00e9" , "text_b" : "B" , "annotations" : { "h" : { "pref" : "text_a" } } , "metadata" : { "k" : "v" } } `, false, true, true},
		{`{"id":-1.5e3,"text_a":"A","text_b":"B","annotations":{"h":{"pref":null,"no_pref_reason":"tie"}}}`, false, true, true},
		{`{"id":"x","text_a":"A","text_b":"B","annotations":null,"metadata":null,"prompt":null,"other":{"deep":[1,{"a":2}]}}`, false, true, true},
		{`{"id":"x","response_a":{"text":null},"response_b":{"text":"b","model":null},"annotations":{}}`, true, true, true},
		{`{"id":"x","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"a"}}}`, false, false, true}, // 2.0 by its responses
		{`{"id":"\u0063\"1","response_a":{"text":"a\\b"},"response_b":{"text":"b"},"annotations":{"\u0068":{"pref":"\u0061"}}}`, true, true, true},
		// Left to the full decoder, which reports or reads them.
		{`{"id":"x","id":"y","text_a":"A","text_b":"B"}`, false, true, false},
		{`{"\u0069d":"x","text_a":"A","text_b":"B"}`, false, true, false},
		{`{"id":"x","pr\u006fmpt":"p","text_a":"A","text_b":"B"}`, false, true, false},
		{`{"id":"x","response_a":{"text":"a","extra":1},"response_b":{"text":"b"}}`, true, true, false},
		{`{"id":"x","response_a":{"text":"a"},"response_b":{"text":"b"},"text_a":5}`, true, true, false},
		{`{"id":"x","response_a":null,"response_b":{"text":"b"}}`, true, true, false},
		{`{"id":"x","text_a":"A","text_b":"B","annotations":{"h":{"no_pref_reason":"r"},"h":{"pref":"text_a"}}}`, false, true, false},
		{`{"id":"x","text_a":"A","text_b":"B","annotations":{"h":{"pref":"text_a"},"h":{"pref":"text_b"}}}`, false, true, false},
		{`{"id":"x","text_a":"A","text_b":"B","annotations":{"h":{"pref":1}}}`, false, true, false},
		{`{"id":"x","text_a":"A","text_b":"B","annotations":{"h":{"pref":"a","weight":1}}}`, false, true, false},
		{`{"id":"x","text_a":"A","text_b":"B","annotations":{"h":null}}`, false, true, false},
		{`{"id":"x","text_a":"A","text_b":"B","metadata":[1]}`, false, true, false},
		{`{"id":"x","text_a":"A"}`, false, true, false},
		{`{"id":true,"text_a":"A","text_b":"B"}`, false, true, false},
		{`{"text_a":"A","text_b":"B"}`, false, true, false},
		{`{"id":"x","response_a":{"text":"a"},"response_b":{"text":"b"}}`, false, true, false},
		{`[1]`, false, true, false},
	}
	// One decoder for every case, as a worker has, through comparisons it
	// gave up on half way; and a fresh one for each.
	var shared fastDecoder
	for i, c := range cases {
		if i%5 == 4 {
			shared.release() // as at the end of a batch
		}
		for _, f := range []*fastDecoder{&shared, new(fastDecoder)} {
			fast, err := fastAgrees(f, []byte(c.raw), c.v2, c.haveMeta)
			if err != nil {
				t.Error(err)
			}
			if fast != c.fast {
				t.Errorf("fast decoder answered %v, want %v, for %s", fast, c.fast, c.raw)
			}
		}
	}
	// Once more through the shared decoder: its name cache is warm.
	for _, c := range cases {
		fast, err := fastAgrees(&shared, []byte(c.raw), c.v2, c.haveMeta)
		if err != nil {
			t.Error(err)
		}
		if fast != c.fast {
			t.Errorf("fast decoder answered %v, want %v, for %s", fast, c.fast, c.raw)
		}
	}
}

// FuzzAPFast: wherever the fast decoder answers, it answers as the full one.
func FuzzAPFast(f *testing.F) {
	f.Add([]byte(`{"id":"c1","prompt":"p","response_a":{"text":"a","model":"m"},"response_b":{"text":"b"},"annotations":{"z":{"pref":"a"},"h":{"pref":"b"}},"metadata":{"k":"v"}}`), true, true)
	f.Add([]byte(`{"id":7,"text_a":"A","text_b":"B","annotations":{"h":{"pref":null,"no_pref_reason":"tie"}},"metadata":{"k":[1]}}`), false, true)
	f.Add([]byte(`{"id":"x","response_a":{"text":"a"},"response_b":{"text":"b"},"annotations":{"h":{"pref":"a"}}}`), false, false)
	var shared fastDecoder // as a worker's, across inputs
	f.Fuzz(func(t *testing.T, raw []byte, v2, haveMeta bool) {
		// The reader hands on only valid values.
		if !jsontext.Value(raw).IsValid(jsontext.AllowDuplicateNames(true)) {
			return
		}
		if _, err := fastAgrees(&shared, raw, v2, haveMeta); err != nil {
			t.Fatal(err)
		}
		if _, err := fastAgrees(new(fastDecoder), raw, v2, haveMeta); err != nil {
			t.Fatal(err)
		}
	})
}
