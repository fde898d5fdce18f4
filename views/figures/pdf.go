// This file adapts gonum/plot's vg/vgpdf canvas (Copyright ©2015 The Gonum
// Authors, BSD-3-Clause; see the notice at the end of this file).
//
// Why a copy: vgpdf registers fonts with a cp1252 code page and passes the
// plot's strings through as UTF-8 bytes, so every non-ASCII character comes
// out as mojibake ("Composite (0â€“100)"), and it stamps each file with the
// time it was made. This canvas embeds each TrueType font as a UTF-8 font
// (go-pdf/fpdf subsets it to the characters used) and fixes the document's
// dates, so the same figure gives the same bytes.

package figures

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	pdf "codeberg.org/go-pdf/fpdf"
	stdfnt "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfEpoch is every PDF's creation and modification date: a fixed time, so
// that a figure's bytes depend only on what it shows.
var pdfEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfCanvas is a vg.Canvas that draws a one-page PDF.
type pdfCanvas struct {
	doc       *pdf.Fpdf
	w, h      vg.Length
	numImages int
	stack     []pdfContext
	fonts     map[font.Font]bool
	err       error // the first font that could not be embedded
}

type pdfContext struct {
	fill, line color.Color
	width      vg.Length
}

// pdfDPI is the nominal resolution of drawing in PDF.
const pdfDPI = 72

func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	doc := pdf.NewCustom(&pdf.InitType{UnitStr: "pt", Size: pdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCreationDate(pdfEpoch)
	doc.SetModificationDate(pdfEpoch)
	doc.SetCatalogSort(true)
	doc.SetProducer("auditscope", true)
	c := &pdfCanvas{doc: doc, w: w, h: h, stack: make([]pdfContext, 1), fonts: map[font.Font]bool{}}
	doc.SetMargins(0, 0, 0)
	doc.AddPage()
	c.Push()
	c.Translate(vg.Point{X: 0, Y: c.h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) DPI() float64                       { return pdfDPI }
func (c *pdfCanvas) Size() (w, h vg.Length)             { return c.w, c.h }
func (c *pdfCanvas) context() *pdfContext               { return &c.stack[len(c.stack)-1] }
func (c *pdfCanvas) unit(l vg.Length) float64           { return l.Dots(pdfDPI) }
func (c *pdfCanvas) pdfPoint(p vg.Point) (x, y float64) { return c.unit(p.X), c.unit(p.Y) }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.context().width = w
	c.doc.SetLineWidth(c.unit(w))
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = c.unit(d)
	}
	c.doc.SetDashPattern(ds, c.unit(offs))
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.context().line = clr
	c.context().fill = clr
	r, g, b, a := clr.RGBA()
	ri, gi, bi := int(r>>8), int(g>>8), int(b>>8)
	c.doc.SetFillColor(ri, gi, bi)
	c.doc.SetDrawColor(ri, gi, bi)
	c.doc.SetTextColor(ri, gi, bi)
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

func (c *pdfCanvas) Rotate(r float64)     { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }
func (c *pdfCanvas) Scale(x, y float64)   { c.doc.TransformScale(x*100, y*100, 0, 0) }
func (c *pdfCanvas) Translate(p vg.Point) { c.doc.TransformTranslate(c.pdfPoint(p)) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.context())
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.context().width > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// style is fpdf's style string for a face.
func style(f font.Face) string {
	s := ""
	if f.Font.Weight == stdfnt.WeightBold {
		s += "B"
	}
	if f.Font.Style == stdfnt.StyleItalic {
		s += "I"
	}
	return s
}

func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, str string) {
	if f.Font.Size == 0 {
		return
	}
	if !c.font(f) {
		return
	}
	c.doc.SetFont(f.Name(), style(f), c.unit(f.Font.Size))
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	// fpdf's origin is the top left corner.
	c.Scale(1, -1)
	_, h := c.doc.GetFontSize()
	top := 0.81 * h // fpdf knows no ascent for the font: the usual 81%
	if d := c.doc.GetFontDesc(f.Name(), style(f)); d.Ascent != 0 {
		top = -float64(d.Ascent) * h / float64(d.Ascent-d.Descent)
	}
	w := c.doc.GetStringWidth(str)
	c.doc.MoveTo(-c.doc.GetCellMargin(), top)
	c.doc.CellFormat(w, h, str, "", 0, "BL", false, 0, "")
}

// font embeds f as a UTF-8 font once; false if it cannot be.
func (c *pdfCanvas) font(f font.Face) bool {
	if ok, seen := c.fonts[f.Font]; seen {
		return ok
	}
	var raw bytes.Buffer
	_, err := f.Face.WriteSourceTo(nil, &raw)
	if err == nil {
		c.doc.AddUTF8FontFromBytes(f.Name(), style(f), raw.Bytes())
		err = c.doc.Error()
	}
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("embed font %s: %w", f.Name(), err)
	}
	c.fonts[f.Font] = err == nil
	return err == nil
}

