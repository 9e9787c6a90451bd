// Package coverimage turns a cover a librarian uploads, or a cover source
// sends, into the one form the service stores and serves: a JPEG fitted
// into the cover box, turned upright by its EXIF orientation, with no
// metadata at all (a phone photo's GPS position and camera never reach a
// student's browser).
//
// It decodes JPEG, PNG and GIF with the standard library and WebP with
// golang.org/x/image/webp, and scales with golang.org/x/image/draw's
// Catmull-Rom kernel: the Go project's own decoders and scaler, already a
// dependency of the label PDFs, rather than a hand-written resampler.
package coverimage

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	_ "image/gif" // registers the GIF decoder
	"image/jpeg"
	_ "image/png" // registers the PNG decoder

	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers the WebP decoder

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.CoverImages = Normalizer{}

// Normalizer is the ports.CoverImages of the service.
type Normalizer struct{}

// jpegQuality keeps a 400×600 cover around 40–80 KB.
const jpegQuality = 85

// Normalize implements ports.CoverImages.
func (Normalizer) Normalize(data []byte) (library.CoverImage, error) {
	if len(data) > library.MaxCoverBytes {
		return library.CoverImage{}, library.ErrCoverTooLarge()
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return library.CoverImage{}, library.ErrCoverUnreadable()
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return library.CoverImage{}, library.ErrCoverUnreadable()
	}
	if cfg.Width > library.MaxCoverSide || cfg.Height > library.MaxCoverSide || cfg.Width*cfg.Height > library.MaxCoverPixels {
		return library.CoverImage{}, library.ErrCoverTooLarge()
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return library.CoverImage{}, library.ErrCoverUnreadable()
	}
	orientation := 1
	if format == "jpeg" {
		orientation = exifOrientation(data)
	}
	// Orientations 5 to 8 turn the image a quarter: it is fitted into the
	// box turned the same way, then turned upright.
	boxW, boxH := library.CoverBoxWidth, library.CoverBoxHeight
	if orientation >= 5 {
		boxW, boxH = boxH, boxW
	}
	w, h := fit(src.Bounds().Dx(), src.Bounds().Dy(), boxW, boxH)
	// A white page under any transparency: JPEG has none.
	scaled := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(scaled, scaled.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	xdraw.CatmullRom.Scale(scaled, scaled.Bounds(), src, src.Bounds(), draw.Over, nil)
	upright := orient(scaled, orientation)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, upright, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return library.CoverImage{}, library.ErrCoverUnreadable()
	}
	b := upright.Bounds()
	return library.CoverImage{JPEG: out.Bytes(), Width: b.Dx(), Height: b.Dy()}, nil
}

// fit returns w×h scaled down, keeping its proportions, to fit boxW×boxH;
// an image that fits already keeps its size (covers are never blown up).
func fit(w, h, boxW, boxH int) (int, int) {
	if w <= boxW && h <= boxH {
		return w, h
	}
	if w*boxH > h*boxW { // wider than the box
		return boxW, max(1, h*boxW/w)
	}
	return max(1, w*boxH/h), boxH
}

// orient returns img turned upright for an EXIF orientation (1 to 8; any
// other value is 1): mirrored and turned as the camera recorded.
func orient(img *image.RGBA, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			var sx, sy int
			switch o {
			case 2:
				sx, sy = w-1-x, y
			case 3:
				sx, sy = w-1-x, h-1-y
			case 4:
				sx, sy = x, h-1-y
			case 5:
				sx, sy = y, x
			case 6:
				sx, sy = y, h-1-x
			case 7:
				sx, sy = w-1-y, h-1-x
			case 8:
				sx, sy = w-1-y, x
			}
			dst.SetRGBA(x, y, img.RGBAAt(sx, sy))
		}
	}
	return dst
}
