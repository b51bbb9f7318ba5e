// Package pickle decodes the small subset of Python-2 pickle protocol 2 that
// the Planetoid benchmark files use (see shared/data/MANIFEST.md): integers,
// byte strings, tuples, lists, dicts, collections.defaultdict, numpy arrays
// and dtypes rebuilt through numpy.core.multiarray._reconstruct, and objects
// created with NEWOBJ (scipy.sparse.csr_matrix).
//
// Nothing is ever executed: GLOBAL only names a class or function, and REDUCE
// is accepted for the three callables the format needs. The decoder is
// written for untrusted input. Every length is checked against the bytes that
// remain, so allocations are bounded by the input size, and a malformed
// stream yields an *Error naming the opcode and its offset, never a panic.
package pickle
