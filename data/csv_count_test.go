package data

import (
	"encoding/csv"
	"io"
)

// countCSVRecords counts the records of a CSV stream, header included.
func countCSVRecords(r io.Reader) (int64, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	var n int64
	for {
		_, err := cr.Read()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
