// Package labels reads people's labels of audits, each rater a judge: a
// CSV with the columns audit, dimension, value and rater (in any order,
// others ignored), or JSON Lines of objects with those keys. A label is a
// score of one audit on one dimension, on the dimension's own scale (1–10
// for Petri's dimensions, 0/1 for a yes-or-no one).
package labels

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/auditscope/auditscope/data/internal/jsonin"
	"github.com/auditscope/auditscope/data/model"
)

// Label is one rater's score of one audit on one dimension; Line is where
// it was read (1-based).
type Label struct {
	Audit, Dimension, Rater string
	Value                   float64
	Line                    int
}

// Columns are the columns (or keys) a label needs.
var Columns = []string{"audit", "dimension", "value", "rater"}

// maxLabels bounds the labels of one file: people label thousands of
// audits, not millions.
const maxLabels = 1_000_000

// Read reads labels from r; file names it in errors. A .jsonl or .ndjson
// file is JSON Lines, anything else CSV. Every error is a
// *model.InputError with the file and line.
func Read(r io.Reader, file string) ([]Label, error) {
	if strings.HasSuffix(file, ".jsonl") || strings.HasSuffix(file, ".ndjson") {
		return readJSONL(r, file)
	}
	return readCSV(r, file)
}

func readCSV(r io.Reader, file string) ([]Label, error) {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); bytes.Equal(b, jsonin.BOM) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &model.InputError{File: file, Line: 1, Offset: -1, Msg: "empty: want a header of " + strings.Join(Columns, ", ")}
		}
		return nil, csvErr(file, err)
	}
	at := map[string]int{}
	for i, h := range head {
		at[strings.ToLower(strings.TrimSpace(h))] = i
	}
	var missing []string
	for _, c := range Columns {
		if _, ok := at[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, &model.InputError{File: file, Line: 1, Offset: -1,
			Msg: fmt.Sprintf("the header has no %s column (it needs %s; it has %s)", strings.Join(missing, ", "), strings.Join(Columns, ", "), strings.Join(head, ", "))}
	}
	var out []Label
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string {
			if i := at[c]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		l, err := label(get("audit"), get("dimension"), get("rater"), get("value"), line)
		if err != nil {
			return nil, &model.InputError{File: file, Line: line, Offset: -1, Msg: err.Error()}
		}
		if len(out) >= maxLabels {
			return nil, &model.InputError{File: file, Line: line, Offset: -1, Msg: fmt.Sprintf("more than %d labels in one file", maxLabels)}
		}
		out = append(out, l)
	}
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &model.InputError{File: file, Line: pe.Line, Offset: -1, Msg: pe.Err.Error()}
	}
	return &model.InputError{File: file, Offset: -1, Msg: err.Error()}
}

func readJSONL(r io.Reader, file string) ([]Label, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Label
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, &model.InputError{File: file, Line: line, Offset: -1, Msg: "want a JSON object of " + strings.Join(Columns, ", ") + ": " + err.Error()}
		}
		var missing []string
		text := map[string]string{}
		for _, c := range Columns {
			raw, ok := rec[c]
			if !ok {
				missing = append(missing, c)
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(bytes.TrimSpace(raw)) // a number as written
			}
			text[c] = s
		}
		if len(missing) > 0 {
			return nil, &model.InputError{File: file, Line: line, Offset: -1, Msg: "no " + strings.Join(missing, ", ") + " key (a label needs " + strings.Join(Columns, ", ") + ")"}
		}
		l, err := label(text["audit"], text["dimension"], text["rater"], text["value"], line)
		if err != nil {
			return nil, &model.InputError{File: file, Line: line, Offset: -1, Msg: err.Error()}
		}
		if len(out) >= maxLabels {
			return nil, &model.InputError{File: file, Line: line, Offset: -1, Msg: fmt.Sprintf("more than %d labels in one file", maxLabels)}
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, &model.InputError{File: file, Offset: -1, Msg: err.Error()}
	}
	return out, nil
}

// label checks one label's fields.
func label(audit, dim, rater, value string, line int) (Label, error) {
	switch {
	case audit == "":
		return Label{}, errors.New("audit: empty")
	case dim == "":
		return Label{}, errors.New("dimension: empty")
	case rater == "":
		return Label{}, errors.New("rater: empty (each rater is a judge of their own)")
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Label{}, fmt.Errorf("value: want a number, found %q", value)
	}
	return Label{Audit: audit, Dimension: dim, Rater: rater, Value: v, Line: line}, nil
}

// Verdicts groups labels into verdicts, one per rater and audit, in the
// order first read; a rater labelling an audit's dimension twice is an
// error at the second line.
func Verdicts(ls []Label, file string) ([]model.Verdict, error) {
	at := map[[2]string]int{}
	var out []model.Verdict
	for _, l := range ls {
		k := [2]string{l.Rater, l.Audit}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, model.Verdict{Audit: l.Audit, Judge: l.Rater, Kind: model.JudgeHuman, Scores: map[string]float64{}, File: file, Line: l.Line})
		}
		if _, dup := out[i].Scores[l.Dimension]; dup {
			return nil, &model.InputError{File: file, Line: l.Line, Offset: -1,
				Msg: fmt.Sprintf("rater %q labels audit %q on %s a second time", l.Rater, l.Audit, l.Dimension)}
		}
		out[i].Scores[l.Dimension] = l.Value
	}
	return out, nil
}
