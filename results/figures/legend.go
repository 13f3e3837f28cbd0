package figures

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var blackish = color.RGBA{0x33, 0x33, 0x33, 0xff}

// legendBox is a legend entry drawn as a filled square.
type legendBox struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (b legendBox) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	side := vg.Length(0.8) * (r.Max.Y - r.Min.Y)
	x := r.Min.X + (r.Max.X-r.Min.X-side)/2
	y := r.Min.Y + (r.Max.Y-r.Min.Y-side)/2
	c.FillPolygon(b.c, []vg.Point{{X: x, Y: y}, {X: x + side, Y: y}, {X: x + side, Y: y + side}, {X: x, Y: y + side}})
}
