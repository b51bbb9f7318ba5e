package pickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Limits that keep a hostile stream from using much memory. Real Planetoid
// files stay far below them (PubMed's graph memoises about 20,000 lists and
// the stack never holds more than one SETITEMS batch of 1,000 pairs).
const (
	MaxMemo  = 1 << 22 // distinct memo slots
	MaxStack = 1 << 22 // values on the stack (plus marks)
)

// Opcodes of the supported subset.
const (
	opMark          = '('
	opStop          = '.'
	opBinInt        = 'J'
	opBinInt1       = 'K'
	opBinInt2       = 'M'
	opNone          = 'N'
	opReduce        = 'R'
	opBinString     = 'T'
	opShortBinStr   = 'U'
	opAppend        = 'a'
	opBuild         = 'b'
	opGlobal        = 'c'
	opAppends       = 'e'
	opBinGet        = 'h'
	opLongBinGet    = 'j'
	opEmptyList     = ']'
	opBinPut        = 'q'
	opLongBinPut    = 'r'
	opSetItem       = 's'
	opTuple         = 't'
	opSetItems      = 'u'
	opEmptyDict     = '}'
	opEmptyTuple    = ')'
	opProto         = 0x80
	opNewObj        = 0x81
	opTuple1        = 0x85
	opTuple2        = 0x86
	opTuple3        = 0x87
	opNewTrue       = 0x88
	opNewFalse      = 0x89
	supportedProto  = 2
	maxGlobalLength = 1024
	memoSlack       = 16 // largest forward jump in memo indices kept in the slice
)

var opNames = map[byte]string{
	opMark: "MARK", opStop: "STOP", opBinInt: "BININT", opBinInt1: "BININT1", opBinInt2: "BININT2",
	opNone: "NONE", opReduce: "REDUCE", opBinString: "BINSTRING", opShortBinStr: "SHORT_BINSTRING",
	opAppend: "APPEND", opBuild: "BUILD", opGlobal: "GLOBAL", opAppends: "APPENDS", opBinGet: "BINGET",
	opLongBinGet: "LONG_BINGET", opEmptyList: "EMPTY_LIST", opBinPut: "BINPUT", opLongBinPut: "LONG_BINPUT",
	opSetItem: "SETITEM", opTuple: "TUPLE", opSetItems: "SETITEMS", opEmptyDict: "EMPTY_DICT",
	opEmptyTuple: "EMPTY_TUPLE", opProto: "PROTO", opNewObj: "NEWOBJ", opTuple1: "TUPLE1",
	opTuple2: "TUPLE2", opTuple3: "TUPLE3", opNewTrue: "NEWTRUE", opNewFalse: "NEWFALSE",
}

// otherOpNames names the standard opcodes outside the subset, for messages.
var otherOpNames = map[byte]string{
	'0': "POP", '1': "POP_MARK", '2': "DUP", 'F': "FLOAT", 'I': "INT", 'L': "LONG", 'P': "PERSID",
	'Q': "BINPERSID", 'S': "STRING", 'V': "UNICODE", 'X': "BINUNICODE", 'd': "DICT", 'g': "GET",
	'i': "INST", 'l': "LIST", 'o': "OBJ", 'p': "PUT", 'G': "BINFLOAT", 0x82: "EXT1", 0x83: "EXT2",
	0x84: "EXT4", 0x8a: "LONG1", 0x8b: "LONG4", 'B': "BINBYTES", 'C': "SHORT_BINBYTES",
	0x8c: "SHORT_BINUNICODE", 0x8d: "BINUNICODE8", 0x8e: "BINBYTES8", 0x8f: "EMPTY_SET",
	0x90: "ADDITEMS", 0x91: "FROZENSET", 0x92: "NEWOBJ_EX", 0x93: "STACK_GLOBAL", 0x94: "MEMOIZE",
	0x95: "FRAME", 0x96: "BYTEARRAY8", 0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER",
}

// Error is a decoding failure at byte Offset of the stream, in the opcode Op
// (the byte at Offset), or at the end of the data when AtEnd is set.
type Error struct {
	Offset int
	Op     byte
	AtEnd  bool
	Msg    string
}

func (e *Error) Error() string {
	if e.AtEnd {
		return fmt.Sprintf("pickle: offset %d: %s", e.Offset, e.Msg)
	}
	name, ok := opNames[e.Op]
	if !ok {
		name, ok = otherOpNames[e.Op]
	}
	if !ok {
		name = "unknown opcode"
	}
	return fmt.Sprintf("pickle: offset %d: %s (0x%02x): %s", e.Offset, name, e.Op, e.Msg)
}

