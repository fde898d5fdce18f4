package data

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// badInputCase is one of TestBadInput's hostile or broken inputs: the
// import must fail with an error that mentions every string of want.
type badInputCase struct {
	name string
	// input writes the file or folder to import under d and returns
	// its path.
	input func(t *testing.T, d string) string
	want  []string
}

// badInputCases are TestBadInput's inputs, made from the good inputs in
// (outside is a file outside every bundle), in the order they run. They
// are grouped by topic into functions of their own, so that each list
// stays short enough to read.
func badInputCases(in goodInputs, outside string) []badInputCase {
	return slices.Concat(badEncodingCases(in), badStructureCases(in), badPathCases(in, outside))
}

// badEncodingCases are the inputs cut short, of the wrong JSON types or
// not valid UTF-8.
func badEncodingCases(in goodInputs) []badInputCase {
	return []badInputCase{
		// Truncated files.
		{"truncated AnnotatedPairs", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", in.ap[:len(in.ap)/2])
		}, []string{"$PATH:", "truncated"}},
		{"truncated bundle JSONL", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte { return bytes.TrimRight(b, "\n")[:len(b)-40] })
		}, []string{"$PATH/audits.jsonl:4", "truncated"}},
		{"truncated Petri transcript", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", in.petri[:len(in.petri)/2])
		}, []string{"$PATH:", "truncated"}},
		{"truncated Inspect json", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.json", in.inspectJSON[:len(in.inspectJSON)/2])
		}, []string{"$PATH:", "samples[0]", "truncated"}},
		{"truncated Inspect eval", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.eval", in.inspectEval[:len(in.inspectEval)/2])
		}, []string{"$PATH", "not a readable .eval (zip) file"}},
		{"truncated bundle zip", func(t *testing.T, d string) string {
			p := writeZipFile(t, filepath.Join(d, "b.zip"), bundleFiles(t, "small/"))
			b, _ := os.ReadFile(p)
			return writeInput(t, d, "b.zip", b[:len(b)-30])
		}, []string{"$PATH", "not a readable zip file"}},

		// Wrong JSON types.
		{"AnnotatedPairs prompt is a number", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", replaceOnce(t, in.ap, `"prompt": "Write`, `"prompt": 42, "x": "Write`))
		}, []string{"$PATH:", "comparisons[0].prompt", "want a string"}},
		{"AnnotatedPairs comparisons twice", func(t *testing.T, d string) string {
			c := `{"id": "c%d", "prompt": "p", "response_a": {"text": "a"}, "response_b": {"text": "b"}, "annotations": {}}`
			return writeInput(t, d, "ap.json", []byte(`{"metadata": {"version": "2.0"},
 "comparisons": [`+fmt.Sprintf(c, 1)+`],
 "comparisons": [`+fmt.Sprintf(c, 2)+`]}`))
		}, []string{"$PATH:3", "comparisons", "appears twice at the top level"}},
		{"AnnotatedPairs comparisons is an object", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", []byte(`{"metadata": {"version": "2.0"}, "comparisons": {"id": 1}}`))
		}, []string{"$PATH:1", "comparisons", "want an array, found an object"}},
		{"bundle field is a string", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "runs.jsonl", func(b []byte) []byte {
				return replaceOnce(t, b, `"calibration_fraction": 0.5`, `"calibration_fraction": "half"`)
			})
		}, []string{"$PATH/runs.jsonl:1", "calibration_fraction"}},
		{"Petri content is a number", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", replaceOnce(t, in.petri, `"content": "You are`, `"content": 5, "x": "You are`))
		}, []string{"$PATH:", "events[0].edit.message.content", "want a string or a list of parts"}},
		{"Inspect epoch is a string", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.json", replaceOnce(t, in.inspectJSON, `"epoch": 1,`, `"epoch": "one",`))
		}, []string{"$PATH:", "samples[0]", "epoch"}},

		// Invalid UTF-8.
		{"AnnotatedPairs invalid UTF-8", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", replaceOnce(t, in.ap, "Write a short", "Write \xff short"))
		}, []string{"$PATH:", "comparisons[0].prompt", "invalid UTF-8"}},
		{"CSV invalid UTF-8 in a field", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.csv", replaceOnce(t, in.csv, "a sleek black cat", "a sleek \xff cat"))
		}, []string{"$PATH:2", "text_a", "not valid UTF-8"}},
		{"CSV invalid UTF-8 in the header", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.csv", replaceOnce(t, in.csv, "model_a", "model_\xe9"))
		}, []string{"$PATH:1", "not valid UTF-8"}},
		{"bundle JSONL invalid UTF-8", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte {
				return replaceOnce(t, b, "Found the pro-Russia tilt", "Found the \xc3\x28 tilt")
			})
		}, []string{"$PATH/audits.jsonl:1", "not valid UTF-8"}},
		{"bundle transcript file invalid UTF-8", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "transcripts/a2.json", func(b []byte) []byte {
				return replaceOnce(t, b, `"content": "`, "\"content\": \"\xfe")
			})
		}, []string{"$PATH/audits.jsonl:2", "transcript_path", "not valid UTF-8"}},
		{"Petri invalid UTF-8", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", replaceOnce(t, in.petri, "alignment auditor", "alignment \xed\xa0\x80 auditor"))
		}, []string{"$PATH:95", "not valid UTF-8"}},
		{"Inspect json invalid UTF-8", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.json", replaceOnce(t, in.inspectJSON, "Please note", "Please \xff note"))
		}, []string{"$PATH:40: plan: not valid UTF-8"}},
		{"Inspect eval invalid UTF-8", func(t *testing.T, d string) string {
			m := evalFiles(t, in.inspectEval)
			m["samples/1_epoch_1.json"] = replaceOnce(t, m["samples/1_epoch_1.json"], `"role"`, "\"r\xffle\": 1, \"role\"")
			return writeZipFile(t, filepath.Join(d, "log.eval"), m)
		}, []string{"$PATH: samples/1_epoch_1.json", "not valid UTF-8"}},
	}
}

