/* etmtrace.c - a QEMU 7.2 TCG plugin that writes what a Cortex-M3 executes, for
 * the ETM model's end-to-end tests: every instruction with its address, opcode
 * and the xPSR before it, the registers its flow or timing depends on, and every
 * memory access with its value. Format: qtrace_format.h.
 *
 *   qemu-system-arm -M lm3s6965evb ... -singlestep -icount shift=3,sleep=off \
 *       -plugin libetmtrace.so,out=FILE[,flush=on]
 *
 * flush=on writes each instruction's record through at once, for a reader that
 * stops QEMU (its gdb stub) and must see everything executed so far.
 *
 * -singlestep is required: QEMU 7.2 does not bring the CPU state up to date for
 * plugin callbacks inside a translation block, so the xPSR read here is only the
 * state before this instruction when every block holds one instruction.
 *
 * The plugin only observes. It keeps no state between callbacks except its
 * output stream; the recorder derives everything else (workloads/recorder).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/thumb.h"
#include "qemu72_plugin.h"
#include "qtrace_format.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

/* Per translated instruction: what the execution callback writes. */
typedef struct insn_info {
    uint32_t pc, opcode;
    uint8_t size, nval, reg[QT_MAX_VALS];
    uint8_t sleeps; /* WFI or WFE: the core may sleep for good after it */
} insn_info_t;

static FILE *out;
static GByteArray *regbuf;
static CPUState *cpu0;
static uint64_t n_insns, n_mems;
static int flush_each; /* flush=on: each instruction reaches the file at once (a reader that stops QEMU) */

static uint32_t read_reg(CPUState *cs, int n)
{
    uint32_t v = 0;
    g_byte_array_set_size(regbuf, 0);
    if (arm_cpu_gdb_read_register(cs, regbuf, n) >= 4 && regbuf->len >= 4)
        memcpy(&v, regbuf->data, 4);
    return v;
}

static CPUState *cpu_of(unsigned int vcpu)
{
    if (vcpu == 0) {
        if (!cpu0)
            cpu0 = qemu_get_cpu(0);
        return cpu0;
    }
    return qemu_get_cpu((int)vcpu);
}

static void on_insn(unsigned int vcpu, void *ud)
{
    const insn_info_t *ii = (const insn_info_t *)ud;
    CPUState *cs = cpu_of(vcpu);
    qt_insn_t r;
    memset(&r, 0, sizeof r);
    r.kind = QT_REC_INSN;
    r.size = ii->size;
    r.nval = ii->nval;
    r.regs = (uint8_t)(ii->reg[0] | ii->reg[1] << 4);
    r.pc = ii->pc;
    r.opcode = ii->opcode;
    r.xpsr = read_reg(cs, 25); /* gdb register 25: xPSR on M profile */
    for (unsigned k = 0; k < ii->nval; k++)
        r.val[k] = read_reg(cs, ii->reg[k]);
    fwrite(&r, sizeof r, 1, out);
    n_insns++;
    if (flush_each)
        fflush(out);
    /* What ran up to a sleep reaches the reader now, not when the buffer
     * fills: a core that never wakes would otherwise keep it forever. */
    if (ii->sleeps)
        fflush(out);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    (void)ud;
    qt_mem_t m;
    memset(&m, 0, sizeof m);
    m.kind = QT_REC_MEM;
    m.size = (uint8_t)(1u << qemu_plugin_mem_size_shift(info));
    m.flags = qemu_plugin_mem_is_store(info) ? QT_MEM_STORE : 0;
    m.addr = (uint32_t)vaddr;
    struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
    if (!hw || qemu_plugin_hwaddr_is_io(hw) || m.size > 8)
        m.flags |= QT_MEM_IO;
    else if (cpu_memory_rw_debug(cpu_of(vcpu), vaddr, &m.value, m.size, false) != 0)
        m.flags |= QT_MEM_IO;
    fwrite(&m, sizeof m, 1, out);
    n_mems++;
}

/* The registers an instruction's flow or timing depends on (decoded by the
 * project's Thumb-2 decoder, etm/thumb.h, as the timing model decodes it), and
 * the one a single store writes (the value of a store to a device, which QEMU
 * does not let a plugin read back). */
