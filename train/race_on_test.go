//go:build race

package train

// raceEnabled reports whether the race detector is on: its instrumentation
// allocates on channel operations, so allocation counts do not hold.
const raceEnabled = true
