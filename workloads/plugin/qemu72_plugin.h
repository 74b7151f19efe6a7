/* qemu72_plugin.h - the part of QEMU 7.2's TCG plugin API (API version 1) that
 * etmtrace.c uses, declared by hand because Debian ships no qemu-plugin.h.
 *
 * These declarations follow the documented plugin interface of QEMU 7.2
 * (docs/devel/tcg-plugins.rst, include/qemu/qemu-plugin.h of that release).
 * QEMU loads a plugin only if it exports `qemu_plugin_version` within the
 * range the emulator supports (7.2: 0 to 1) and `qemu_plugin_install`.
 */
#ifndef QEMU72_PLUGIN_H
#define QEMU72_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };

struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;
typedef uint32_t qemu_plugin_meminfo_t;

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
                                          void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);

/* ---- Internals of qemu-system-arm that Debian's binary exports ---------------
 * The 7.2 plugin API cannot read registers or memory. Debian links
 * qemu-system-arm with its internal symbols visible, so the plugin calls these
 * three directly (checked with `nm -D /usr/bin/qemu-system-arm`). They tie the
 * plugin to QEMU 7.2's ABI: the CMake build checks that the symbols are there. */
typedef struct CPUState CPUState;
typedef struct {
    uint8_t *data;
    unsigned int len;
} GByteArray; /* glib's GByteArray: guint8 *data; guint len */
CPUState *qemu_get_cpu(int index);
int arm_cpu_gdb_read_register(CPUState *cs, GByteArray *buf, int n); /* appends the register's bytes */
int cpu_memory_rw_debug(CPUState *cpu, uint64_t addr, void *ptr, size_t len, bool is_write);
GByteArray *g_byte_array_new(void);
GByteArray *g_byte_array_set_size(GByteArray *array, unsigned int length);

#endif