static void pick_regs(insn_info_t *ii)
{
    etm_thumb_insn_t t;
    uint32_t lo = ii->opcode & 0xFFFF;
    etm_thumb_decode(ii->pc, ii->opcode, ii->size, &t);
    switch ((etm_thumb_op_t)t.op) {
    case ETM_THUMB_CBZ: /* CBZ, CBNZ: Rn */
        ii->nval = 1;
        ii->reg[0] = (uint8_t)(lo & 7);
        break;
    case ETM_THUMB_BX:
    case ETM_THUMB_BLX: /* Rm */
        ii->nval = 1;
        ii->reg[0] = (uint8_t)((lo >> 3) & 15);
        break;
    case ETM_THUMB_ALU: /* ADD pc, Rm; MOV pc, Rm */
        if (t.branch != ETM_THUMB_BR_NONE && ii->size == 2) {
            ii->nval = 1;
            ii->reg[0] = (uint8_t)((lo >> 3) & 15);
        }
        break;
    case ETM_THUMB_DIV:
    case ETM_THUMB_MULL:
    case ETM_THUMB_MLAL: /* SDIV, UDIV, SMULL, UMULL, SMLAL, UMLAL: Rn, Rm (early termination) */
        ii->nval = 2;
        ii->reg[0] = (uint8_t)((ii->opcode >> 16) & 15);
        ii->reg[1] = (uint8_t)(lo & 15);
        break;
    case ETM_THUMB_STORE:
    case ETM_THUMB_STREX: /* the value stored (Rt): what a store to a device wrote */
        ii->nval = 1;
        if (ii->size == 4)
            ii->reg[0] = (uint8_t)((lo >> 12) & 15);               /* T32: hw2[15:12] */
        else if ((lo & 0xF000) == 0x9000)
            ii->reg[0] = (uint8_t)((lo >> 8) & 7);                 /* STR Rt, [sp, #imm] */
        else
            ii->reg[0] = (uint8_t)(lo & 7);                        /* the others: [2:0] */
        break;
    default:
        break;
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        insn_info_t *ii = (insn_info_t *)calloc(1, sizeof *ii);
        if (!ii)
            abort();
        const uint8_t *b = (const uint8_t *)qemu_plugin_insn_data(insn);
        size_t have = qemu_plugin_insn_size(insn);
        ii->pc = (uint32_t)qemu_plugin_insn_vaddr(insn);
        uint32_t hw1 = (uint32_t)(b[0] | b[1] << 8);
        /* The size comes from the first halfword: QEMU 7.2 also counts a halfword
         * it peeks at after a 16-bit instruction near the end of a 1 KiB page. */
        ii->size = (uint8_t)etm_thumb_size(hw1);
        if (have < ii->size) {
            fprintf(stderr, "etmtrace: instruction at 0x%08x: QEMU gave %zu bytes\n", (unsigned)ii->pc, have);
            abort();
        }
        ii->opcode = ii->size == 4 ? hw1 << 16 | (uint32_t)(b[2] | b[3] << 8) : hw1;
        pick_regs(ii);
        ii->sleeps = ii->size == 2 ? (ii->opcode == 0xBF30u || ii->opcode == 0xBF20u)
                                   : (ii->opcode == 0xF3AF8003u || ii->opcode == 0xF3AF8002u);
        /* Translations are never freed: with -singlestep there is one per
         * instruction address (plus retranslations after a cache flush). */
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_R_REGS, ii);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
    }
}

static void on_exit_(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    if (!out)
        return;
    qt_end_t e;
    memset(&e, 0, sizeof e);
    e.kind = QT_REC_END;
    e.insns = n_insns;
    e.mems = n_mems;
    fwrite(&e, sizeof e, 1, out);
    fclose(out);
    out = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "out=", 4))
            path = argv[i] + 4;
        else if (!strcmp(argv[i], "flush=on"))
            flush_each = 1;
    }
    if (!path || !info || !info->system_emulation || strcmp(info->target_name, "arm") != 0) {
        fprintf(stderr, "etmtrace: usage: -plugin libetmtrace.so,out=FILE with qemu-system-arm\n");
        return -1;
    }
    out = fopen(path, "wb");
    if (!out) {
        fprintf(stderr, "etmtrace: cannot create %s\n", path);
        return -1;
    }
    setvbuf(out, NULL, _IOFBF, 1u << 20);
    regbuf = g_byte_array_new();
    qt_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, QT_MAGIC, 8);
    h.version = QT_VERSION;
    fwrite(&h, sizeof h, 1, out);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
    return 0;
}
