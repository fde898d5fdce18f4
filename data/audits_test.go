package data

import (
	"maps"
	"slices"
	"testing"

	"github.com/auditscope/auditscope/data/model"
)

// The sort keys the filter accepts are the ones the store has SQL for.
func TestAuditSortColumns(t *testing.T) {
	got := slices.Sorted(maps.Keys(auditSortColumns))
	want := slices.Sorted(slices.Values(model.AuditSortKeys))
	if !slices.Equal(got, want) {
		t.Errorf("SQL for %v, model.AuditSortKeys %v", got, want)
	}
}
