//go:build !linux

package tensor

// adviseHuge does nothing outside Linux (see Make).
func adviseHuge[E any](b []E) {}
