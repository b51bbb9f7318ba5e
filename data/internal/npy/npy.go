package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrObject is returned (wrapped) by Parse for an object array, whose
// payload is a pickle this package does not read.
var ErrObject = errors.New("npy: object array (dtype |O) is not supported")

// Array is a parsed .npy array. Data aliases the parsed buffer and holds
// exactly Len()*ItemSize bytes in C order.
type Array struct {
	Descr    string // as in the header, e.g. "<f4"
	Kind     byte   // 'i', 'u', 'f', 'b' or 'U'
	ItemSize int    // bytes per element
	Shape    []int
	Fortran  bool // only for arrays with at most one dimension ≠ 1, where the order does not matter
	Data     []byte
}

const magic = "\x93NUMPY"

// Parse parses a complete .npy file held in b.
func Parse(b []byte) (*Array, error) {
	if len(b) < 10 || string(b[:6]) != magic {
		return nil, errors.New("npy: not a .npy array (bad magic)")
	}
	major := b[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, errors.New("npy: truncated header")
		}
		h := binary.LittleEndian.Uint32(b[8:12])
		if h > uint32(len(b)) {
			return nil, fmt.Errorf("npy: header length %d exceeds the %d-byte file", h, len(b))
		}
		hlen, start = int(h), 12
	default:
		return nil, fmt.Errorf("npy: format version %d.%d is not supported", major, b[7])
	}
	if hlen > len(b)-start {
		return nil, fmt.Errorf("npy: header length %d exceeds the %d bytes that follow", hlen, len(b)-start)
	}
	header := b[start : start+hlen]
	if major < 3 {
		for _, c := range header {
			if c >= 0x80 {
				return nil, errors.New("npy: header is not ASCII")
			}
		}
	} else if !utf8.Valid(header) {
		return nil, errors.New("npy: header is not UTF-8")
	}
	a, err := parseHeader(string(header))
	if err != nil {
		return nil, fmt.Errorf("npy: header %q: %w", strings.TrimSpace(string(header)), err)
	}
	if a.Kind == 'O' {
		return nil, ErrObject
	}
	data := b[start+hlen:]
	n, err := count(a.Shape, len(data))
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	if n > len(data) || n*a.ItemSize != len(data) {
		need := "more than " + strconv.Itoa(len(data))
		if n <= len(data) {
			need = strconv.Itoa(n * a.ItemSize)
		}
		return nil, fmt.Errorf("npy: array of shape %v and dtype %s needs %s data bytes, have %d", a.Shape, a.Descr, need, len(data))
	}
	a.Data = data
	return a, nil
}

// count is the product of shape, or a value > limit if it exceeds limit.
func count(shape []int, limit int) (int, error) {
	for _, d := range shape {
		if d == 0 {
			return 0, nil
		}
	}
	n := 1
	for _, d := range shape {
		n *= d // d < 2³¹ and n ≤ limit < 2⁶³/2³¹ before the multiply: no overflow
		if n > limit {
			return n, nil
		}
	}
	return n, nil
}

// parseHeader reads the Python dict literal of a .npy header.
func parseHeader(h string) (*Array, error) {
	p := &lit{s: h}
	if !p.eat('{') {
		return nil, errors.New("does not start with '{'")
	}
	a := &Array{}
	var haveDescr, haveOrder, haveShape bool
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, fmt.Errorf("key: %w", err)
		}
		if !p.eat(':') {
			return nil, fmt.Errorf("no ':' after key %q", key)
		}
		switch key {
		case "descr":
			if haveDescr {
				return nil, errors.New("descr given twice")
			}
			haveDescr = true
			if p.peek() == '[' {
				return nil, errors.New("structured dtypes are not supported")
			}
			d, err := p.str()
			if err != nil {
				return nil, fmt.Errorf("descr: %w", err)
			}
			if err := a.setDescr(d); err != nil {
				return nil, err
			}
		case "fortran_order":
			if haveOrder {
				return nil, errors.New("fortran_order given twice")
			}
			haveOrder = true
			switch {
			case p.word("True"):
				a.Fortran = true
			case p.word("False"):
			default:
				return nil, errors.New("fortran_order is not True or False")
			}
		case "shape":
			if haveShape {
				return nil, errors.New("shape given twice")
			}
			haveShape = true
			s, err := p.tuple()
			if err != nil {
				return nil, fmt.Errorf("shape: %w", err)
			}
			a.Shape = s
		default:
			return nil, fmt.Errorf("unexpected key %q", key)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return nil, errors.New("expected ',' or '}'")
			}
			break
		}
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errors.New("text after the closing '}'")
	}
	if !haveDescr || !haveOrder || !haveShape {
		return nil, errors.New("missing one of descr, fortran_order, shape")
	}
	if a.Fortran {
		nonUnit := 0
		for _, d := range a.Shape {
			if d != 1 {
				nonUnit++
			}
		}
		if nonUnit > 1 {
			return nil, fmt.Errorf("fortran_order True for shape %v is not supported", a.Shape)
		}
	}
	return a, nil
}

