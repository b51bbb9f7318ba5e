#include "textflag.h"

// func cpuPause(n int)
TEXT ·cpuPause(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
pauseloop:
	PAUSE
	DECQ CX
	JNZ pauseloop
	RET
