//go:build !amd64 || noasm || gccgo || safe

package tensor

// gonumAsm is false where gonum's float32 kernels are Go loops (arm64 and
// every architecture but amd64, or gonum's noasm or safe tag).
const gonumAsm = false
