package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/auditscope/auditscope/data"
	"github.com/auditscope/auditscope/web"
)

// The explorer's form offers the other datasets, the split's values and the
// response models as pickers (checkboxes), with the view's choices checked.
func TestPairsExplorerPickers(t *testing.T) {
	multi := mustGet(t, mustPairsMulti(t), "/pairs/multi-a?with=multi-b", http.StatusOK, "text/html").Body
	contains(t, "with=multi-b", multi, `data-testid="select-with"`, `name="with" value="multi-b" checked>`)
	if strings.Contains(multi, `name="with" value="multi-a"`) {
		t.Error("the dataset offers itself as another dataset")
	}

	hand := mustGet(t, mustPairs(t), "/pairs/hand?split=topic&values=t1&refmodels=X", http.StatusOK, "text/html").Body
	contains(t, "hand split", hand, `name="values" value="t1" checked>`, `name="values" value="t2">`,
		`name="refmodels" value="X" checked>`, `name="refmodels" value="Y">`, `name="with" value="icai">`)
	// Default values are not selected: sent with another split they
	// would be wrong.
	def := mustGet(t, mustPairs(t), "/pairs/hand?split=topic", http.StatusOK, "text/html").Body
	if strings.Contains(def, `name="values" value="t1" checked`) || !strings.Contains(def, `name="values" value="t1">`) {
		t.Error("a default split value is selected in the form")
	}
	plain := mustGet(t, mustPairs(t), "/pairs/hand", http.StatusOK, "text/html").Body
	if strings.Contains(plain, `name="values"`) {
		t.Error("split values offered without a split")
	}
}

// maxValueOptions and maxValueTags are web's bounds (pairs_explorer.go):
// the values a select offers, and the values the list under the form names.
const maxValueOptions, maxValueTags = 200, 40

// A split key with more values than a select holds takes them typed, and
// the list under the form names the largest only.
func TestPairsExplorerManyValues(t *testing.T) {
	ctx := context.Background()
	store, err := data.Open(ctx, data.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var cmps []string
	for i := range maxValueOptions + 50 {
		cmps = append(cmps, fmt.Sprintf(`{"id": "c%d", "response_a": {"text": "a"}, "response_b": {"text": "bb"}, "annotations": {"h": {"pref": "a"}}, "metadata": {"n": "v%d"}}`, i, i))
	}
	doc := `{"metadata": {"version": "2.0", "available_metadata_keys_per_comparison": ["n"]}, "annotators": {"h": {"type": "human"}}, "comparisons": [` + strings.Join(cmps, ",") + `]}`
	if _, err := store.ImportAnnotatedPairsBytes(ctx, []byte(doc), "many.json", data.ImportOptions{Name: "many"}); err != nil {
		t.Fatal(err)
	}
	s := web.New(store, slog.New(slog.NewTextHandler(io.Discard, nil)), web.Config{})
	page := mustGet(t, s, "/pairs/many?split=n&values=v7,v9", http.StatusOK, "text/html").Body
	contains(t, "many values", page, `<input type="text" name="values" value="v7,v9"`, fmt.Sprintf("and %d more", maxValueOptions+50-maxValueTags))
	if strings.Contains(page, `<select name="values"`) {
		t.Error("a select of every value")
	}
}
