/*
 * insn.c: a QEMU TCG plugin that counts the guest instructions a qemu-user
 * process executes, for comparing builds on an architecture this machine
 * can only emulate (arm64). An instruction count is not time: it says
 * nothing of how many instructions a real core retires per cycle.
 *
 * The few declarations it needs from QEMU's qemu-plugin.h (plugin API
 * version 1, QEMU 7.2) are written out, so that it builds with gcc alone:
 *   gcc -O2 -shared -fPIC -o libinsn.so insn.c
 *   qemu-aarch64 -plugin ./libinsn.so -d plugin PROGRAM ARGS...
 * prints "insns N" on standard error at exit. The count is one counter
 * added to by every guest thread without synchronisation, so run the
 * program on one thread (GOMAXPROCS=1 for Go) to keep it exact.
 *
 * With -plugin ./libinsn.so,prof=FILE it also writes, for every translated
 * block, "ADDRESS INSTRUCTIONS EXECUTIONS" (hexadecimal address) to FILE at
 * exit: profile.py turns that into instructions per function.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t count;

/* The blocks of the profile, in the order they were translated (QEMU
 * translates one block at a time, under its own lock). */
struct block {
    uint64_t vaddr, insns, runs;
};
static struct block **blocks;
static size_t nblocks, capblocks;
static const char *prof;

/* Each translated block adds its length to the counter every time it runs
 * and, for the profile, one to its own count of runs. */
static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, n);
    if (prof == NULL) {
        return;
    }
    if (nblocks == capblocks) {
        capblocks = capblocks ? 2 * capblocks : 4096;
        blocks = realloc(blocks, capblocks * sizeof *blocks);
        if (blocks == NULL) {
            abort();
        }
    }
    struct block *b = calloc(1, sizeof *b);
    if (b == NULL) {
        abort();
    }
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    b->insns = n;
    blocks[nblocks++] = b;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->runs, 1);
}

static void at_exit(qemu_plugin_id_t id, void *unused)
{
    char line[64];
    snprintf(line, sizeof line, "insns %llu\n", (unsigned long long)count);
    qemu_plugin_outs(line);
    if (prof == NULL) {
        return;
    }
    FILE *f = fopen(prof, "w");
    if (f == NULL) {
        qemu_plugin_outs("insn: cannot write the profile\n");
        return;
    }
    for (size_t i = 0; i < nblocks; i++) {
        if (blocks[i]->runs) {
            fprintf(f, "%llx %llu %llu\n", (unsigned long long)blocks[i]->vaddr,
                    (unsigned long long)blocks[i]->insns, (unsigned long long)blocks[i]->runs);
        }
    }
    fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "prof=", 5) == 0) {
            prof = argv[i] + 5;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
