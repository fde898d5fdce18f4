package lake_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/data/storetest"
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

// fixture is storetest.Fixture.
func fixture(t testing.TB, kind, name string) string {
	t.Helper()
	return storetest.Fixture(t, kind, name)
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