func (a *Array) setDescr(d string) error {
	a.Descr = d
	if len(d) < 2 {
		return fmt.Errorf("dtype %q is not supported", d)
	}
	order, kind := d[0], d[1]
	if kind == 'O' && order == '|' {
		a.Kind = 'O'
		return nil
	}
	size, err := strconv.Atoi(d[2:])
	if err != nil || size <= 0 {
		return fmt.Errorf("dtype %q is not supported", d)
	}
	switch order {
	case '<', '|':
	case '=':
		// Native order of the writer: numpy normalises it away when saving;
		// accept it only where order is meaningless.
		if size > 1 || kind == 'U' {
			return fmt.Errorf("dtype %q has unspecified byte order", d)
		}
	case '>':
		if size > 1 || kind == 'U' {
			return fmt.Errorf("big-endian dtype %q is not supported", d)
		}
	default:
		return fmt.Errorf("dtype %q has no byte-order mark", d)
	}
	ok := false
	switch kind {
	case 'i', 'u':
		ok = size == 1 || size == 2 || size == 4 || size == 8
	case 'f':
		ok = size == 4 || size == 8
	case 'b':
		ok = size == 1
	case 'U':
		ok = size <= 1<<20
		size *= 4
	}
	if !ok {
		return fmt.Errorf("dtype %q is not supported", d)
	}
	a.Kind, a.ItemSize = kind, size
	return nil
}

// lit is a cursor over a Python literal.
type lit struct {
	s string
	i int
}

func (p *lit) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *lit) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *lit) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *lit) word(w string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes (numpy never writes any).
func (p *lit) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("expected a quoted string")
	}
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", errors.New("unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+j]
	if strings.IndexByte(s, '\\') >= 0 {
		return "", errors.New("escapes in strings are not supported")
	}
	p.i += j + 2
	return s, nil
}

// tuple reads a tuple of non-negative ints, e.g. (), (5,), (2, 3) or (2L, 3L).
func (p *lit) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, errors.New("expected '('")
	}
	out := []int{}
	for {
		if p.eat(')') {
			return out, nil
		}
		p.space()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, errors.New("expected a non-negative integer")
		}
		v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || v > math.MaxInt32 {
			return nil, fmt.Errorf("dimension %s is too large", p.s[p.i:j])
		}
		if len(out) >= 32 {
			return nil, errors.New("more than 32 dimensions")
		}
		out = append(out, int(v))
		p.i = j
		if p.i < len(p.s) && p.s[p.i] == 'L' { // Python 2 long
			p.i++
		}
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, errors.New("expected ',' or ')'")
			}
			return out, nil
		}
	}
}

// Len is the number of elements.
func (a *Array) Len() int {
	if a.ItemSize == 0 {
		return 0
	}
	return len(a.Data) / a.ItemSize
}

// Int64s returns the elements of an integer or bool array.
func (a *Array) Int64s() ([]int64, error) {
	b := a.Data
	out := make([]int64, a.Len())
	switch {
	case a.Kind == 'i' && a.ItemSize == 1:
		for i := range out {
			out[i] = int64(int8(b[i]))
		}
	case (a.Kind == 'u' || a.Kind == 'b') && a.ItemSize == 1:
		for i := range out {
			out[i] = int64(b[i])
		}
	case a.Kind == 'i' && a.ItemSize == 2:
		for i := range out {
			out[i] = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		}
	case a.Kind == 'u' && a.ItemSize == 2:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case a.Kind == 'i' && a.ItemSize == 4:
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case a.Kind == 'u' && a.ItemSize == 4:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case a.Kind == 'i' && a.ItemSize == 8:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case a.Kind == 'u' && a.ItemSize == 8:
		for i := range out {
			v := binary.LittleEndian.Uint64(b[8*i:])
			if v > math.MaxInt64 {
				return nil, fmt.Errorf("element %d = %d overflows int64", i, v)
			}
			out[i] = int64(v)
		}
	default:
		return nil, fmt.Errorf("dtype %s is not an integer type", a.Descr)
	}
	return out, nil
}

// Int32s returns the elements of an integer array; each must fit in int32.
func (a *Array) Int32s() ([]int32, error) {
	b := a.Data
	switch {
	case a.Kind == 'i' && a.ItemSize == 4:
		out := make([]int32, a.Len())
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out, nil
	case a.Kind == 'i' && a.ItemSize == 8:
		out := make([]int32, a.Len())
		for i := range out {
			v := int64(binary.LittleEndian.Uint64(b[8*i:]))
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, fmt.Errorf("element %d = %d overflows int32", i, v)
			}
			out[i] = int32(v)
		}
		return out, nil
	}
	v, err := a.Int64s()
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(v))
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, fmt.Errorf("element %d = %d overflows int32", i, x)
		}
		out[i] = int32(x)
	}
	return out, nil
}

// Float32s returns the elements as float32: floats (f8 rounded) or integers.
func (a *Array) Float32s() ([]float32, error) {
	b := a.Data
	switch {
	case a.Kind == 'f' && a.ItemSize == 4:
		out := make([]float32, a.Len())
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out, nil
	case a.Kind == 'f' && a.ItemSize == 8:
		out := make([]float32, a.Len())
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
		return out, nil
	}
	v, err := a.Int64s()
	if err != nil {
		return nil, fmt.Errorf("dtype %s is not numeric", a.Descr)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out, nil
}

// Strings returns the elements of a fixed-width unicode (<U n) array, with
// the NUL padding removed.
func (a *Array) Strings() ([]string, error) {
	if a.Kind != 'U' {
		return nil, fmt.Errorf("dtype %s is not a unicode string type", a.Descr)
	}
	out := make([]string, a.Len())
	var sb strings.Builder
	for i := range out {
		item := a.Data[i*a.ItemSize : (i+1)*a.ItemSize]
		sb.Reset()
		for j := 0; j+4 <= len(item); j += 4 {
			r := rune(binary.LittleEndian.Uint32(item[j:]))
			if r == 0 {
				break
			}
			if !utf8.ValidRune(r) {
				return nil, fmt.Errorf("element %d holds invalid code point %#x", i, uint32(r))
			}
			sb.WriteRune(r)
		}
		out[i] = sb.String()
	}
	return out, nil
}