func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	opts := pdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.numImages++
	name := fmt.Sprintf("image_%03d.png", c.numImages)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		if c.err == nil {
			c.err = err
		}
		return
	}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	xp, yp := c.pdfPoint(rect.Min)
	wp, hp := c.pdfPoint(rect.Size())
	c.doc.ImageOptions(name, xp, yp, wp, hp, false, opts, 0, "")
}

func (c *pdfCanvas) path(p vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = c.pdfPoint(comp.Pos)
			c.doc.MoveTo(x0, y0)
		case vg.LineComp:
			c.doc.LineTo(c.pdfPoint(comp.Pos))
		case vg.ArcComp:
			c.arc(comp, style)
		case vg.CurveComp:
			px, py := c.pdfPoint(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.pdfPoint(comp.Control[0])
				c.doc.CurveTo(cx, cy, px, py)
			case 2:
				cx, cy := c.pdfPoint(comp.Control[0])
				dx, dy := c.pdfPoint(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, px, py)
			}
		case vg.CloseComp:
			c.doc.LineTo(x0, y0)
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

func (c *pdfCanvas) arc(comp vg.PathComp, style string) {
	x0 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start))
	y0 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start))
	c.doc.LineTo(c.pdfPoint(vg.Point{X: x0, Y: y0}))
	r := c.unit(comp.Radius)
	const deg = 180 / math.Pi
	beg := comp.Start * deg
	c.doc.Arc(c.unit(comp.Pos.X), c.unit(comp.Pos.Y), r, r, comp.Angle*deg, beg, beg+comp.Angle*deg, style)
	x1 := comp.Pos.X + comp.Radius*vg.Length(math.Cos(comp.Start+comp.Angle))
	y1 := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(comp.Start+comp.Angle))
	c.doc.MoveTo(c.pdfPoint(vg.Point{X: x1, Y: y1}))
}

// WriteTo closes the document and writes it.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	c.Pop()
	c.doc.Close()
	if c.err != nil {
		return 0, c.err
	}
	cw := &countingWriter{w: w}
	b := bufio.NewWriter(cw)
	if err := c.doc.Output(b); err != nil {
		return cw.n, err
	}
	return cw.n, b.Flush()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// The adapted parts of vgpdf are under this notice:
//
// Copyright ©2013 The Gonum Authors. All rights reserved.
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are met:
//   - Redistributions of source code must retain the above copyright
//     notice, this list of conditions and the following disclaimer.
//   - Redistributions in binary form must reproduce the above copyright
//     notice, this list of conditions and the following disclaimer in the
//     documentation and/or other materials provided with the distribution.
//   - Neither the name of the Gonum project nor the names of its authors and
//     contributors may be used to endorse or promote products derived from this
//     software without specific prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
// ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
// WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
// DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
// FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
// DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
// SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
// CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
// OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
// OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