// badStructureCases are the inputs nested too deep, with duplicate ids
// or with zip members that lie or escape.
func badStructureCases(in goodInputs) []badInputCase {
	return []badInputCase{
		// Nesting: encoding/json and jsontext stop at 10,000 levels.
		{"AnnotatedPairs 10,000-deep", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", replaceOnce(t, in.ap, `"prompt":`, `"metadata": {"x": `+deep(10000)+`}, "prompt":`))
		}, []string{"$PATH:34", "comparisons[0]", "exceeded max depth"}},
		{"AnnotatedPairs 100,000-deep", func(t *testing.T, d string) string {
			return writeInput(t, d, "ap.json", replaceOnce(t, in.ap, `"comparisons":`, `"x": `+deep(100000)+`, "comparisons":`))
		}, []string{"$PATH:", "x[0][0]", "exceeded max depth"}},
		{"bundle 10,000-deep", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte {
				return replaceOnce(t, b, `"labels": {`, `"labels": {"x": `+deep(10000)+`, `)
			})
		}, []string{"$PATH/audits.jsonl:1", "exceeded max depth"}},
		{"bundle 100,000-deep", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "runs.jsonl", func(b []byte) []byte { return []byte(deep(100000)) })
		}, []string{"$PATH/runs.jsonl:1", "exceeded max depth"}},
		{"Petri 10,000-deep", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", replaceOnce(t, in.petri, `"metadata": {`, `"metadata": {"x": `+deep(10000)+`, `))
		}, []string{"$PATH:", "exceeded max depth"}},
		{"Petri 100,000-deep", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", replaceOnce(t, in.petri, `"events": [`, `"events": [`+deep(100000)+`, `))
		}, []string{"$PATH:", "exceeded max depth"}},
		{"Inspect 100,000-deep", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.json", replaceOnce(t, in.inspectJSON, `"messages": [`, `"messages": [`+deep(100000)+`, `))
		}, []string{"$PATH:", "samples[0]", "exceeded max depth"}},

		// Duplicate ids: a bundle is an error (AnnotatedPairs keeps the
		// first, see TestBadInputAccepted).
		{"bundle duplicate audit id", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte { return replaceOnce(t, b, `"id": "a3"`, `"id": "a1"`) })
		}, []string{"$PATH/audits.jsonl:3", `duplicate audit id "a1"`}},
		{"two Petri transcripts with one id", func(t *testing.T, d string) string {
			// Not byte for byte the same (a copy is read once): the same id
			// in two different files.
			writeInput(t, d, "logs/one.json", in.petri)
			writeInput(t, d, "logs/two.json", append(slices.Clone(in.petri), '\n'))
			return filepath.Join(d, "logs")
		}, []string{"$PATH/two.json", "used twice", "one.json"}},

		// Zip members.
		{"bundle zip member ../../x", func(t *testing.T, d string) string {
			return writeZipFile(t, filepath.Join(d, "b.zip"), bundleFiles(t, "small/"), rawMember{name: "../../x", body: []byte("boom")})
		}, []string{"$PATH:../../x", "unsafe name"}},
		{"Inspect eval member ../../x", func(t *testing.T, d string) string {
			return writeZipFile(t, filepath.Join(d, "log.eval"), evalFiles(t, in.inspectEval), rawMember{name: "../../x", body: []byte("boom")})
		}, []string{"$PATH: ../../x", "unsafe name"}},
		{"bundle zip member claiming 10 GB", func(t *testing.T, d string) string {
			return writeZipFile(t, filepath.Join(d, "b.zip"), bundleFiles(t, "small/"), rawMember{name: "small/transcripts/big.json", body: []byte("{}"), size: 10 << 30})
		}, []string{"$PATH:small/transcripts/big.json", "10737418240 bytes"}},
		{"Inspect eval member claiming 10 GB", func(t *testing.T, d string) string {
			return writeZipFile(t, filepath.Join(d, "log.eval"), evalFiles(t, in.inspectEval), rawMember{name: "samples/9_epoch_1.json", body: []byte("{}"), size: 10 << 30})
		}, []string{"$PATH: samples/9_epoch_1.json", "10737418240 bytes"}},
		{"bundle zip member longer than it claims", func(t *testing.T, d string) string {
			files := bundleFiles(t, "small/")
			body := files["small/transcripts/a2.json"]
			delete(files, "small/transcripts/a2.json")
			return writeZipFile(t, filepath.Join(d, "b.zip"), files, rawMember{name: "small/transcripts/a2.json", body: body, size: 100})
		}, []string{"$PATH/audits.jsonl:2", "transcript_path", "transcripts/a2.json: corrupt zip member, or larger than its header claims"}},
	}
}

