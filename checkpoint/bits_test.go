package checkpoint_test

import "math"

func mathBits(x float32) uint32 { return math.Float32bits(x) }