// decoder is the pickle virtual machine, restricted to the subset.
type decoder struct {
	b     []byte
	pos   int // next byte to read
	stack []Value
	marks []int // stack heights at each MARK
	// The memo: pickle writers number entries 0, 1, 2, ..., so a slice
	// serves them; out-of-sequence indices go to the map.
	memo      []Value
	memoOther map[uint32]Value
}

// Decode decodes one protocol-2 pickle that must fill b exactly: a stream
// that does not start with PROTO 2, uses an opcode outside the subset, or has
// bytes after STOP is an error. Byte strings in the result alias b.
func Decode(b []byte) (Value, error) {
	d := &decoder{b: b}
	return d.run()
}

func (d *decoder) run() (Value, error) {
	if len(d.b) < 2 || d.b[0] != opProto {
		op := byte(0)
		if len(d.b) > 0 {
			op = d.b[0]
		}
		return nil, &Error{Offset: 0, Op: op, AtEnd: len(d.b) == 0, Msg: "not a protocol-2 pickle (it must start with PROTO 2, bytes 80 02)"}
	}
	for {
		if d.pos >= len(d.b) {
			return nil, &Error{Offset: d.pos, AtEnd: true, Msg: "unexpected end of data (truncated file, no STOP)"}
		}
		at, op := d.pos, d.b[d.pos]
		d.pos++
		done, err := d.step(op)
		if err != nil {
			return nil, &Error{Offset: at, Op: op, Msg: err.Error()}
		}
		if done {
			if len(d.marks) != 0 {
				return nil, &Error{Offset: at, Op: op, Msg: "MARK without matching TUPLE/APPENDS/SETITEMS"}
			}
			if len(d.stack) != 1 {
				return nil, &Error{Offset: at, Op: op, Msg: fmt.Sprintf("stack holds %d values at STOP, want 1", len(d.stack))}
			}
			if d.pos != len(d.b) {
				return nil, &Error{Offset: at, Op: op, Msg: fmt.Sprintf("%d bytes of trailing data after STOP", len(d.b)-d.pos)}
			}
			return d.stack[0], nil
		}
	}
}

// take returns the next n bytes of the stream.
func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.pos {
		return nil, fmt.Errorf("unexpected end of data: needs %d bytes but only %d remain", n, len(d.b)-d.pos)
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s, nil
}

func (d *decoder) push(v Value) error {
	if len(d.stack) >= MaxStack {
		return fmt.Errorf("stack deeper than %d", MaxStack)
	}
	d.stack = append(d.stack, v)
	return nil
}

// pop removes the top value; it refuses to pop across a MARK.
func (d *decoder) pop() (Value, error) {
	floor := 0
	if len(d.marks) > 0 {
		floor = d.marks[len(d.marks)-1]
	}
	if len(d.stack) <= floor {
		return nil, fmt.Errorf("stack underflow")
	}
	v := d.stack[len(d.stack)-1]
	d.stack[len(d.stack)-1] = nil
	d.stack = d.stack[:len(d.stack)-1]
	return v, nil
}

func (d *decoder) top() (Value, error) {
	floor := 0
	if len(d.marks) > 0 {
		floor = d.marks[len(d.marks)-1]
	}
	if len(d.stack) <= floor {
		return nil, fmt.Errorf("stack underflow")
	}
	return d.stack[len(d.stack)-1], nil
}

// popMark removes and returns the values pushed since the last MARK.
func (d *decoder) popMark() ([]Value, error) {
	if len(d.marks) == 0 {
		return nil, fmt.Errorf("no MARK on the stack")
	}
	m := d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	items := make([]Value, len(d.stack)-m)
	copy(items, d.stack[m:])
	clear(d.stack[m:])
	d.stack = d.stack[:m]
	return items, nil
}

func (d *decoder) put(idx uint32) error {
	v, err := d.top()
	if err != nil {
		return err
	}
	switch {
	case uint64(idx) < uint64(len(d.memo)):
		d.memo[idx] = v
		return nil
	case len(d.memo)+len(d.memoOther) >= MaxMemo:
		return fmt.Errorf("more than %d memo entries", MaxMemo)
	case uint64(idx) < uint64(len(d.memo))+memoSlack:
		// Sequential numbering, possibly from 1 (cPickle) or with small
		// gaps; holes stay nil, which no decoded value is.
		for uint64(len(d.memo)) < uint64(idx) {
			d.memo = append(d.memo, nil)
		}
		d.memo = append(d.memo, v)
	default:
		if d.memoOther == nil {
			d.memoOther = map[uint32]Value{}
		}
		d.memoOther[idx] = v
	}
	return nil
}

