#!/usr/bin/env python3
"""Instructions per function from insn.c's block profile.

    profile.py BINARY LONG.prof [SHORT.prof] [TOP]

BINARY is the Go program that was run (its symbols come from `go tool nm`;
Go binaries are not position independent on linux, so the blocks'
addresses are the symbols' own). With SHORT, the profile of a shorter run
of the same command (such as 2 epochs against LONG's 12), each function's
count is LONG's minus SHORT's: the work of the epochs between them, start-up
and data loading cancelled. Prints the TOP (default 30) functions by
instructions, with their share of the total.
"""
import bisect
import subprocess
import sys


def symbols(binary):
    out = subprocess.run(["go", "tool", "nm", "-n", "-size", binary], check=True,
                         capture_output=True, text=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        f = line.split(None, 3)
        if len(f) == 4 and f[2] in "Tt":
            addrs.append(int(f[0], 16))
            names.append(f[3])
    return addrs, names


def load(path, addrs, names):
    per = {}
    with open(path) as f:
        for line in f:
            vaddr, insns, runs = line.split()
            i = bisect.bisect_right(addrs, int(vaddr, 16)) - 1
            name = names[i] if i >= 0 else "?"
            per[name] = per.get(name, 0) + int(insns) * int(runs)
    return per


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    top = 30
    if args[-1].isdigit():
        top = int(args.pop())
    addrs, names = symbols(args[0])
    per = load(args[1], addrs, names)
    if len(args) > 2:
        for name, n in load(args[2], addrs, names).items():
            per[name] = per.get(name, 0) - n
    total = sum(per.values())
    print(f"{total:,} instructions")
    for name, n in sorted(per.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{n:>16,} {100 * n / total:6.2f}%  {name}")


if __name__ == "__main__":
    main()
