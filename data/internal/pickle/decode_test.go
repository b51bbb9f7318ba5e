package pickle

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// The embedded Cora files of package data, byte-identical to the published ones.
const coraDir = "../../embedded/planetoid/"

func readCora(t testing.TB, part string) []byte {
	t.Helper()
	b, err := os.ReadFile(coraDir + "ind.cora." + part)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeCora(t *testing.T) {
	for _, tc := range []struct {
		part             string
		rows, cols, nnz  int
		classes, entries int
	}{
		{part: "x", rows: 140, cols: 1433, nnz: 2647},
		{part: "tx", rows: 1000, cols: 1433, nnz: 17955},
		{part: "allx", rows: 1708, cols: 1433, nnz: 31261},
		{part: "y", rows: 140, classes: 7},
		{part: "ty", rows: 1000, classes: 7},
		{part: "ally", rows: 1708, classes: 7},
		{part: "graph", rows: 2708, entries: 10858},
	} {
		t.Run(tc.part, func(t *testing.T) {
			v, err := Decode(readCora(t, tc.part))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.cols > 0:
				m, err := AsCSR(v)
				if err != nil {
					t.Fatal(err)
				}
				if m.Rows != tc.rows || m.Cols != tc.cols || len(m.Indices) != tc.nnz || len(m.Data) != tc.nnz {
					t.Errorf("csr %d×%d nnz %d", m.Rows, m.Cols, len(m.Indices))
				}
			case tc.classes > 0:
				a, ok := v.(*Array)
				if !ok || len(a.Shape) != 2 || a.Shape[0] != tc.rows || a.Shape[1] != tc.classes || a.Dtype.String() != "<i4" {
					t.Fatalf("got %#v", v)
				}
				vals, err := a.Int32s()
				if err != nil || len(vals) != tc.rows*tc.classes {
					t.Fatal(err)
				}
			default:
				d, ok := v.(*DefaultDict)
				if !ok || d.Factory != (Global{"__builtin__", "list"}) {
					t.Fatalf("got %s", TypeName(v))
				}
				total := 0
				for i, k := range d.Keys {
					if k != int64(i) {
						t.Fatalf("key %d is %v", i, k)
					}
					total += len(d.Values[i].(*List).Items)
				}
				if d.Len() != tc.rows || total != tc.entries {
					t.Errorf("%d keys, %d entries", d.Len(), total)
				}
			}
		})
	}
}

// TestDecodePrefixes: every proper prefix of a real file is an error.
func TestDecodePrefixes(t *testing.T) {
	for _, tc := range []struct {
		part string
		step int
	}{{"y", 1}, {"x", 1}, {"ty", 3}, {"graph", 97}} {
		start := time.Now()
		b := readCora(t, tc.part)
		for n := 0; n < len(b); n += tc.step {
			if _, err := Decode(b[:n]); err == nil {
				t.Fatalf("%s: prefix of %d bytes decoded", tc.part, n)
			}
		}
		if _, err := Decode(b[:len(b)-1]); err == nil {
			t.Fatalf("%s: file without STOP decoded", tc.part)
		}
		t.Log(tc.part, time.Since(start))
	}
}

func le32(v int32) string {
	return string(binary.LittleEndian.AppendUint32(nil, uint32(v)))
}

