package data

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data/storetest"
)

// dbState is storetest.TableState of the store's database.
func dbState(t testing.TB, s *Store, withHash bool) map[string]string {
	t.Helper()
	return storetest.TableState(t, s.db, withHash)
}

func sameState(a, b map[string]string) bool {
	return diffState(a, b) == ""
}

// diffState lists the tables whose state differs.
func diffState(before, after map[string]string) string {
	var diffs []string
	for k, v := range before {
		if after[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: %q before, %q after", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: new table (%q)", k, v))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}
