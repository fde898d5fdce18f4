package markdown

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    []string
		wantNot []string
	}{
		{"**validation of inputs** and `x < y`", []string{"<strong>validation of inputs</strong>", "<code>x &lt; y</code>"}, nil},
		{"```python\nprint(1 < 2)\n```", []string{`<pre class="chroma"><code class="language-python"><span class="nb">print</span>`, `<span class="o">&lt;</span>`}, []string{"style="}},
		{"```\n<b>x</b>\n```", []string{"&lt;b&gt;x&lt;/b&gt;"}, []string{"<b>"}},
		{"```nosuchlanguage\n<i>y</i>\n```", []string{"&lt;i&gt;y&lt;/i&gt;"}, []string{"<i>"}},
		{"| a | b |\n|---|---|\n| 1 | 2 |", []string{"<table>", "<td>1</td>"}, nil},
		{"<script>alert(1)</script>", []string{"&lt;script&gt;alert(1)&lt;/script&gt;"}, []string{"<script"}},
		{"x <img src=x onerror=alert(1)> y", []string{"&lt;img src=x onerror=alert(1)&gt;"}, []string{"<img"}},
		{"[site](https://example.com)", []string{`<a href="https://example.com" rel="noopener nofollow ugc">site</a>`}, nil},
		{"![chart](https://example.com/a.png)", []string{`<a href="https://example.com/a.png" rel="noopener nofollow ugc">image: chart</a>`}, []string{"<img"}},
		{"[x](javascript:alert(1))", []string{"[x](javascript:alert(1))"}, []string{"href"}},
		{"line one\nline two", []string{"line one<br>"}, nil},
	} {
		got := Render(c.in)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: %q lacks %q", c.in, got, w)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("%q: %q has %q", c.in, got, w)
			}
		}
	}
	if Looks("plain words, nothing else") || !Looks("a **bold** claim") {
		t.Error("Looks")
	}
}

// TestBudget: a page colours code until its budget is spent; past it, code
// is shown as written (escaped), saying why, and code coloured once is
// kept and costs nothing the next time.
func TestBudget(t *testing.T) {
	Forget()
	code := "```python\nx = '<script>alert(1)</script>'\ny = 2\n```"
	if n := FenceLines("intro\n" + code + "\nafter\n~~~\nz\n~~~"); n != 3 {
		t.Errorf("FenceLines: %d, want 3", n)
	}
	plain := RenderWithin(NewBudget(1), code)
	if !strings.Contains(plain, `class="chroma nohl"`) || !strings.Contains(plain, "&lt;script&gt;") || strings.Contains(plain, "<span") {
		t.Errorf("over the budget: %s", plain)
	}
	b := NewBudget(2)
	coloured := RenderWithin(b, code)
	if strings.Contains(coloured, "nohl") || !strings.Contains(coloured, `<span class=`) || strings.Contains(coloured, "<script>") {
		t.Errorf("within the budget: %s", coloured)
	}
	// Kept: the same code again needs no budget.
	if again := RenderWithin(NewBudget(0), code); again != coloured {
		t.Errorf("kept code rendered differently:\n%s\n%s", again, coloured)
	}
	// A spent budget stays spent: a later, smaller block is not coloured
	// either, so a page is coloured from its top.
	b = NewBudget(3)
	RenderWithin(b, "```go\n"+strings.Repeat("x := 1\n", 5)+"```")
	if out := RenderWithin(b, "```go\ny := 2\n```"); !strings.Contains(out, "nohl") {
		t.Errorf("after a block too long for the budget: %s", out)
	}
}