func (d *decoder) get(idx uint32) error {
	if uint64(idx) < uint64(len(d.memo)) && d.memo[idx] != nil {
		return d.push(d.memo[idx])
	}
	v, ok := d.memoOther[idx]
	if !ok {
		return fmt.Errorf("memo index %d was never stored", idx)
	}
	return d.push(v)
}

func (d *decoder) step(op byte) (stop bool, err error) {
	switch op {
	case opProto:
		b, err := d.take(1)
		if err != nil {
			return false, err
		}
		if b[0] != supportedProto {
			return false, fmt.Errorf("protocol %d, only protocol %d is supported", b[0], supportedProto)
		}
		if d.pos != 2 {
			return false, fmt.Errorf("PROTO after the start of the stream")
		}
		return false, nil
	case opStop:
		return true, nil
	case opMark:
		if len(d.marks) >= MaxStack {
			return false, fmt.Errorf("more than %d nested MARKs", MaxStack)
		}
		d.marks = append(d.marks, len(d.stack))
		return false, nil
	case opNone:
		return false, d.push(None{})
	case opNewTrue:
		return false, d.push(true)
	case opNewFalse:
		return false, d.push(false)
	case opBinInt:
		b, err := d.take(4)
		if err != nil {
			return false, err
		}
		return false, d.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case opBinInt1:
		b, err := d.take(1)
		if err != nil {
			return false, err
		}
		return false, d.push(int64(b[0]))
	case opBinInt2:
		b, err := d.take(2)
		if err != nil {
			return false, err
		}
		return false, d.push(int64(binary.LittleEndian.Uint16(b)))
	case opShortBinStr:
		n, err := d.take(1)
		if err != nil {
			return false, err
		}
		s, err := d.take(int(n[0]))
		if err != nil {
			return false, err
		}
		return false, d.push(s)
	case opBinString:
		n, err := d.take(4)
		if err != nil {
			return false, err
		}
		l := int32(binary.LittleEndian.Uint32(n))
		if l < 0 {
			return false, fmt.Errorf("negative string length %d", l)
		}
		s, err := d.take(int(l))
		if err != nil {
			return false, err
		}
		return false, d.push(s)
	case opEmptyTuple:
		return false, d.push(Tuple{})
	case opEmptyList:
		return false, d.push(&List{})
	case opEmptyDict:
		return false, d.push(newDict())
	case opTuple:
		items, err := d.popMark()
		if err != nil {
			return false, err
		}
		return false, d.push(Tuple(items))
	case opTuple1, opTuple2, opTuple3:
		n := int(op - opTuple1 + 1)
		t := make(Tuple, n)
		for i := n - 1; i >= 0; i-- {
			if t[i], err = d.pop(); err != nil {
				return false, err
			}
		}
		return false, d.push(t)
	case opBinPut:
		b, err := d.take(1)
		if err != nil {
			return false, err
		}
		return false, d.put(uint32(b[0]))
	case opLongBinPut:
		b, err := d.take(4)
		if err != nil {
			return false, err
		}
		return false, d.put(binary.LittleEndian.Uint32(b))
	case opBinGet:
		b, err := d.take(1)
		if err != nil {
			return false, err
		}
		return false, d.get(uint32(b[0]))
	case opLongBinGet:
		b, err := d.take(4)
		if err != nil {
			return false, err
		}
		return false, d.get(binary.LittleEndian.Uint32(b))
	case opGlobal:
		mod, err := d.line()
		if err != nil {
			return false, err
		}
		name, err := d.line()
		if err != nil {
			return false, err
		}
		return false, d.push(Global{Module: mod, Name: name})
	case opAppend:
		v, err := d.pop()
		if err != nil {
			return false, err
		}
		t, err := d.top()
		if err != nil {
			return false, err
		}
		l, ok := t.(*List)
		if !ok {
			return false, fmt.Errorf("APPEND to a %s, want a list", TypeName(t))
		}
		l.Items = append(l.Items, v)
		return false, nil
	case opAppends:
		items, err := d.popMark()
		if err != nil {
			return false, err
		}
		t, err := d.top()
		if err != nil {
			return false, err
		}
		l, ok := t.(*List)
		if !ok {
			return false, fmt.Errorf("APPENDS to a %s, want a list", TypeName(t))
		}
		l.Items = append(l.Items, items...)
		return false, nil
	case opSetItem:
		v, err := d.pop()
		if err != nil {
			return false, err
		}
		k, err := d.pop()
		if err != nil {
			return false, err
		}
		return false, d.setItems([]Value{k, v})
	case opSetItems:
		items, err := d.popMark()
		if err != nil {
			return false, err
		}
		if len(items)%2 != 0 {
			return false, fmt.Errorf("odd number (%d) of keys and values", len(items))
		}
		return false, d.setItems(items)
	case opNewObj:
		args, err := d.pop()
		if err != nil {
			return false, err
		}
		cls, err := d.pop()
		if err != nil {
			return false, err
		}
		g, ok := cls.(Global)
		if !ok {
			return false, fmt.Errorf("class is a %s, want a global", TypeName(cls))
		}
		t, ok := args.(Tuple)
		if !ok {
			return false, fmt.Errorf("arguments are a %s, want a tuple", TypeName(args))
		}
		return false, d.push(&Object{Class: g, Args: t})
	case opReduce:
		args, err := d.pop()
		if err != nil {
			return false, err
		}
		fn, err := d.pop()
		if err != nil {
			return false, err
		}
		v, err := reduce(fn, args)
		if err != nil {
			return false, err
		}
		return false, d.push(v)
	case opBuild:
		state, err := d.pop()
		if err != nil {
			return false, err
		}
		t, err := d.top()
		if err != nil {
			return false, err
		}
		return false, build(t, state)
	}
	return false, fmt.Errorf("opcode not in the supported subset")
}

