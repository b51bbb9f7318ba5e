//go:build !unix

package data

import (
	"errors"
	"os"
)

// mapFile is unavailable here: readNPYFile reads the file instead.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return nil, errors.New("memory mapping is not supported on this platform")
}

const canMap = false
