package annotatedpairs

import (
	"database/sql/driver"
	"strconv"
	"testing"

	"github.com/auditscope/auditscope/data/internal/load"
	"github.com/auditscope/auditscope/data/model"
)

// nopTx is a transaction that writes nowhere.
type nopTx struct{ rows int64 }

type nopAppender struct{ tx *nopTx }

func (a nopAppender) Row(...driver.Value) error { a.tx.rows++; return nil }
func (nopAppender) Close() error                { return nil }

func (*nopTx) Gen() int64                                                    { return 1 }
func (*nopTx) SetSource(string)                                              {}
func (t *nopTx) Appender(string) (load.Appender, error)                      { return nopAppender{t}, nil }
func (*nopTx) Claim(string, string, string, bool) error                      { return nil }
func (*nopTx) Record(*model.ImportResult) (int64, error)                     { return 1, nil }
func (t *nopTx) Rows() int64                                                 { return t.rows }
func (*nopTx) RenameDataset(string, string) error                            { return nil }
func (*nopTx) AddDataset(Dataset) error                                      { return nil }
func (*nopTx) ClaimLater(string, string, func() (string, error), bool) error { return nil }

// TestUniqueIDsKeepNoSet: comparisons whose ids are unique by construction
// (a preference CSV's row numbers) leave the loader's set of seen ids
// empty, so its memory does not grow with the rows; others are checked
// for duplicates as before.
func TestUniqueIDsKeepNoSet(t *testing.T) {
	for _, unique := range []bool{true, false} {
		l := NewLoader(&nopTx{}, "x.csv", "h", LoadOptions{})
		l.SetMetadata(Metadata{Version: "2.0", UniqueIDs: unique})
		for i := range 1000 {
			if err := l.Add(Row{ID: strconv.Itoa(i), TextA: "a", TextB: "b"}); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := len(l.seenIDs), map[bool]int{true: 0, false: 1000}[unique]; got != want {
			t.Errorf("unique ids %v: %d ids kept, want %d", unique, got, want)
		}
	}
}
