package coverimage

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// segments lists the markers of a JPEG's header segments (up to the scan).
func segments(tb testing.TB, d []byte) []byte {
	tb.Helper()
	var out []byte
	for i := 2; i+4 <= len(d) && d[i] == 0xFF; {
		m := d[i+1]
		out = append(out, m)
		if m == 0xDA {
			break
		}
		i += 2 + int(binary.BigEndian.Uint16(d[i+2:]))
	}
	return out
}

// Every kind the service takes comes out a JPEG inside the box, with no
// application segment but the JFIF one the encoder writes: the camera, the
// software and the GPS position of the files are gone.
func TestNormalizeRealFiles(t *testing.T) {
	for _, name := range []string{"Canon_40D.jpg", "DSCN0010.jpg", "landscape_1.jpg", "portrait_6.jpg",
		"go-turns-two-280x360.jpeg", "tux.png", "video-001.png", "yellow_rose.lossy.webp"} {
		t.Run(name, func(t *testing.T) {
			in := readTestdata(t, name)
			got, err := Normalizer{}.Normalize(in)
			if err != nil {
				t.Fatalf("Normalize = %v", err)
			}
			img, err := jpeg.Decode(bytes.NewReader(got.JPEG))
			if err != nil {
				t.Fatalf("the cover is no JPEG: %v", err)
			}
			b := img.Bounds()
			if b.Dx() != got.Width || b.Dy() != got.Height || got.Width > library.CoverBoxWidth || got.Height > library.CoverBoxHeight {
				t.Fatalf("cover %dx%d (said %dx%d), want within %dx%d", b.Dx(), b.Dy(), got.Width, got.Height, library.CoverBoxWidth, library.CoverBoxHeight)
			}
			for _, m := range segments(t, got.JPEG) {
				if m >= 0xE1 && m <= 0xEF {
					t.Fatalf("the cover keeps an APP%d segment (metadata)", m-0xE0)
				}
			}
			for _, s := range []string{"Exif", "Canon", "NIKON", "GIMP", "GPS"} {
				if bytes.Contains(got.JPEG, []byte(s)) {
					t.Fatalf("the cover still holds %q", s)
				}
			}
		})
	}
}

// A small cover keeps its size; a large one is fitted into the box with
// its proportions.
func TestNormalizeFitsWithoutBlowingUp(t *testing.T) {
	small, err := Normalizer{}.Normalize(readTestdata(t, "go-turns-two-280x360.jpeg"))
	if err != nil || small.Width != 280 || small.Height != 360 {
		t.Fatalf("a 280x360 cover = %dx%d, %v; want its own size", small.Width, small.Height, err)
	}
	var big bytes.Buffer
	if err := png.Encode(&big, image.NewRGBA(image.Rect(0, 0, 1600, 800))); err != nil {
		t.Fatal(err)
	}
	wide, err := Normalizer{}.Normalize(big.Bytes())
	if err != nil || wide.Width != library.CoverBoxWidth || wide.Height != 200 {
		t.Fatalf("a 1600x800 image = %dx%d, %v; want 400x200", wide.Width, wide.Height, err)
	}
}

// A camera that recorded the picture turned (EXIF orientation 6) gets an
// upright cover: the stored landscape pixels come out portrait, like the
// same picture recorded upright.
func TestNormalizeTurnsByExifOrientation(t *testing.T) {
	if o := exifOrientation(readTestdata(t, "portrait_6.jpg")); o != 6 {
		t.Fatalf("the orientation of portrait_6.jpg reads %d, want 6", o)
	}
	if o := exifOrientation(readTestdata(t, "landscape_1.jpg")); o != 1 {
		t.Fatalf("the orientation of landscape_1.jpg reads %d, want 1", o)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(readTestdata(t, "portrait_6.jpg")))
	if err != nil || cfg.Width <= cfg.Height {
		t.Fatalf("portrait_6.jpg stores %dx%d (%v), want landscape pixels", cfg.Width, cfg.Height, err)
	}
	turned, err := Normalizer{}.Normalize(readTestdata(t, "portrait_6.jpg"))
	if err != nil || turned.Height <= turned.Width {
		t.Fatalf("the cover of portrait_6.jpg = %dx%d, %v; want portrait", turned.Width, turned.Height, err)
	}
	upright, err := Normalizer{}.Normalize(readTestdata(t, "landscape_1.jpg"))
	if err != nil || upright.Width <= upright.Height {
		t.Fatalf("the cover of landscape_1.jpg = %dx%d, %v; want landscape", upright.Width, upright.Height, err)
	}
}