func TestDecodeSmall(t *testing.T) {
	const p = "\x80\x02"
	ok := []struct {
		name, in string
		check    func(Value) bool
	}{
		{"none", p + "N.", func(v Value) bool { return v == None{} }},
		{"true", p + "\x88.", func(v Value) bool { return v == true }},
		{"binint", p + "J" + le32(-5) + ".", func(v Value) bool { return v == int64(-5) }},
		{"binint2", p + "M\x01\x02.", func(v Value) bool { return v == int64(0x0201) }},
		{"binstring", p + "T" + le32(3) + "abc.", func(v Value) bool { return string(v.([]byte)) == "abc" }},
		{"tuple", p + "(K\x01K\x02K\x03K\x04t.", func(v Value) bool { return len(v.(Tuple)) == 4 && v.(Tuple)[3] == int64(4) }},
		{"tuple2", p + "K\x01K\x02\x86.", func(v Value) bool { return v.(Tuple)[0] == int64(1) }},
		{"list-appends", p + "]q\x00(K\x01K\x02eK\x03a.", func(v Value) bool { return len(v.(*List).Items) == 3 }},
		{"memo-get", p + "K\x07q\x05h\x05\x86.", func(v Value) bool { return v.(Tuple)[1] == int64(7) }},
		{"long-memo", p + "K\x07r" + le32(1000) + "j" + le32(1000) + "\x86.", func(v Value) bool { return v.(Tuple)[1] == int64(7) }},
		{"dict-setitem", p + "}U\x01aK\x01s.", func(v Value) bool { x, _ := v.(*Dict).Get("a"); return x == int64(1) }},
		{"dict-overwrite", p + "}(U\x01aK\x01U\x01aK\x02u.", func(v Value) bool {
			d := v.(*Dict)
			x, _ := d.Get("a")
			return d.Len() == 1 && x == int64(2)
		}},
		{"self-list", p + "]q\x00h\x00a.", func(v Value) bool { l := v.(*List); return l.Items[0].(*List) == l }},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil && !tc.check(v) {
				t.Errorf("got %#v", v)
			}
		})
	}
	bad := []struct {
		name, in, msg string
		off           int
	}{
		{"empty", "", "protocol-2", 0},
		{"no-proto", "N.", "protocol-2", 0},
		{"proto3", "\x80\x03N.", "protocol 3", 0},
		{"proto-twice", p + "\x80\x02N.", "PROTO after", 2},
		{"unknown-op", p + "Z.", "offset 2: unknown opcode (0x5a)", 2},
		{"unsupported-op", p + "G" + strings.Repeat("\x00", 8) + ".", "BINFLOAT", 2},
		{"no-stop", p + "N", "no STOP", 3},
		{"trailing", p + "N.N", "trailing", 3},
		{"two-values", p + "NN.", "2 values", 4},
		{"empty-stack", p + ".", "0 values", 2},
		{"open-mark", p + "(N.", "MARK without", 4},
		{"underflow", p + "a.", "underflow", 2},
		{"pop-across-mark", p + "](a.", "underflow", 4},
		{"append-to-int", p + "K\x01K\x02a.", "APPEND to a int", 6},
		{"tuple-no-mark", p + "K\x01t.", "no MARK", 4},
		{"memo-missing", p + "h\x03.", "never stored", 2},
		{"memo-empty-stack", p + "q\x03.", "underflow", 2},
		{"short-string", p + "U\x05ab.", "needs 5 bytes", 2},
		{"binstring-negative", p + "T" + le32(-1) + ".", "negative string length", 2},
		{"binstring-long", p + "T" + le32(1<<30) + "abc.", "needs 1073741824 bytes", 2},
		{"binint-short", p + "J\x01\x02", "needs 4 bytes", 2},
		{"global-no-newline", p + "cos\nsystem", "not terminated", 2},
		{"global-binary", p + "cos\x01\nx\n.", "contains byte 0x01", 2},
		{"reduce-evil", p + "cos\nsystem\n(U\x02lstR.", "calling os.system is not supported", 19},
		{"reduce-args", p + "cnumpy\ndtype\nK\x01R.", "want a tuple", 17},
		{"newobj-not-global", p + "K\x01)\x81.", "want a global", 5},
		{"setitems-odd", p + "}(K\x01u.", "odd number", 6},
		{"setitems-list", p + "](K\x01K\x02u.", "want a dict", 8},
		{"unhashable-key", p + "}]K\x01s.", "dict key of type list", 6},
		{"build-int", p + "K\x01Nb.", "BUILD of a int", 5},
		{"ndarray-size", p + ndarrayPrefix + "(K\x01K\x03\x85cnumpy\ndtype\nU\x02i4K\x00K\x01\x87R(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89U\x04abcdtb.",
			"needs 12 bytes, the data has 4", -1},
		{"ndarray-dtype", p + ndarrayPrefix + "(K\x01K\x01\x85cnumpy\ndtype\nU\x02c8K\x00K\x01\x87R(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89U\x08abcdefghtb.",
			"dtype \"c8\" is not supported", -1},
		{"ndarray-object-data", p + ndarrayPrefix + "(K\x01K\x01\x85cnumpy\ndtype\nU\x02O8K\x00K\x01\x87R(K\x03U\x01|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89]tb.",
			"object arrays", -1},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode([]byte(tc.in))
			if err == nil {
				t.Fatalf("decoded %#v", v)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *Error", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			if tc.off >= 0 && pe.Offset != tc.off {
				t.Errorf("offset %d, want %d (%v)", pe.Offset, tc.off, err)
			}
		})
	}
}

const ndarrayPrefix = "cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85U\x01b\x87R"

func TestArrayConversions(t *testing.T) {
	mk := func(code string, order byte, raw []byte, shape ...int) *Array {
		return &Array{Shape: shape, Dtype: &Dtype{Code: code, ByteOrder: order, built: true}, Data: raw, built: true}
	}
	if v, err := mk("i8", '<', binary.LittleEndian.AppendUint64(nil, 1<<40), 1).Int32s(); err == nil {
		t.Errorf("i8 2^40 fits int32: %v", v)
	}
	if v, err := mk("i8", '<', binary.LittleEndian.AppendUint64(nil, 5), 1).Int32s(); err != nil || v[0] != 5 {
		t.Errorf("i8 5: %v %v", v, err)
	}
	if _, err := mk("i4", '>', []byte{0, 0, 0, 1}, 1).Int32s(); err == nil {
		t.Error("big-endian accepted")
	}
	if v, err := mk("u1", '|', []byte{200}, 1).Int64s(); err != nil || v[0] != 200 {
		t.Errorf("u1: %v %v", v, err)
	}
	if _, err := mk("f4", '<', []byte{0, 0, 0, 0}, 1).Int64s(); err == nil {
		t.Error("f4 read as int")
	}
	if v, err := mk("f8", '<', binary.LittleEndian.AppendUint64(nil, 0x3ff8000000000000), 1).Float32s(); err != nil || v[0] != 1.5 {
		t.Errorf("f8: %v %v", v, err)
	}
	a := mk("i4", '<', make([]byte, 16), 2, 2)
	a.Fortran = true
	if _, err := a.Int32s(); err == nil {
		t.Error("2-D Fortran array accepted")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(readCora(f, "y")[:600])
	f.Add([]byte("\x80\x02}(U\x01aK\x01U\x01b]q\x00h\x00au."))
	f.Add([]byte("\x80\x02" + ndarrayPrefix + "(K\x01K\x01\x85cnumpy\ndtype\nU\x02i4K\x00K\x01\x87R(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89U\x04abcdtb."))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *Error", err)
			}
			return
		}
		if a, ok := v.(*Array); ok {
			_, _ = a.Int64s()
			_, _ = a.Float32s()
		}
		_, _ = AsCSR(v)
	})
}

func BenchmarkDecodeCoraGraph(b *testing.B) {
	g := readCora(b, "graph")
	b.SetBytes(int64(len(g)))
	for b.Loop() {
		if _, err := Decode(g); err != nil {
			b.Fatal(err)
		}
	}
}
