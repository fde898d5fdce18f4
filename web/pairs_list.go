package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/auditscope/auditscope/data/model"
	"github.com/auditscope/auditscope/views"
	"github.com/auditscope/auditscope/views/links"
	"github.com/auditscope/auditscope/web/app"
)

// The comparison viewer (/pairs/{ds}/comparisons) and one comparison's
// page (/pairs/{ds}/comparisons/{id}).

// pairsFilters are the vote filters of the comparison viewer, in
// app.Filters' order.
var pairsFilters = []views.PairsOption{
	{Value: "all", Label: "all comparisons"},
	{Value: "agree", Label: "annotator agrees with the reference"},
	{Value: "disagree", Label: "annotator disagrees with the reference"},
	{Value: "one", Label: "only one of the two votes is text_a/text_b"},
	{Value: "neither", Label: "neither vote is text_a/text_b"},
}

// paginate caps page to the pages total items fill (at least one page)
// and returns the range [from, to) of its items.
func paginate(total, size, page int) (capped, pages, from, to int) {
	pages = max(1, (total+size-1)/size)
	capped = min(max(page, 1), pages)
	from = (capped - 1) * size
	return capped, pages, from, min(from+size, total)
}

func (s *Server) listPairComparisons(c echo.Context) error {
	ctx := c.Request().Context()
	r, err := s.pairsRequest(c)
	if err != nil {
		return err
	}
	q, err := parseListQuery(c.QueryParams(), s.vocab(ctx, r))
	if err != nil {
		return err
	}
	r.UseRefModels(q.RefModels)
	ls, err := s.pairs.SelectComparisons(ctx, r.Pairs, app.ListQuery{Ref: q.Ref, Ann: q.Ann, Filter: q.Filter,
		Split: q.Split, Value: q.Value, Models: q.Models, Text: q.Text})
	if err != nil {
		return err
	}
	if past, err := pastLastPage(c, string(links.Pairs(r.DS.ID, links.Comparisons, nil)), q.values(), q.Page, len(ls.Sel), pairsPageSize); past {
		return err
	}
	page, pages, from, to := paginate(len(ls.Sel), pairsPageSize, q.Page)
	comps, err := s.pairs.PairsComparisons(ctx, r.DS.ID, ls.Sel[from:to])
	if err != nil {
		return err
	}
	l := views.PairsComparisonList{Dataset: r.datasetView(), Total: len(ls.Sel), Page: page, Pages: pages,
		RefName: ls.Ref.Name, AnnName: ls.Ann.Name, Describe: describeSelection(ls.Ann.Name, ls.Ref.Name, q)}
	pageURL := listPageURL(r.DS.ID, q)
	if page > 1 {
		l.PrevURL = pageURL(page - 1)
	}
	if page < pages {
		l.NextURL = pageURL(page + 1)
	}
	l.Form = listForm(r, q, ls.Ref.Key)
	for _, cmp := range comps {
		it := views.PairsListItem{ID: cmp.ID, Prompt: cmp.Prompt, HasPrompt: cmp.HasPrompt,
			URL:   links.PairsComparison(r.DS.ID, cmp.ID, r.base()),
			TextA: cmp.TextA, TextB: cmp.TextB, ModelA: cmp.ModelA, ModelB: cmp.ModelB}
		it.RefVote, it.AnnVote = ls.Votes(cmp.Idx)
		l.Items = append(l.Items, it)
	}
	return render(c, http.StatusOK, views.PairsComparisonListPage(l))
}

// listPageURL links page n of the list q selects.
func listPageURL(dataset string, q listQuery) func(n int) templ.SafeURL {
	state := q.values()
	state.Del("page")
	return func(n int) templ.SafeURL {
		q := cloneValues(state)
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		return links.Pairs(dataset, links.Comparisons, q)
	}
}

// listForm is the viewer's form, showing q.
func listForm(r *pairsReq, q listQuery, ref string) views.PairsListForm {
	f := views.PairsListForm{Action: links.Pairs(r.DS.ID, links.Comparisons, nil),
		Anns:      append([]views.PairsOption{{Value: "", Label: "(none)", Selected: q.Ann == ""}}, annotatorOptions(r.Pairs, q.Ann)...),
		Refs:      annotatorOptions(r.Pairs, ref),
		Splits:    splitOptions(r.DS.MetadataKeys, q.Split),
		Value:     q.Value,
		Models:    strings.Join(q.Models, ","),
		Q:         q.Text,
		RefModels: strings.Join(r.RefModels(), ","),
	}
	for _, o := range pairsFilters {
		o.Selected = o.Value == q.Filter
		f.Filters = append(f.Filters, o)
	}
	return f
}

// describeSelection says in words what the viewer's filters select.
func describeSelection(ann, ref string, q listQuery) string {
	var parts []string
	switch len(q.Models) {
	case 1:
		parts = append(parts, "with a response by "+q.Models[0])
	case 2:
		parts = append(parts, "between "+q.Models[0]+" and "+q.Models[1])
	}
	switch q.Filter {
	case "agree":
		parts = append(parts, "where "+ann+" agrees with "+ref)
	case "disagree":
		parts = append(parts, "where "+ann+" disagrees with "+ref)
	case "one":
		parts = append(parts, "where only one of "+ann+" and "+ref+" votes text_a or text_b")
	case "neither":
		parts = append(parts, "where neither "+ann+" nor "+ref+" votes text_a or text_b")
	}
	if q.Split != "" {
		parts = append(parts, "with "+q.Split+" = "+q.Value)
	}
	if q.Text != "" {
		parts = append(parts, "containing “"+q.Text+"”")
	}
	return strings.Join(parts, ", ")
}

func (s *Server) showPairComparison(c echo.Context) error {
	ctx := c.Request().Context()
	q := parseComparisonQuery(url.Values{"dataset": {c.Param("dataset")}, "id": {c.Param("id")}})
	ds, cmp, err := s.pairs.PairsComparison(ctx, q.Dataset, q.ID)
	if err != nil {
		return err
	}
	d := views.PairsComparisonDetail{Dataset: datasetView(ds, url.Values{}), ID: cmp.ID, Prompt: cmp.Prompt, HasPrompt: cmp.HasPrompt,
		A:       views.PairsResponse{Label: "Response A (text_a)", Model: cmp.ModelA, Text: cmp.TextA, Length: cmp.LenA, Attrs: kvs(cmp.AttrsA)},
		B:       views.PairsResponse{Label: "Response B (text_b)", Model: cmp.ModelB, Text: cmp.TextB, Length: cmp.LenB, Attrs: kvs(cmp.AttrsB)},
		ListURL: links.Pairs(ds.ID, links.Comparisons, nil), Metadata: kvs(cmp.Metadata)}
	for _, v := range cmp.Votes {
		vote := v.Pref
		if v.Null {
			vote = "no preference"
		}
		d.Votes = append(d.Votes, views.PairsVoteRow{Annotator: v.Annotator.Name, AnnotatorID: v.Annotator.ID, Type: v.Annotator.Type,
			Vote: vote, Reason: v.Reason, URL: links.Pairs(ds.ID, links.Comparisons, url.Values{"ann": {v.Annotator.ID}})})
	}
	return render(c, http.StatusOK, views.PairsComparisonPage(d))
}

func kvs(in []model.KeyValue) []views.PairsKV {
	out := make([]views.PairsKV, len(in))
	for i, kv := range in {
		out[i] = views.PairsKV{Key: kv.Key, Value: kv.Value}
	}
	return out
}
