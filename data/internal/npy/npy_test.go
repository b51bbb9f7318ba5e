package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// build writes a .npy file the way numpy does: header padded with spaces so
// that the data starts on a 64-byte boundary (numpy ≥ 1.14; older used 16).
func build(version int, header string, raw []byte) []byte {
	pre := 10
	if version > 1 {
		pre = 12
	}
	h := header
	for (pre+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY")
	b = append(b, byte(version), 0)
	if version == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
	}
	b = append(b, h...)
	return append(b, raw...)
}

func hdr(descr string, fortran bool, shape string) string {
	f := "False"
	if fortran {
		f = "True"
	}
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, shape)
}

func i32s(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func TestParse(t *testing.T) {
	a, err := Parse(build(1, hdr("<i4", false, "(3,)"), i32s(1, -2, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.Int32s(); err != nil || !slices.Equal(v, []int32{1, -2, 3}) {
		t.Errorf("i4: %v %v", v, err)
	}
	if v, err := a.Float32s(); err != nil || !slices.Equal(v, []float32{1, -2, 3}) {
		t.Errorf("i4 as float: %v %v", v, err)
	}
	// v2.0 header, i8, Python-2 long dims.
	b := build(2, hdr("<i8", false, "(2L, 1L)"), binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 7), 1<<40))
	a, err = Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int{2, 1}) {
		t.Errorf("shape %v", a.Shape)
	}
	if _, err := a.Int32s(); err == nil {
		t.Error("2^40 converted to int32")
	}
	if v, err := a.Int64s(); err != nil || v[1] != 1<<40 {
		t.Errorf("i8: %v %v", v, err)
	}
	// f8, double-quoted keys, scalar shape.
	a, err = Parse(build(1, `{"descr": "<f8", "fortran_order": False, "shape": ()}`, binary.LittleEndian.AppendUint64(nil, math.Float64bits(2.5))))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.Float32s(); err != nil || len(v) != 1 || v[0] != 2.5 {
		t.Errorf("f8: %v %v", v, err)
	}
	// Byte-sized types, any order mark.
	for _, d := range []string{"|i1", "|u1", "|b1"} {
		a, err := Parse(build(1, hdr(d, false, "(2,)"), []byte{0xff, 1}))
		if err != nil {
			t.Fatal(d, err)
		}
		v, _ := a.Int64s()
		want := int64(255)
		if d == "|i1" {
			want = -1
		}
		if v[0] != want || v[1] != 1 {
			t.Errorf("%s: %v", d, v)
		}
	}
	// Unicode strings.
	var u []byte // two elements of 3 UTF-32LE code units, NUL-padded
	for _, s := range []string{"ab", "çé"} {
		r := []rune(s)
		for i := range 3 {
			c := rune(0)
			if i < len(r) {
				c = r[i]
			}
			u = binary.LittleEndian.AppendUint32(u, uint32(c))
		}
	}
	a, err = Parse(build(1, hdr("<U3", false, "(2,)"), u))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.Strings(); err != nil || !slices.Equal(v, []string{"ab", "çé"}) {
		t.Errorf("U3: %q %v", v, err)
	}
	// Fortran order is fine when trivially 1-D.
	if _, err := Parse(build(1, hdr("<i4", true, "(1, 3)"), i32s(1, 2, 3))); err != nil {
		t.Errorf("1×3 Fortran: %v", err)
	}
	// Zero-size arrays.
	if a, err := Parse(build(1, hdr("<f4", false, "(0, 5)"), nil)); err != nil || a.Len() != 0 {
		t.Errorf("empty: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	good := build(1, hdr("<i4", false, "(2,)"), i32s(1, 2))
	hlen := func(b []byte, n uint16) []byte {
		b = slices.Clone(b)
		binary.LittleEndian.PutUint16(b[8:], n)
		return b
	}
	cases := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"empty", nil, "bad magic"},
		{"magic", append([]byte("\x93NUMPX"), good[6:]...), "bad magic"},
		{"version", append([]byte("\x93NUMPY\x04\x00"), good[8:]...), "version 4.0"},
		{"header-too-long", hlen(good, 9999), "header length 9999"},
		{"header-cut", hlen(good, 20), "header"},
		{"object", build(1, hdr("|O", false, "(15,)"), make([]byte, 40)), "object array"},
		{"big-endian", build(1, hdr(">i4", false, "(2,)"), i32s(1, 2)), "big-endian"},
		{"complex", build(1, hdr("<c8", false, "(1,)"), make([]byte, 8)), "not supported"},
		{"structured", build(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", i32s(1)), "structured"},
		{"fortran-2d", build(1, hdr("<i4", true, "(2, 2)"), i32s(1, 2, 3, 4)), "fortran_order True"},
		{"short-data", build(1, hdr("<i4", false, "(3,)"), i32s(1, 2)), "needs 12 data bytes, have 8"},
		{"long-data", build(1, hdr("<i4", false, "(1,)"), i32s(1, 2)), "needs 4 data bytes, have 8"},
		{"huge-shape", build(1, hdr("<i4", false, "(2000000000, 2000000000, 2000000000)"), i32s(1)), "needs more than 4"},
		{"dim-overflow", build(1, hdr("<i4", false, "(99999999999,)"), nil), "too large"},
		{"negative-dim", build(1, hdr("<i4", false, "(-1,)"), nil), "non-negative"},
		{"missing-key", build(1, "{'descr': '<i4', 'shape': (1,), }", i32s(1)), "missing"},
		{"extra-key", build(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", i32s(1)), "unexpected key"},
		{"no-brace", build(1, "'descr': '<i4'", nil), "'{'"},
		{"bad-bool", build(1, "{'descr': '<i4', 'fortran_order': 0, 'shape': (1,)}", i32s(1)), "True or False"},
		{"trailing", build(1, hdr("<i4", false, "(1,)")+"x", i32s(1)), "after the closing"},
		{"non-ascii", build(1, hdr("<i4", false, "(1,)")+"\xff", i32s(1)), "not ASCII"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("parsed %+v", a)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
	if _, err := Parse(build(1, hdr("|O", false, "(1,)"), nil)); !errors.Is(err, ErrObject) {
		t.Errorf("object array: %v is not ErrObject", err)
	}
	// Conversions refuse the wrong kind.
	a, _ := Parse(build(1, hdr("<f4", false, "(1,)"), i32s(0)))
	if _, err := a.Int64s(); err == nil {
		t.Error("f4 read as ints")
	}
	if _, err := a.Strings(); err == nil {
		t.Error("f4 read as strings")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(build(1, hdr("<i4", false, "(2,)"), i32s(1, 2)))
	f.Add(build(2, hdr("<U2", false, "(1, 1)"), i32s('a', 'b')))
	f.Add(build(1, hdr("|O", false, "(1,)"), nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Parse(b)
		if err != nil {
			return
		}
		_, _ = a.Int32s()
		_, _ = a.Float32s()
		_, _ = a.Strings()
	})
}
