/* qtrace_format.h - the binary stream the etmtrace QEMU plugin writes and the
 * recorder (workloads/recorder) reads. Host byte order (x86: little-endian).
 *
 *   header  16 bytes: "ETMQTRC1", then uint32 format version (1), uint32 0
 *   'I'     one per instruction QEMU starts, before it executes (qt_insn_t)
 *   'M'     one per memory access of that instruction, after it (qt_mem_t)
 *   'E'     end of stream, written when QEMU exits (qt_end_t)
 *
 * An 'I' record is written for every instruction QEMU begins, including one it
 * abandons and restarts (under -icount an instruction that touches a device
 * is first tried, abandoned before its access and run again) and including
 * instructions whose IT condition fails: the recorder sorts these out.
 */
#ifndef QTRACE_FORMAT_H
#define QTRACE_FORMAT_H

#include <stdint.h>

#define QT_MAGIC "ETMQTRC1"
#define QT_VERSION 1u

enum { QT_REC_INSN = 'I', QT_REC_MEM = 'M', QT_REC_END = 'E' };

/* Registers an instruction's timing or flow depends on (read before it runs):
 * CBZ/CBNZ Rn; BX/BLX Rm; MOV/ADD pc, Rm; SDIV/UDIV and the long multiplies Rn, Rm;
 * and the value a single store writes: STR, STRB, STRH, STREX Rt. */
#define QT_MAX_VALS 2

typedef struct qt_header {
    char magic[8];
    uint32_t version;
    uint32_t reserved;
} qt_header_t;

typedef struct qt_insn {
    uint8_t kind;   /* 'I' */
    uint8_t size;   /* 2 or 4 */
    uint8_t nval;   /* values in val[] */
    uint8_t regs;   /* register numbers of val[0] (bits 3:0) and val[1] (bits 7:4) */
    uint32_t pc;
    uint32_t opcode; /* 16-bit: [15:0]; 32-bit: first halfword in [31:16] */
    uint32_t xpsr;   /* before the instruction: NZCV [31:28], IPSR [8:0] (IT bits are not valid) */
    uint32_t val[QT_MAX_VALS];
} qt_insn_t;

#define QT_MEM_STORE 0x01u /* a write */
#define QT_MEM_IO    0x02u /* device memory: value not read (reading has side effects) */

typedef struct qt_mem {
    uint8_t kind;   /* 'M' */
    uint8_t size;   /* bytes: 1, 2, 4 or 8 */
    uint8_t flags;  /* QT_MEM_* */
    uint8_t pad;
    uint32_t addr;
    uint64_t value; /* the bytes at addr after the access (little-endian), 0 with QT_MEM_IO */
} qt_mem_t;

typedef struct qt_end {
    uint8_t kind;   /* 'E' */
    uint8_t pad[7];
    uint64_t insns; /* 'I' records written */
    uint64_t mems;  /* 'M' records written */
} qt_end_t;

#endif
