package checkpoint

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// The safetensors layout (the format of Hugging Face's safetensors
// library, which PyTorch, NumPy and Rust tools read): an 8-byte
// little-endian header length N, N bytes of a UTF-8 JSON object, then the
// tensors' bytes. The JSON maps each tensor's name to its "dtype", "shape"
// (outermost first) and "data_offsets" ([begin, end) in the byte buffer
// after the header); the optional "__metadata__" maps strings to strings.
// The tensors cover the buffer exactly, without gaps or overlaps, in
// little-endian C order. This package writes only F32 tensors and pads the
// header with spaces so that the buffer starts 8-byte aligned.

// maxHeader bounds the JSON header, as the reference implementation does.
const maxHeader = 100 << 20

// stTensor is one named float32 tensor of a safetensors file.
type stTensor struct {
	name  string
	shape []int
	data  []float32
}

type tensorInfo struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// encode lays out meta and ts (in order) as a safetensors file.
func encode(meta map[string]string, ts []stTensor) ([]byte, error) {
	header := map[string]any{}
	if len(meta) > 0 {
		header["__metadata__"] = meta
	}
	var off int64
	for _, t := range ts {
		if t.name == "" || t.name == "__metadata__" || header[t.name] != nil {
			return nil, fmt.Errorf("tensor name %q empty, reserved or repeated", t.name)
		}
		if n := elements(t.shape); n != len(t.data) {
			return nil, fmt.Errorf("tensor %s: shape %v holds %d values, not %d", t.name, t.shape, n, len(t.data))
		}
		end := off + 4*int64(len(t.data))
		header[t.name] = tensorInfo{DType: "F32", Shape: t.shape, DataOffsets: [2]int64{off, end}}
		off = end
	}
	js, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	if pad := (8 - len(js)%8) % 8; pad > 0 {
		js = append(js, bytes.Repeat([]byte{' '}, pad)...)
	}
	out := make([]byte, 8, 8+len(js)+int(off))
	binary.LittleEndian.PutUint64(out, uint64(len(js)))
	out = append(out, js...)
	for _, t := range ts {
		for _, x := range t.data {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
		}
	}
	return out, nil
}

func elements(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt32/d) {
			return -1
		}
		n *= d
	}
	return n
}

// errFormat is wrapped by every error of decode: the bytes are not a
// well-formed safetensors file of float32 tensors.
var errFormat = errors.New("not a valid safetensors file")

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errFormat, fmt.Sprintf(format, args...))
}

// decode parses a safetensors file of F32 tensors, checking every length
// and offset before use. The tensors come back in buffer order.
func decode(b []byte) (map[string]string, []stTensor, error) {
	if len(b) < 8 {
		return nil, nil, formatErr("%d bytes, shorter than the 8-byte header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > maxHeader || n > uint64(len(b)-8) {
		return nil, nil, formatErr("header length %d, but the file has %d bytes after it", n, len(b)-8)
	}
	js, buf := b[8:8+n], b[8+n:]
	if !utf8.Valid(js) {
		return nil, nil, formatErr("the header is not UTF-8")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, nil, formatErr("header: %v", err)
	}
	var meta map[string]string
	var ts []stTensor
	var offs [][2]int64
	for name, v := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(v, &meta); err != nil {
				return nil, nil, formatErr("__metadata__ is not an object of strings: %v", err)
			}
			continue
		}
		var info tensorInfo
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&info); err != nil {
			return nil, nil, formatErr("tensor %q: %v", name, err)
		}
		if info.DType != "F32" {
			return nil, nil, formatErr("tensor %q has dtype %q; prcaps checkpoints hold F32 only", name, info.DType)
		}
		cnt := elements(info.Shape)
		lo, hi := info.DataOffsets[0], info.DataOffsets[1]
		if cnt < 0 || lo < 0 || hi < lo || hi > int64(len(buf)) || hi-lo != 4*int64(cnt) {
			return nil, nil, formatErr("tensor %q: shape %v and offsets [%d, %d) do not fit a buffer of %d bytes",
				name, info.Shape, lo, hi, len(buf))
		}
		t := stTensor{name: name, shape: info.Shape, data: make([]float32, cnt)}
		for i := range t.data {
			t.data[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[lo+4*int64(i):]))
		}
		ts = append(ts, t)
		offs = append(offs, info.DataOffsets)
	}
	// The tensors must tile the buffer: sorted by offset, each starts where
	// the previous ends, and the last ends at the end of the file.
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { // by start, empty tensors first
		return cmp.Or(cmp.Compare(offs[i][0], offs[j][0]), cmp.Compare(offs[i][1], offs[j][1]))
	})
	var at int64
	sorted := make([]stTensor, len(ts))
	for k, i := range order {
		if offs[i][0] != at {
			return nil, nil, formatErr("tensor %q starts at byte %d of the buffer, not %d (a gap or an overlap)", ts[i].name, offs[i][0], at)
		}
		at = offs[i][1]
		sorted[k] = ts[i]
	}
	if at != int64(len(buf)) {
		return nil, nil, formatErr("the tensors end at byte %d of a %d-byte buffer", at, len(buf))
	}
	return meta, sorted, nil
}
