package views

import "github.com/a-h/templ"

// sortAttrs is a sortable column header's aria-sort: the direction of the
// sorted column; nothing on the others, which the table is not sorted by.
func sortAttrs(sorted, desc bool) templ.Attributes {
	switch {
	case !sorted:
		return nil
	case desc:
		return templ.Attributes{"aria-sort": "descending"}
	default:
		return templ.Attributes{"aria-sort": "ascending"}
	}
}

// sortMark is the visible arrow of the sorted column.
func sortMark(sorted, desc bool) string {
	switch {
	case !sorted:
		return ""
	case desc:
		return "\u00a0▼" // no break: the mark stays with its header
	default:
		return "\u00a0▲"
	}
}

// SortAttrs is the overview's header attributes for key.
func (v ExperimentView) SortAttrs(key string) templ.Attributes {
	return sortAttrs(v.Sort == key, v.Desc)
}

// ScorerSortAttrs is the scorer table's header attributes for key.
func (v ExperimentView) ScorerSortAttrs(key string) templ.Attributes {
	return sortAttrs(v.ScorerSort == key, v.ScorerDesc)
}

// SortAttrs is the audit list's header attributes for key.
func (v AuditListView) SortAttrs(key string) templ.Attributes {
	return sortAttrs(v.Filter.Sort == key, v.Filter.Desc)
}

// SortMark is the audit list's arrow on the sorted column.
func (v AuditListView) SortMark(key string) string {
	return sortMark(v.Filter.Sort == key, v.Filter.Desc)
}

// SortAttrs is the explorer header's attributes.
func (c PairsColumn) SortAttrs() templ.Attributes { return sortAttrs(c.Sorted, c.Desc) }
