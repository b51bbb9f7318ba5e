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
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t count;

/* Each translated block adds its length to the counter every time it runs. */
static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &count, qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *unused)
{
    char line[64];
    snprintf(line, sizeof line, "insns %llu\n", (unsigned long long)count);
    qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