// Other kinds of file, damaged ones and oversized ones are refused with
// their codes.
func TestNormalizeRefuses(t *testing.T) {
	jpegData := readTestdata(t, "go-turns-two-280x360.jpeg")
	hugePNG := func() []byte {
		// A real PNG header that claims 20000x20000 pixels: refused before
		// decoding, whatever follows.
		var b bytes.Buffer
		_ = png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
		d := b.Bytes()
		binary.BigEndian.PutUint32(d[16:], 20000)
		binary.BigEndian.PutUint32(d[20:], 20000)
		binary.BigEndian.PutUint32(d[29:], crc32.ChecksumIEEE(d[12:29])) // the IHDR chunk's CRC
		return d
	}()
	cases := []struct {
		name string
		data []byte
		code string
	}{
		{"TIFF", readTestdata(t, "blue-purple-pink.lzwcompressed.tiff"), "cover_unreadable"},
		{"BMP", readTestdata(t, "bmp_8bpp.bmp"), "cover_unreadable"},
		{"truncated JPEG", jpegData[:len(jpegData)/2], "cover_unreadable"},
		{"text", []byte("<html>not found</html>"), "cover_unreadable"},
		{"empty", nil, "cover_unreadable"},
		{"20000x20000 PNG", hugePNG, "cover_too_large"},
		{"over 5 MiB", append(bytes.Clone(jpegData), make([]byte, library.MaxCoverBytes)...), "cover_too_large"},
	}
	for _, c := range cases {
		_, err := Normalizer{}.Normalize(c.data)
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.Invalid || e.Code != c.code {
			t.Errorf("%s: %v, want Invalid %s", c.name, err, c.code)
		}
	}
}

// The orientation reader survives damaged EXIF blocks, reading them as
// upright.
func TestExifOrientationOfDamagedBlocks(t *testing.T) {
	d := readTestdata(t, "portrait_6.jpg")
	for cut := 4; cut < 400 && cut < len(d); cut += 7 {
		if o := exifOrientation(d[:cut]); o < 1 || o > 8 {
			t.Fatalf("orientation of the first %d bytes = %d", cut, o)
		}
	}
	for _, bad := range [][]byte{nil, {0xFF}, {0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01}, []byte("II*\x00")} {
		if o := exifOrientation(bad); o != 1 {
			t.Fatalf("orientation of %q = %d, want 1", bad, o)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".md" {
			f.Add(readTestdata(f, e.Name()))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Normalizer{}.Normalize(data)
		if err != nil {
			if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid {
				t.Fatalf("a refusal that is not Invalid: %v", err)
			}
			return
		}
		img, err := jpeg.Decode(bytes.NewReader(got.JPEG))
		if err != nil || img.Bounds().Dx() > library.CoverBoxWidth || img.Bounds().Dy() > library.CoverBoxHeight {
			t.Fatalf("an accepted image gave %v, %v", img.Bounds(), err)
		}
	})
}

func FuzzExifOrientation(f *testing.F) {
	for _, name := range []string{"portrait_6.jpg", "Canon_40D.jpg", "DSCN0010.jpg"} {
		d := readTestdata(f, name)
		f.Add(d[:min(len(d), 4096)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := exifOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
