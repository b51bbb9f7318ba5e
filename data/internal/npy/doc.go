// Package npy parses NumPy .npy arrays (format versions 1.0, 2.0 and 3.0)
// held in memory, as found inside .npz archives.
//
// Supported dtypes are little-endian or byte-sized integers and floats
// (<i2 <i4 <i8 <u2 <u4 <u8 |i1 |u1 |b1 <f4 <f8) and fixed-width unicode
// strings (<U n). Object arrays ('|O', pickled Python objects) are recognised
// from the header and reported with ErrObject so that callers can skip them;
// their payload is never interpreted. Parsing never panics on bad input, and
// allocations are bounded by the size of the data.
package npy
