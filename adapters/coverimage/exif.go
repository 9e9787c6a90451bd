package coverimage

import "encoding/binary"

// exifOrientation reads the orientation tag (0x0112) of a JPEG's EXIF
// block: the first APP1 segment that starts "Exif\0\0", its TIFF header,
// and the entries of its first directory. Anything missing, damaged or out
// of bounds reads as 1, upright: a cover shown turned is a nuisance, a
// cover refused for its metadata would be worse.
func exifOrientation(jpegData []byte) int {
	d := jpegData
	if len(d) < 4 || d[0] != 0xFF || d[1] != 0xD8 {
		return 1
	}
	for i := 2; i+4 <= len(d); {
		if d[i] != 0xFF {
			return 1
		}
		marker := d[i+1]
		if marker == 0xD9 || marker == 0xDA { // end of image, start of scan
			return 1
		}
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		size := int(binary.BigEndian.Uint16(d[i+2:]))
		if size < 2 || i+2+size > len(d) {
			return 1
		}
		seg := d[i+4 : i+2+size]
		if marker == 0xE1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		i += 2 + size
	}
	return 1
}

// tiffOrientation reads the orientation from a TIFF block: its byte order,
// the offset of its first directory and that directory's 12-byte entries.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var order binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		order = binary.LittleEndian
	case "MM":
		order = binary.BigEndian
	default:
		return 1
	}
	if order.Uint16(t[2:]) != 42 {
		return 1
	}
	off := int64(order.Uint32(t[4:]))
	if off < 8 || off+2 > int64(len(t)) {
		return 1
	}
	n := int64(order.Uint16(t[off:]))
	for e := range n {
		at := off + 2 + 12*e
		if at+12 > int64(len(t)) {
			return 1
		}
		if order.Uint16(t[at:]) != 0x0112 {
			continue
		}
		// A SHORT (type 3), count 1: its value is the entry's first two
		// value bytes.
		if order.Uint16(t[at+2:]) != 3 || order.Uint32(t[at+4:]) != 1 {
			return 1
		}
		if v := int(order.Uint16(t[at+8:])); v >= 1 && v <= 8 {
			return v
		}
		return 1
	}
	return 1
}
