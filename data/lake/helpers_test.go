package lake_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/internal/storetest"
)

func mustOpenStore(t testing.TB) *data.Store {
	t.Helper()
	s, err := data.Open(context.Background(), data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixture names a real file copied into the repository: "annotated-pairs"
// files are the ones the demo embeds (data/demo/fixtures), the others sit in
// testdata/fixtures at the repository root.
func fixture(t testing.TB, kind, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", "fixtures", kind, name)
	if kind == "annotated-pairs" {
		p = filepath.Join("..", "demo", "fixtures", name)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return p
}

// dbOf is a store's database, a lake's included.
type dbOf interface{ DB() *sql.DB }

func count(t testing.TB, s dbOf, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.DB().QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// contentState is storetest.ContentState of a store's database.
func contentState(t testing.TB, s dbOf) map[string]string {
	t.Helper()
	return storetest.ContentState(t, s.DB())
}
