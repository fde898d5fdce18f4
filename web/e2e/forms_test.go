package e2e

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// formField is one control of a GET form: its name, the value it submits
// as the page shows it, and for a select every value it offers.
type formField struct {
	name    string
	value   string
	options []string
}

// pageForms reads the GET forms of a page: each form's action and fields.
func pageForms(t *testing.T, body string) map[string][]formField {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	attr := func(n *html.Node, k string) (string, bool) {
		for _, a := range n.Attr {
			if a.Key == k {
				return a.Val, true
			}
		}
		return "", false
	}
	forms := map[string][]formField{}
	var walk func(n *html.Node, action string)
	walk = func(n *html.Node, action string) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "form":
				if m, _ := attr(n, "method"); strings.EqualFold(m, "post") {
					return
				}
				action, _ = attr(n, "action")
				if _, ok := forms[action]; !ok {
					forms[action] = nil
				}
			case "input":
				name, ok := attr(n, "name")
				typ, _ := attr(n, "type")
				if ok && action != "\x00" && typ != "submit" {
					v, _ := attr(n, "value")
					if typ == "checkbox" {
						if _, checked := attr(n, "checked"); !checked {
							forms[action] = append(forms[action], formField{name: name, options: []string{v}})
							break
						}
					}
					forms[action] = append(forms[action], formField{name: name, value: v})
				}
			case "select":
				name, ok := attr(n, "name")
				if ok && action != "\x00" {
					f := formField{name: name}
					for o := n.FirstChild; o != nil; o = o.NextSibling {
						collectOptions(o, &f, attr)
					}
					forms[action] = append(forms[action], f)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, action)
		}
	}
	walk(doc, "\x00")
	return forms
}

func collectOptions(n *html.Node, f *formField, attr func(*html.Node, string) (string, bool)) {
	if n.Type == html.ElementNode && n.Data == "option" {
		v, ok := attr(n, "value")
		if !ok && n.FirstChild != nil {
			v = n.FirstChild.Data
		}
		f.options = append(f.options, v)
		if _, sel := attr(n, "selected"); sel {
			f.value = v
		}
		return
	}
	if n.Type == html.ElementNode && n.Data == "optgroup" {
		for o := n.FirstChild; o != nil; o = o.NextSibling {
			collectOptions(o, f, attr)
		}
	}
}

// TestEveryFormOption walks every option of every form on the demo's pages:
// each option submitted alone (the other fields as the page fills them)
// answers without a server error, and so does every figure the resulting
// page shows.
func TestEveryFormOption(t *testing.T) {
	if testing.Short() {
		t.Skip("walks some hundreds of pages; skipped with -short")
	}
	// Independent of the other tests (a server of its own on the
	// read-only demo): run beside them, on the other core.
	t.Parallel()
	s := mustDemo(t)
	pages := []string{
		"/experiments/demo", "/experiments/demo/crux", "/experiments/demo/rwr", "/experiments/demo/transfer",
		"/experiments/demo/cycles", "/experiments/demo/judgments", "/audits?exp=demo",
		"/pairs/synthetic-personality-demo", "/pairs/synthetic-personality-demo/models",
		"/pairs/synthetic-personality-demo/comparisons", "/pairs/icai-example-v2-models",
	}
	seen := map[string]bool{}
	check := func(u string) string {
		if seen[u] {
			return ""
		}
		seen[u] = true
		r := get(t, s, u)
		if r.Code >= 500 {
			t.Errorf("GET %s: %d", u, r.Code)
		}
		return r.Body
	}
	submitted := 0
	for _, page := range pages {
		body := check(page)
		for action, fields := range pageForms(t, body) {
			if action == "" {
				action = strings.SplitN(page, "?", 2)[0]
			}
			for i, f := range fields {
				for _, opt := range f.options {
					q := url.Values{}
					for j, g := range fields {
						switch {
						case j == i:
							q.Add(g.name, opt)
						case g.value != "":
							q.Add(g.name, g.value)
						}
					}
					out := check(action + "?" + q.Encode())
					submitted++
					for _, img := range figureSources(out) {
						check(img)
					}
				}
			}
		}
	}
	if submitted < 50 {
		t.Errorf("only %d form submissions: the forms were not found", submitted)
	}
	t.Logf("%d form submissions, %d URLs", submitted, len(seen))
}

// figureSources lists the figure URLs a page shows.
func figureSources(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `<object class="figure" type="image/svg+xml" data="`)[1:] {
		src := html.UnescapeString(part[:strings.IndexByte(part, '"')])
		if strings.Contains(src, "/figures/") {
			out = append(out, src)
		}
	}
	return out
}