// line reads a GLOBAL operand: printable ASCII up to a newline.
func (d *decoder) line() (string, error) {
	rest := d.b[d.pos:]
	if len(rest) > maxGlobalLength {
		rest = rest[:maxGlobalLength]
	}
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		return "", fmt.Errorf("name not terminated by a newline within %d bytes", len(rest))
	}
	s := rest[:i]
	for _, c := range s {
		if c < 0x20 || c > 0x7e {
			return "", fmt.Errorf("name contains byte 0x%02x", c)
		}
	}
	d.pos += i + 1
	return string(s), nil
}

func (d *decoder) setItems(items []Value) error {
	t, err := d.top()
	if err != nil {
		return err
	}
	var dict *Dict
	switch t := t.(type) {
	case *Dict:
		dict = t
	case *DefaultDict:
		dict = t.Dict
	default:
		return fmt.Errorf("setting items of a %s, want a dict", TypeName(t))
	}
	for i := 0; i < len(items); i += 2 {
		if err := dict.set(items[i], items[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// The callables REDUCE may apply; anything else is refused.
var (
	globalReconstruct  = Global{"numpy.core.multiarray", "_reconstruct"}
	globalReconstruct2 = Global{"numpy._core.multiarray", "_reconstruct"} // numpy ≥ 2
	globalNdarray      = Global{"numpy", "ndarray"}
	globalDtype        = Global{"numpy", "dtype"}
	globalDefaultDict  = Global{"collections", "defaultdict"}
)

func reduce(fn, args Value) (Value, error) {
	g, ok := fn.(Global)
	if !ok {
		return nil, fmt.Errorf("callable is a %s, want a global", TypeName(fn))
	}
	a, ok := args.(Tuple)
	if !ok {
		return nil, fmt.Errorf("arguments are a %s, want a tuple", TypeName(args))
	}
	switch g {
	case globalReconstruct, globalReconstruct2:
		if len(a) != 3 {
			return nil, fmt.Errorf("%s takes 3 arguments, got %d", g, len(a))
		}
		if cls, ok := a[0].(Global); !ok || cls != globalNdarray {
			return nil, fmt.Errorf("%s of a %s, want numpy.ndarray", g, TypeName(a[0]))
		}
		return &Array{}, nil
	case globalDtype:
		if len(a) < 1 || len(a) > 3 {
			return nil, fmt.Errorf("numpy.dtype takes 1 to 3 arguments, got %d", len(a))
		}
		code, ok := a[0].([]byte)
		if !ok {
			return nil, fmt.Errorf("numpy.dtype of a %s, want a str", TypeName(a[0]))
		}
		return &Dtype{Code: string(code)}, nil
	case globalDefaultDict:
		if len(a) > 1 {
			return nil, fmt.Errorf("defaultdict with %d arguments, want at most 1", len(a))
		}
		dd := &DefaultDict{Factory: None{}, Dict: newDict()}
		if len(a) == 1 {
			dd.Factory = a[0]
		}
		return dd, nil
	}
	return nil, fmt.Errorf("calling %s is not supported", g)
}

func build(target, state Value) error {
	switch t := target.(type) {
	case *Dtype:
		s, ok := state.(Tuple)
		if !ok || len(s) < 2 {
			return fmt.Errorf("numpy.dtype state is a %s, want a tuple of at least 2", TypeName(state))
		}
		order, ok := s[1].([]byte)
		if !ok || len(order) != 1 {
			return fmt.Errorf("numpy.dtype byte order is not a 1-character str")
		}
		switch order[0] {
		case '<', '>', '|', '=':
		default:
			return fmt.Errorf("numpy.dtype byte order %q", order)
		}
		t.ByteOrder = order[0]
		t.built = true
		return nil
	case *Array:
		return buildArray(t, state)
	case *Object:
		if t.State != nil {
			return fmt.Errorf("%s built twice", t.Class)
		}
		t.State = state
		return nil
	}
	return fmt.Errorf("BUILD of a %s is not supported", TypeName(target))
}

// buildArray applies ndarray.__setstate__((version, shape, dtype, fortran, raw)).
func buildArray(a *Array, state Value) error {
	if a.built {
		return fmt.Errorf("numpy.ndarray built twice")
	}
	s, ok := state.(Tuple)
	if !ok || len(s) != 5 {
		return fmt.Errorf("numpy.ndarray state is a %s, want a 5-tuple", TypeName(state))
	}
	if v, ok := s[0].(int64); !ok || v != 1 {
		return fmt.Errorf("numpy.ndarray state version %v, want 1", s[0])
	}
	shape, ok := s[1].(Tuple)
	if !ok {
		return fmt.Errorf("numpy.ndarray shape is a %s, want a tuple", TypeName(s[1]))
	}
	dt, ok := s[2].(*Dtype)
	if !ok {
		return fmt.Errorf("numpy.ndarray dtype is a %s", TypeName(s[2]))
	}
	fortran, ok := s[3].(bool)
	if !ok {
		if i, isInt := s[3].(int64); isInt && (i == 0 || i == 1) {
			fortran = i == 1
		} else {
			return fmt.Errorf("numpy.ndarray fortran flag is a %s", TypeName(s[3]))
		}
	}
	raw, ok := s[4].([]byte)
	if !ok {
		return fmt.Errorf("numpy.ndarray data is a %s, want raw bytes (object arrays are not supported)", TypeName(s[4]))
	}
	size := dt.Size()
	if size == 0 {
		return fmt.Errorf("numpy.ndarray dtype %q is not supported", dt.Code)
	}
	dims := make([]int, len(shape))
	zero := false
	for i, v := range shape {
		x, ok := v.(int64)
		if !ok || x < 0 || x > math.MaxInt32 {
			return fmt.Errorf("numpy.ndarray shape entry %d is %v, want an int in [0, 2³¹)", i, v)
		}
		zero = zero || x == 0
		dims[i] = int(x)
	}
	// len(raw) < 2³¹ (BINSTRING lengths are int32) and every dim < 2³¹, so
	// the running product cannot overflow before it exceeds len(raw).
	n := 0
	if !zero {
		n = 1
		for _, x := range dims {
			n *= x
			if n > len(raw) {
				break
			}
		}
	}
	if n > len(raw) || n*size != len(raw) {
		return fmt.Errorf("numpy.ndarray of shape %v and dtype %s needs %s bytes, the data has %d",
			shapeString(shape), dt, needBytes(n, size, len(raw)), len(raw))
	}
	a.Shape, a.Dtype, a.Fortran, a.Data, a.built = dims, dt, fortran, raw, true
	return nil
}

func shapeString(t Tuple) string {
	var b bytes.Buffer
	b.WriteByte('(')
	for i, v := range t {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(')')
	return b.String()
}

func needBytes(n, size, have int) string {
	if n > have {
		return "more than " + fmt.Sprint(have)
	}
	return fmt.Sprint(n * size)
}
