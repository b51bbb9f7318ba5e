#!/bin/sh
# count.sh QEMU BINARY [TRAIN ARGS...]: guest instructions per epoch of
# `BINARY train ARGS --quiet --json` under qemu-user (QEMU: qemu-aarch64,
# qemu-x86_64, ...), as the difference between a 12-epoch and a 2-epoch run
# over 10, so that start-up and data loading cancel. One thread
# (GOMAXPROCS=1) keeps the plugin's count exact. Set EPOCHS="1 3" (and the
# divisor follows) for slower runs, QEMU_CPU to pass qemu a -cpu model
# (qemu-x86_64 7.2's default has AVX2 and FMA but no AVX-512, so an amd64
# build runs its avx2 set there). An instruction count is not time.
set -eu
qemu=$1 bin=$2
shift 2
dir=$(cd "$(dirname "$0")" && pwd)
lib=${TMPDIR:-/tmp}/prcaps-libinsn.so
gcc -O2 -shared -fPIC -o "$lib" "$dir/insn.c"
set -- ${EPOCHS:-2 12} "$@"
lo=$1 hi=$2
shift 2
run() {
	GOMAXPROCS=1 "$qemu" ${QEMU_CPU:+-cpu "$QEMU_CPU"} -plugin "$lib" -d plugin "$bin" train "$@" --quiet --json 2>&1 >/dev/null | sed -n 's/^insns //p'
}
a=$(run "$@" --epochs "$lo")
b=$(run "$@" --epochs "$hi")
echo "$bin: $a instructions at $lo epochs, $b at $hi; $(( (b - a) / (hi - lo) )) an epoch"
