package pickle

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Value is a decoded pickle value. Its dynamic type is one of:
//
//	None          Python None
//	bool          True, False
//	int64         int
//	[]byte        str (Python 2 byte string; aliases the decoded buffer)
//	Tuple         tuple
//	*List         list
//	*Dict         dict
//	*DefaultDict  collections.defaultdict
//	Global        a class or function named by GLOBAL
//	*Object       an instance made by NEWOBJ, with the state BUILD gave it
//	*Array        numpy.ndarray
//	*Dtype        numpy.dtype
//
// Lists, dicts and objects are pointers because the pickle memo shares them.
// A stream can make a list contain itself, so code that walks values must not
// recurse without a depth bound.
type Value any

// None is Python's None.
type None struct{}

// Tuple is an immutable Python tuple.
type Tuple []Value

// List is a Python list.
type List struct{ Items []Value }

// Dict is a Python dict with int or str keys, in insertion order. Setting an
// existing key replaces its value in place, as Python does.
type Dict struct {
	Keys   []Value
	Values []Value
	index  map[dictKey]int
}

// dictKey is the hashable form of a key: ints and strings only, which is all
// the Planetoid files use.
type dictKey struct {
	isStr bool
	i     int64
	s     string
}

func newDict() *Dict { return &Dict{index: map[dictKey]int{}} }

func keyOf(k Value) (dictKey, error) {
	switch k := k.(type) {
	case int64:
		return dictKey{i: k}, nil
	case bool:
		// True == 1 and False == 0 as dict keys in Python.
		if k {
			return dictKey{i: 1}, nil
		}
		return dictKey{}, nil
	case []byte:
		return dictKey{isStr: true, s: string(k)}, nil
	}
	return dictKey{}, fmt.Errorf("dict key of type %s is not supported", TypeName(k))
}

func (d *Dict) set(k, v Value) error {
	key, err := keyOf(k)
	if err != nil {
		return err
	}
	if i, ok := d.index[key]; ok {
		d.Values[i] = v
		return nil
	}
	d.index[key] = len(d.Keys)
	d.Keys = append(d.Keys, k)
	d.Values = append(d.Values, v)
	return nil
}

// Len is the number of entries.
func (d *Dict) Len() int { return len(d.Keys) }

// Get returns the value stored under the string key k.
func (d *Dict) Get(k string) (Value, bool) {
	i, ok := d.index[dictKey{isStr: true, s: k}]
	if !ok {
		return nil, false
	}
	return d.Values[i], true
}

// DefaultDict is a collections.defaultdict: a dict plus the factory that
// Python would call for missing keys (normally the global __builtin__.list).
type DefaultDict struct {
	Factory Value
	*Dict
}

// Global is a module-level name, as written by the GLOBAL opcode.
type Global struct{ Module, Name string }

func (g Global) String() string { return g.Module + "." + g.Name }

// Object is an instance created by NEWOBJ (cls.__new__(cls, *Args)) whose
// state BUILD then set (nil when there was no BUILD).
type Object struct {
	Class Global
	Args  Tuple
	State Value
}

// Dtype is a numpy dtype: Code is the type string given to numpy.dtype (such
// as "i4" or "f4") and ByteOrder the order BUILD set ('<', '>', '|', or 0 when
// the stream never set one).
type Dtype struct {
	Code      string
	ByteOrder byte
	built     bool
}

// Kind is the type letter of the dtype code: 'i', 'u', 'f' or 'b'.
func (d *Dtype) Kind() byte {
	if len(d.Code) == 0 {
		return 0
	}
	return d.Code[0]
}

// Size is the item size in bytes, or 0 when the code is not a supported
// numeric type.
func (d *Dtype) Size() int {
	if len(d.Code) < 2 {
		return 0
	}
	switch d.Code[0] {
	case 'i', 'u', 'f', 'b':
	default:
		return 0
	}
	n, err := strconv.Atoi(d.Code[1:])
	if err != nil {
		return 0
	}
	switch {
	case d.Code[0] == 'b' && n == 1,
		(d.Code[0] == 'i' || d.Code[0] == 'u') && (n == 1 || n == 2 || n == 4 || n == 8),
		d.Code[0] == 'f' && (n == 4 || n == 8):
		return n
	}
	return 0
}

