package web

import (
	"encoding/csv"
	"io"
	"strconv"
)

// csvWriter is encoding/csv's writer with every text cell that a
// spreadsheet would run as a formula neutralised, as OWASP recommends for
// CSV injection: a cell that starts with =, +, -, @, a tab or a carriage
// return gets a leading single quote. Numbers (-0.5, +3) are written as they
// are, so the columns stay numeric. Audit summaries, ids and annotator names
// come from files researchers did not write.
type csvWriter struct{ *csv.Writer }

func newCSVWriter(w io.Writer) csvWriter { return csvWriter{csv.NewWriter(w)} }

func (w csvWriter) Write(record []string) error {
	safe, copied := record, false
	for i, cell := range record {
		if n := neutralizeCell(cell); n != cell {
			if !copied { // the caller's slice is left as it was
				safe, copied = append([]string(nil), record...), true
			}
			safe[i] = n
		}
	}
	return w.Writer.Write(safe)
}

func (w csvWriter) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

// neutralizeCell returns cell with a leading ' when a spreadsheet would take
// it for a formula.
func neutralizeCell(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(cell, 64); err == nil && cell[0] != '=' && cell[0] != '@' {
			return cell
		}
		return "'" + cell
	}
	return cell
}