// badPathCases are the inputs whose transcript_path leaves the bundle,
// the empty files and folders, the files that are not what their
// extension says and the long values an error must not echo whole.
func badPathCases(in goodInputs, outside string) []badInputCase {
	return []badInputCase{
		// transcript_path leaving the bundle.
		{"transcript_path ../", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte {
				return replaceOnce(t, b, `"transcript_path": "transcripts/a2.json"`, `"transcript_path": "../outside.json"`)
			})
		}, []string{"$PATH/audits.jsonl:2", "transcript_path", "leaves the bundle"}},
		{"transcript_path absolute", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte {
				return replaceOnce(t, b, `"transcript_path": "transcripts/a2.json"`, `"transcript_path": "`+filepath.ToSlash(outside)+`"`)
			})
		}, []string{"$PATH/audits.jsonl:2", "transcript_path", "leaves the bundle"}},
		{"transcript_path through a symlink out of the bundle", func(t *testing.T, d string) string {
			root := bundleWith(t, d, "b", "transcripts/a2.json", func(b []byte) []byte { return b })
			link := filepath.Join(root, "transcripts", "a2.json")
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Skipf("no symlinks here: %v", err)
			}
			return root
		}, []string{"$PATH/audits.jsonl:2", "transcript_path", "escapes"}},
		{"transcript_path ../ in a zip", func(t *testing.T, d string) string {
			files := bundleFiles(t, "")
			files["audits.jsonl"] = replaceOnce(t, files["audits.jsonl"], `"transcript_path": "transcripts/a2.json"`, `"transcript_path": "../x.json"`)
			return writeZipFile(t, filepath.Join(d, "b.zip"), files)
		}, []string{"$PATH/audits.jsonl:2", "transcript_path", "leaves the bundle"}},

		// Empty files and folders.
		{"empty .json", func(t *testing.T, d string) string { return writeInput(t, d, "e.json", nil) }, []string{"$PATH", "empty"}},
		{"empty .csv", func(t *testing.T, d string) string { return writeInput(t, d, "e.csv", nil) }, []string{"$PATH", "empty"}},
		{"empty .eval", func(t *testing.T, d string) string { return writeInput(t, d, "e.eval", nil) }, []string{"$PATH", "empty"}},
		{"empty .zip", func(t *testing.T, d string) string { return writeInput(t, d, "e.zip", nil) }, []string{"$PATH", "empty"}},
		{"empty folder", func(t *testing.T, d string) string {
			p := filepath.Join(d, "nothing")
			os.Mkdir(p, 0o755)
			return p
		}, []string{"$PATH", "no experiment.json"}},
		{"empty experiment.json", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "experiment.json", func([]byte) []byte { return nil })
		}, []string{"$PATH/experiment.json", "empty"}},
		{"empty Petri transcript in a folder", func(t *testing.T, d string) string {
			writeInput(t, d, "logs/a.json", in.petri)
			writeInput(t, d, "logs/b.json", nil)
			return filepath.Join(d, "logs")
		}, []string{"$PATH/b.json", "empty"}},

		// Files that are not what their extension says.
		{"PNG named .json", func(t *testing.T, d string) string {
			return writeInput(t, d, "image.json", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))
		}, []string{"$PATH:1", "invalid JSON"}},
		{"zip named .csv", func(t *testing.T, d string) string {
			return writeInput(t, d, "data.csv", in.inspectEval)
		}, []string{"$PATH:1", "not a UTF-8 CSV"}},
		{"JSON named .eval", func(t *testing.T, d string) string {
			return writeInput(t, d, "log.eval", in.inspectJSON)
		}, []string{"$PATH", "not a readable .eval (zip) file"}},
		{"CSV named .zip", func(t *testing.T, d string) string {
			return writeInput(t, d, "bundle.zip", in.csv)
		}, []string{"$PATH", "not a readable zip file"}},
		{"CSV named .json", func(t *testing.T, d string) string {
			return writeInput(t, d, "data.json", in.csv)
		}, []string{"$PATH:1", "invalid JSON"}},

		// Long values are not echoed back whole.
		{"bundle value of 1 MB in an error", func(t *testing.T, d string) string {
			return bundleWith(t, d, "b", "audits.jsonl", func(b []byte) []byte {
				return replaceOnce(t, b, `"eval": "audit_quality"`, `"eval": "`+strings.Repeat("x", 1<<20)+`"`)
			})
		}, []string{"$PATH/audits.jsonl:1", "unknown eval", "xxx…"}},
		{"Petri role of 1 MB in an error", func(t *testing.T, d string) string {
			return writeInput(t, d, "p.json", replaceOnce(t, in.petri, `"role": "system"`, `"role": "`+strings.Repeat("x", 1<<20)+`"`))
		}, []string{"$PATH", "events[0].edit.message.role", "xxx…"}},
	}
}