func (d *Dtype) String() string {
	if d.ByteOrder == 0 {
		return d.Code
	}
	return string(d.ByteOrder) + d.Code
}

// Array is a numpy.ndarray rebuilt by _reconstruct and BUILD. Data holds the
// raw elements (aliasing the decoded buffer); its length is checked against
// Shape and the dtype's item size when BUILD runs.
type Array struct {
	Shape   []int
	Dtype   *Dtype
	Fortran bool
	Data    []byte
	built   bool
}

// Len is the number of elements.
func (a *Array) Len() int {
	if a.Dtype == nil || a.Dtype.Size() == 0 {
		return 0
	}
	return len(a.Data) / a.Dtype.Size()
}

// checkNumeric reports whether a's elements can be read as little-endian numbers.
func (a *Array) checkNumeric() error {
	if !a.built || a.Dtype == nil {
		return fmt.Errorf("ndarray was never given its contents (no BUILD)")
	}
	sz := a.Dtype.Size()
	if sz == 0 {
		return fmt.Errorf("ndarray dtype %q is not a supported numeric type", a.Dtype.Code)
	}
	if sz > 1 && a.Dtype.ByteOrder != '<' {
		return fmt.Errorf("ndarray dtype %s is not little-endian", a.Dtype)
	}
	if a.Fortran && nonUnitDims(a.Shape) > 1 {
		return fmt.Errorf("ndarray of shape %v is in Fortran order", a.Shape)
	}
	return nil
}

func nonUnitDims(shape []int) int {
	n := 0
	for _, d := range shape {
		if d != 1 {
			n++
		}
	}
	return n
}

// Int64s returns the elements of an integer or bool array.
func (a *Array) Int64s() ([]int64, error) {
	if err := a.checkNumeric(); err != nil {
		return nil, err
	}
	b := a.Data
	out := make([]int64, a.Len())
	switch a.Dtype.Code {
	case "i1":
		for i := range out {
			out[i] = int64(int8(b[i]))
		}
	case "u1", "b1":
		for i := range out {
			out[i] = int64(b[i])
		}
	case "i2":
		for i := range out {
			out[i] = int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
		}
	case "u2":
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case "i4":
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case "u4":
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case "i8":
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	case "u8":
		for i := range out {
			v := binary.LittleEndian.Uint64(b[8*i:])
			if v > math.MaxInt64 {
				return nil, fmt.Errorf("element %d = %d overflows int64", i, v)
			}
			out[i] = int64(v)
		}
	default:
		return nil, fmt.Errorf("ndarray dtype %s is not an integer type", a.Dtype)
	}
	return out, nil
}

// Int32s returns the elements of an integer array, which must all fit in int32.
func (a *Array) Int32s() ([]int32, error) {
	if err := a.checkNumeric(); err != nil {
		return nil, err
	}
	if a.Dtype.Code == "i4" { // the common case, without the int64 detour
		b := a.Data
		out := make([]int32, a.Len())
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
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

// Float32s returns the elements of a float array (f8 is rounded to float32).
func (a *Array) Float32s() ([]float32, error) {
	if err := a.checkNumeric(); err != nil {
		return nil, err
	}
	b := a.Data
	out := make([]float32, a.Len())
	switch a.Dtype.Code {
	case "f4":
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case "f8":
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
	default:
		return nil, fmt.Errorf("ndarray dtype %s is not a float type", a.Dtype)
	}
	return out, nil
}

// TypeName is the Python-side name of v's type, for messages.
func TypeName(v Value) string {
	switch v := v.(type) {
	case None:
		return "None"
	case bool:
		return "bool"
	case int64:
		return "int"
	case []byte:
		return "str"
	case Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Dict:
		return "dict"
	case *DefaultDict:
		return "defaultdict"
	case Global:
		return "global " + v.String()
	case *Object:
		return v.Class.String()
	case *Array:
		return "numpy.ndarray"
	case *Dtype:
		return "numpy.dtype"
	}
	return fmt.Sprintf("%T", v)
}
