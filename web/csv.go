package web

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
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

// plainNumber is a decimal number as a spreadsheet reads one: the only
// cells starting with + or - written as they are. Go's ParseFloat also
// takes "0x1p3", "Inf" and "NaN", which a spreadsheet reads as text, and
// "+0x1p3" as text is what an attacker can make of it.
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// neutralizeCell returns cell with a leading ' when a spreadsheet would take
// it for a formula. Spreadsheets skip leading blanks and invisible
// characters (spaces, U+200B, a byte order mark) before they look for a
// formula, and some read the fullwidth ＝ ＋ － ＠ as the ASCII ones, so
// those are looked past and counted too.
func neutralizeCell(cell string) string {
	// Most cells start with a plain ASCII letter or digit: nothing to look
	// past or guard (a large export has millions of cells).
	if cell == "" {
		return cell
	}
	if c := cell[0]; c < utf8.RuneSelf && c > ' ' && !strings.ContainsRune("+-=@", rune(c)) {
		return cell
	}
	return neutralizeFull(cell)
}

// neutralizeFull is neutralizeCell without its shortcut.
func neutralizeFull(cell string) string {
	rest := strings.TrimLeftFunc(cell, func(r rune) bool {
		return r != '\t' && r != '\r' && (unicode.IsSpace(r) || unicode.Is(unicode.Cf, r))
	})
	if rest == "" {
		return cell
	}
	r, _ := utf8.DecodeRuneInString(rest)
	switch r {
	case '+', '-', '\uFF0B', '\uFF0D', '\uFE62', '\uFE63', '\u2212':
		if rest == cell && plainNumber.MatchString(cell) {
			return cell
		}
	case '=', '@', '\t', '\r', '\uFF1D', '\uFF20', '\uFE66', '\uFE6B':
	default:
		return cell
	}
	return "'" + cell
}
