/* cm3.c - Cortex-M3 timing model: executed instructions to ETM interface
 * signals, cycle by cycle (etm/cm3.h, docs/cm3-timing.md). */
#include "etm/cm3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- Classifier (ARMv7-M ARM, A5.2 16-bit and A5.3 32-bit encodings) -------- */

static const char *const kind_names[ETM_CM3_K_COUNT] = {
    "alu", "mul", "mla", "mull", "mlal", "div", "load", "store", "ldrd", "strd", "ldm", "stm", "bcond", "b",
    "bl", "cbz", "bx", "blx", "tb", "it", "svc", "bkpt", "hint", "barrier", "sysreg", "undef"
};

const char *etm_cm3_kind_name(etm_cm3_kind_t k)
{
    return (unsigned)k < ETM_CM3_K_COUNT ? kind_names[k] : "?";
}

static unsigned popcount16(unsigned v)
{
    unsigned n = 0;
    for (v &= 0xffffu; v; v &= v - 1)
        n++;
    return n;
}

static uint16_t bit(unsigned r) { return (uint16_t)(1u << (r & 15)); }

static void set_branch(etm_cm3_class_t *c, etm_cm3_kind_t k, int indirect, uint32_t target)
{
    c->kind = k;
    c->writes_pc = 1;
    c->indirect = indirect;
    c->target = indirect ? 0 : target;
    c->writes |= bit(15);
}

static void classify16(uint32_t addr, unsigned h, etm_cm3_class_t *c)
{
    unsigned rd8 = (h >> 8) & 7, rlo = h & 7;
    if ((h >> 14) == 0) { /* shift (immediate), add, subtract, move, compare */
        unsigned op = (h >> 11) & 7;
        if (op <= 3)
            c->writes = bit(rlo);
        else if (op != 5) /* MOV, ADD, SUB imm8; CMP writes nothing */
            c->writes = bit(rd8);
    } else if ((h >> 10) == 0x10) { /* data processing, two low registers */
        unsigned op = (h >> 6) & 15;
        if (op != 8 && op != 10 && op != 11) /* TST, CMP, CMN */
            c->writes = bit(rlo);
        if (op == 13)
            c->kind = ETM_CM3_K_MUL;
    } else if ((h >> 10) == 0x11) { /* special data processing, branch and exchange */
        unsigned op = (h >> 6) & 15, rd = ((h >> 4) & 8) | rlo;
        if (op >= 14) {
            set_branch(c, ETM_CM3_K_BLX, 1, 0);
            c->writes |= bit(14);
        } else if (op >= 12) {
            set_branch(c, ETM_CM3_K_BX, 1, 0);
        } else if (op < 4 || op >= 8) { /* ADD, MOV */
            c->writes = bit(rd);
            if (rd == 15)
                set_branch(c, ETM_CM3_K_ALU, 1, 0);
        }
    } else if ((h >> 11) == 0x09) { /* LDR (literal) */
        c->kind = ETM_CM3_K_LOAD;
        c->writes = bit(rd8);
    } else if ((h >> 12) == 0x5) { /* load/store, register offset */
        unsigned op = (h >> 9) & 7;
        c->kind = op < 3 ? ETM_CM3_K_STORE : ETM_CM3_K_LOAD;
        c->addr_regs = (uint16_t)(bit((h >> 3) & 7) | bit((h >> 6) & 7));
        if (op < 3)
            c->reg_offset = 1;
        else
            c->writes = bit(rlo);
    } else if ((h >> 13) == 0x3 || (h >> 12) == 0x8) { /* STR/LDR(B) imm5, STRH/LDRH imm5 */
        int load = (h >> 11) & 1;
        c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
        c->addr_regs = bit((h >> 3) & 7);
        if (load)
            c->writes = bit(rlo);
    } else if ((h >> 12) == 0x9) { /* STR/LDR SP-relative */
        int load = (h >> 11) & 1;
        c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
        c->addr_regs = bit(13);
        if (load)
            c->writes = bit(rd8);
    } else if ((h >> 12) == 0xA) { /* ADR, ADD Rd, SP, #imm */
        c->writes = bit(rd8);
    } else if ((h >> 12) == 0xB) { /* miscellaneous */
        if ((h & 0xFF00) == 0xB000) {
            c->writes = bit(13);
        } else if ((h & 0xF500) == 0xB100) {
            uint32_t off = ((h >> 9) & 1u) << 6 | ((h >> 3) & 0x1fu) << 1;
            set_branch(c, ETM_CM3_K_CBZ, 0, addr + 4 + off);
        } else if ((h & 0xFF00) == 0xB200 || (h & 0xFF00) == 0xBA00) { /* extend, reverse */
            c->writes = bit(rlo);
        } else if ((h & 0xFE00) == 0xB400) { /* PUSH */
            c->kind = ETM_CM3_K_STM;
            c->nregs = popcount16(h & 0xff) + ((h >> 8) & 1);
            c->addr_regs = bit(13);
            c->writes = bit(13);
        } else if ((h & 0xFFE0) == 0xB660) { /* CPS */
            c->kind = ETM_CM3_K_SYSREG;
        } else if ((h & 0xFE00) == 0xBC00) { /* POP */
            c->kind = ETM_CM3_K_LDM;
            c->nregs = popcount16(h & 0xff) + ((h >> 8) & 1);
            c->addr_regs = bit(13);
            c->writes = (uint16_t)((h & 0xff) | bit(13));
            if (h & 0x100)
                set_branch(c, ETM_CM3_K_LDM, 1, 0);
        } else if ((h & 0xFF00) == 0xBE00) {
            c->kind = ETM_CM3_K_BKPT;
        } else if ((h & 0xFF00) == 0xBF00) {
            if (h & 0xf) {
                c->kind = ETM_CM3_K_IT;
                c->it_firstcond = (h >> 4) & 15;
                c->it_mask = h & 15;
            } else {
                c->kind = ETM_CM3_K_HINT;
            }
        } else {
            c->kind = ETM_CM3_K_UNDEF;
        }
    } else if ((h >> 12) == 0xC) { /* STM, LDM */
        unsigned rn = rd8, list = h & 0xff;
        int load = (h >> 11) & 1;
        c->kind = load ? ETM_CM3_K_LDM : ETM_CM3_K_STM;
        c->nregs = popcount16(list);
        c->addr_regs = bit(rn);
        c->writes = load ? (uint16_t)list : 0;
        if (!load || !(list & (1u << rn)))
            c->writes |= bit(rn);
    } else if ((h >> 12) == 0xD) { /* B<c>, SVC, UDF */
        unsigned cond = (h >> 8) & 15;
        if (cond == 15) {
            c->kind = ETM_CM3_K_SVC;
        } else if (cond == 14) {
            c->kind = ETM_CM3_K_UNDEF;
        } else {
            int32_t off = (int32_t)(int8_t)(h & 0xff) * 2;
            set_branch(c, ETM_CM3_K_BCOND, 0, addr + 4 + (uint32_t)off);
            c->cond = cond;
        }
    } else if ((h >> 11) == 0x1C) { /* B */
        int32_t off = (int32_t)(h & 0x7ff);
        if (off & 0x400)
            off -= 0x800;
        set_branch(c, ETM_CM3_K_B, 0, addr + 4 + (uint32_t)(off * 2));
    } else {
        c->kind = ETM_CM3_K_UNDEF;
    }
}

/* B.W (T4) and BL: S:I1:I2:imm10:imm11:'0', I1 = NOT(J1 XOR S), I2 = NOT(J2 XOR S). */
static uint32_t target_t4(uint32_t addr, unsigned h1, unsigned h2)
{
    unsigned s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
    unsigned i1 = (~(j1 ^ s)) & 1, i2 = (~(j2 ^ s)) & 1;
    uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(h1 & 0x3ff) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
    if (s)
        imm |= 0xFE000000u;
    return addr + 4 + imm;
}

/* B<c>.W (T3): S:J2:J1:imm6:imm11:'0'. */
static uint32_t target_t3(uint32_t addr, unsigned h1, unsigned h2)
{
    unsigned s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
    uint32_t imm = s << 20 | j2 << 19 | j1 << 18 | (uint32_t)(h1 & 0x3f) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
    if (s)
        imm |= 0xFFE00000u;
    return addr + 4 + imm;
}

/* TST, TEQ, CMN, CMP (data processing opcodes 0, 4, 8, 13 with Rd = 15 and S = 1) write nothing. */
static int dp_is_test(unsigned op, unsigned rd, unsigned s)
{
    return rd == 15 && s && (op == 0 || op == 4 || op == 8 || op == 13);
}

static void classify32(uint32_t addr, unsigned h1, unsigned h2, etm_cm3_class_t *c)
{
    unsigned op1 = (h1 >> 11) & 3, rn = h1 & 15, rd = (h2 >> 8) & 15, rt = h2 >> 12;
    if (op1 == 1) {
        if ((h1 & 0xFE40) == 0xE800) { /* load/store multiple */
            unsigned op = (h1 >> 7) & 3, w = (h1 >> 5) & 1, load = (h1 >> 4) & 1;
            if (op != 1 && op != 2) {
                c->kind = ETM_CM3_K_UNDEF;
                return;
            }
            c->kind = load ? ETM_CM3_K_LDM : ETM_CM3_K_STM;
            c->nregs = popcount16(h2);
            c->addr_regs = bit(rn);
            c->writes = (uint16_t)((load ? h2 : 0) | (w ? bit(rn) : 0));
            if (load && (h2 & 0x8000))
                set_branch(c, ETM_CM3_K_LDM, 1, 0);
        } else if ((h1 & 0xFE40) == 0xE840) { /* dual, exclusive, table branch */
            unsigned p = (h1 >> 8) & 1, u = (h1 >> 7) & 1, w = (h1 >> 5) & 1, load = (h1 >> 4) & 1;
            c->addr_regs = bit(rn);
            if (!p && !w) {
                unsigned op3 = (h2 >> 4) & 15;
                if (!u) { /* LDREX, STREX */
                    c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
                    c->writes = load ? bit(rt) : bit(rd);
                } else if (load && op3 <= 1) { /* TBB, TBH */
                    set_branch(c, ETM_CM3_K_TB, 1, 0);
                    c->addr_regs |= bit(h2 & 15);
                } else if (op3 == 4 || op3 == 5) { /* LDREXB/H, STREXB/H */
                    c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
                    c->writes = load ? bit(rt) : bit(h2 & 15);
                } else {
                    c->kind = ETM_CM3_K_UNDEF;
                }
            } else { /* LDRD, STRD */
                c->kind = load ? ETM_CM3_K_LDRD : ETM_CM3_K_STRD;
                c->writes = (uint16_t)((load ? bit(rt) | bit(rd) : 0) | (w ? bit(rn) : 0));
            }
        } else if ((h1 & 0xFE00) == 0xEA00) { /* data processing, shifted register */
            if (!dp_is_test((h1 >> 5) & 15, rd, (h1 >> 4) & 1))
                c->writes = bit(rd);
        } else {
            c->kind = ETM_CM3_K_UNDEF; /* coprocessor */
        }
        return;
    }
    if (op1 == 2) {
        if (!(h2 & 0x8000)) { /* data processing, modified or plain immediate */
            if ((h1 & 0x0200) || !dp_is_test((h1 >> 5) & 15, rd, (h1 >> 4) & 1))
                c->writes = bit(rd);
            return;
        }
        unsigned t = h2 & 0xD000;
        if (t == 0x9000) {
            set_branch(c, ETM_CM3_K_B, 0, target_t4(addr, h1, h2));
        } else if (t == 0xD000) {
            set_branch(c, ETM_CM3_K_BL, 0, target_t4(addr, h1, h2));
            c->writes |= bit(14);
        } else if (t == 0x8000) {
            unsigned cond = (h1 >> 6) & 15;
            if ((cond & 0xE) != 0xE) {
                set_branch(c, ETM_CM3_K_BCOND, 0, target_t3(addr, h1, h2));
                c->cond = cond;
            } else if ((h1 & 0xFFE0) == 0xF380) { /* MSR */
                c->kind = ETM_CM3_K_SYSREG;
            } else if ((h1 & 0xFFF0) == 0xF3A0) { /* hints */
                c->kind = ETM_CM3_K_HINT;
            } else if ((h1 & 0xFFF0) == 0xF3B0) { /* CLREX, DSB, DMB, ISB */
                unsigned op = (h2 >> 4) & 15;
                c->kind = op >= 4 && op <= 6 ? ETM_CM3_K_BARRIER : ETM_CM3_K_HINT;
                c->wide_hint = op == 6;
            } else if ((h1 & 0xFFE0) == 0xF3E0) { /* MRS */
                c->kind = ETM_CM3_K_SYSREG;
                c->writes = bit(rd);
            } else {
                c->kind = ETM_CM3_K_UNDEF;
            }
        } else {
            c->kind = ETM_CM3_K_UNDEF; /* BLX (immediate) and UDF do not exist on ARMv7-M */
        }
        return;
    }
    /* op1 == 3 */
    if ((h1 & 0xFF10) == 0xF800 || (h1 & 0xFE10) == 0xF810) { /* store single, load single */
        int load = (h1 >> 4) & 1;
        unsigned size = (h1 >> 5) & 3;
        if (size == 3 || (!load && (h1 & 0x0100))) {
            c->kind = ETM_CM3_K_UNDEF;
            return;
        }
        if (load && rt == 15 && size != 2) { /* PLD, PLI */
            c->kind = ETM_CM3_K_HINT;
            return;
        }
        c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
        if (load)
            c->writes = bit(rt);
        if (rn != 15) {
            c->addr_regs = bit(rn);
            if (!(h1 & 0x80)) {
                if (!(h2 & 0x0FC0)) { /* register offset */
                    c->addr_regs |= bit(h2 & 15);
                    c->reg_offset = !load;
                } else if ((h2 & 0x0900) == 0x0900) { /* imm8 with writeback */
                    c->writes |= bit(rn);
                }
            }
        }
        if (load && rt == 15)
            set_branch(c, ETM_CM3_K_LOAD, 1, 0);
    } else if ((h1 & 0xFF00) == 0xFA00) { /* data processing, register */
        c->writes = bit(rd);
    } else if ((h1 & 0xFF80) == 0xFB00) { /* MUL, MLA, MLS */
        unsigned op = (h1 >> 4) & 7, op2 = (h2 >> 4) & 3;
        if (op == 0 && op2 == 0)
            c->kind = rt == 15 ? ETM_CM3_K_MUL : ETM_CM3_K_MLA;
        else if (op == 0 && op2 == 1)
            c->kind = ETM_CM3_K_MLA;
        else
            c->kind = ETM_CM3_K_UNDEF;
        c->writes = bit(rd);
    } else if ((h1 & 0xFF80) == 0xFB80) { /* long multiply, divide */
        unsigned op = (h1 >> 4) & 7;
        if (op == 1 || op == 3) {
            c->kind = ETM_CM3_K_DIV;
            c->writes = bit(rd);
        } else if (op == 0 || op == 2 || op == 4 || op == 6) {
            c->kind = op < 4 ? ETM_CM3_K_MULL : ETM_CM3_K_MLAL;
            c->writes = (uint16_t)(bit(rt) | bit(rd));
        } else {
            c->kind = ETM_CM3_K_UNDEF;
        }
    } else {
        c->kind = ETM_CM3_K_UNDEF; /* coprocessor */
    }
}

void etm_cm3_classify(uint32_t addr, uint32_t opcode, unsigned size, etm_cm3_class_t *c)
{
    memset(c, 0, sizeof *c);
    c->kind = ETM_CM3_K_ALU;
    c->size = size;
    c->cond = 14;
    if (size == 2)
        classify16(addr, opcode & 0xffff, c);
    else if (size == 4)
        classify32(addr, (opcode >> 16) & 0xffff, opcode & 0xffff, c);
    else
        c->kind = ETM_CM3_K_UNDEF;
}

int etm_cm3_cond_pass(unsigned cond, unsigned nzcv)
{
    unsigned n = (nzcv >> 3) & 1, z = (nzcv >> 2) & 1, cf = (nzcv >> 1) & 1, v = nzcv & 1;
    int r;
    switch ((cond >> 1) & 7) {
    case 0: r = z; break;            /* EQ / NE */
    case 1: r = cf; break;           /* CS / CC */
    case 2: r = n; break;            /* MI / PL */
    case 3: r = v; break;            /* VS / VC */
    case 4: r = cf && !z; break;     /* HI / LS */
    case 5: r = n == v; break;       /* GE / LT */
    case 6: r = n == v && !z; break; /* GT / LE */
    default: return 1;               /* AL (and 15, treated as always) */
    }
    return (cond & 1) ? !r : r;
}

/* ---- Text form of a record ------------------------------------------------------ */

static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#include <stdarg.h>

static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

char *etm_cm3_insn_format(const etm_cm3_insn_t *r, char *buf, size_t size)
{
    size_t n = 0;
    if (!size)
        return buf;
    buf[0] = 0;
    appendf(buf, size, &n, "%08x %u %0*x %c", (unsigned)r->addr, (unsigned)r->size, r->size == 4 ? 8 : 4,
            (unsigned)r->opcode, r->executed ? 'E' : 'N');
    if (r->branch)
        appendf(buf, size, &n, " br=%s", r->branch == ETM_CM3_BR_DIRECT ? "dir" : "ind");
    if (r->in_it)
        appendf(buf, size, &n, " it=%x", (unsigned)r->cond);
    else if (r->cond != 14)
        appendf(buf, size, &n, " c=%x", (unsigned)r->cond);
    if (r->taken)
        appendf(buf, size, &n, " tk=%08x", (unsigned)r->next);
    if (r->ipsr)
        appendf(buf, size, &n, " ipsr=%u", (unsigned)r->ipsr);
    if (r->ctx == ETM_CM3_CTX_ENTRY)
        appendf(buf, size, &n, " entry=%u%s", (unsigned)r->excnum, r->async ? "" : " sync");
    else if (r->ctx == ETM_CM3_CTX_RETURN)
        appendf(buf, size, &n, " return=%u", (unsigned)r->excnum);
    else if (r->ctx == ETM_CM3_CTX_TAILCHAIN)
        appendf(buf, size, &n, " tail=%u", (unsigned)r->excnum);
    if (r->ret_valid)
        appendf(buf, size, &n, " ret=%08x:%u:%x%s", (unsigned)r->ret_addr, (unsigned)r->ret_size,
                (unsigned)r->ret_opcode, r->ret_in_it ? ":it" : "");
    if (r->nval)
        appendf(buf, size, &n, " v=%x", (unsigned)r->val[0]);
    if (r->nval > 1)
        appendf(buf, size, &n, ",%x", (unsigned)r->val[1]);
    for (unsigned i = 0; i < r->nmem && i < ETM_CM3_MAX_MEM; i++) {
        const etm_cm3_mem_t *m = &r->mem[i];
        if (m->io)
            appendf(buf, size, &n, " %c=%08x:%u:io", m->write ? 'w' : 'r', (unsigned)m->addr, (unsigned)m->size);
        else
            appendf(buf, size, &n, " %c=%08x:%u:%llx", m->write ? 'w' : 'r', (unsigned)m->addr, (unsigned)m->size,
                    (unsigned long long)m->value);
    }
    return buf;
}

/* Hex number at *p up to a delimiter; advances *p. */
static int take_hex(const char **p, const char *delims, uint64_t *v)
{
    const char *s = *p;
    size_t n = 0;
    while (s[n] && !strchr(delims, s[n]))
        n++;
    if (etm_util_parse_hex(s, n, v) != 0)
        return -1;
    *p = s + n;
    return 0;
}

static int take_dec(const char **p, const char *delims, uint64_t *v)
{
    const char *s = *p;
    size_t n = 0;
    while (s[n] && !strchr(delims, s[n]))
        n++;
    if (etm_util_parse_dec(s, n, v) != 0)
        return -1;
    *p = s + n;
    return 0;
}

etm_err_t etm_cm3_insn_parse(const char *line, etm_cm3_insn_t *r, etm_diag_t *diag)
{
    memset(r, 0, sizeof *r);
    r->cond = 14;
    const char *p = line;
    uint64_t v;
    static const char ws[] = " \t\r\n";
    while (*p && strchr(ws, *p))
        p++;
    if (take_hex(&p, ws, &v) || v > 0xFFFFFFFFu || (v & 1))
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "the instruction address is not an even 32-bit hex number");
    r->addr = (uint32_t)v;
    while (*p && strchr(ws, *p))
        p++;
    if (take_dec(&p, ws, &v) || (v != 2 && v != 4))
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "the instruction size must be 2 or 4");
    r->size = (uint8_t)v;
    while (*p && strchr(ws, *p))
        p++;
    if (take_hex(&p, ws, &v) || v > 0xFFFFFFFFu)
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "the opcode is not a 32-bit hex number");
    r->opcode = (uint32_t)v;
    while (*p && strchr(ws, *p))
        p++;
    if ((*p != 'E' && *p != 'N') || (p[1] && !strchr(ws, p[1])))
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "the fourth field must be E (executed) or N (condition failed)");
    r->executed = *p == 'E';
    p++;
    r->next = r->addr + r->size;
    for (;;) {
        while (*p && strchr(ws, *p))
            p++;
        if (!*p || *p == '#')
            break;
        const char *key = p;
        size_t klen = 0;
        while (key[klen] && key[klen] != '=' && !strchr(ws, key[klen]))
            klen++;
        p = key + klen;
        if (*p != '=') {
            if (klen == 4 && !strncmp(key, "sync", 4) && r->ctx == ETM_CM3_CTX_ENTRY) {
                r->async = 0;
                continue;
            }
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "'%.*s': expected key=value", (int)klen, key);
        }
        p++;
#define KEY(s) (klen == sizeof(s) - 1 && !strncmp(key, s, klen))
        int bad = 0;
        if (KEY("br")) {
            bad = !(strncmp(p, "dir", 3) == 0 || strncmp(p, "ind", 3) == 0) || (p[3] && !strchr(ws, p[3]));
            r->branch = (uint8_t)(*p == 'd' ? ETM_CM3_BR_DIRECT : ETM_CM3_BR_INDIRECT);
            p += bad ? 0 : 3;
        } else if (KEY("it") || KEY("c")) {
            bad = take_hex(&p, ws, &v) || v > 15;
            r->cond = (uint8_t)v;
            r->in_it = (uint8_t)KEY("it");
        } else if (KEY("tk")) {
            bad = take_hex(&p, ws, &v) || v > 0xFFFFFFFFu;
            r->taken = 1;
            r->next = (uint32_t)v;
        } else if (KEY("ipsr")) {
            bad = take_dec(&p, ws, &v) || v > 511;
            r->ipsr = (uint16_t)v;
        } else if (KEY("entry") || KEY("return") || KEY("tail")) {
            bad = take_dec(&p, ws, &v) || v > 511;
            r->excnum = (uint16_t)v;
            r->ctx = (uint8_t)(KEY("entry") ? ETM_CM3_CTX_ENTRY : KEY("return") ? ETM_CM3_CTX_RETURN
                                                                                : ETM_CM3_CTX_TAILCHAIN);
            r->async = KEY("entry");
        } else if (KEY("ret")) {
            uint64_t a, s, o;
            bad = take_hex(&p, ":", &a) || *p++ != ':' || take_dec(&p, ":", &s) || *p++ != ':' ||
                  take_hex(&p, ": \t\r\n", &o) || (s != 2 && s != 4) || a > 0xFFFFFFFFu || o > 0xFFFFFFFFu;
            if (!bad && *p == ':') {
                bad = strncmp(p, ":it", 3) != 0;
                p += 3;
                r->ret_in_it = 1;
            }
            r->ret_valid = 1;
            r->ret_addr = (uint32_t)a;
            r->ret_size = (uint8_t)s;
            r->ret_opcode = (uint32_t)o;
        } else if (KEY("v")) {
            bad = take_hex(&p, ", \t\r\n", &v) || v > 0xFFFFFFFFu;
            r->val[0] = (uint32_t)v;
            r->nval = 1;
            if (!bad && *p == ',') {
                p++;
                bad = take_hex(&p, ws, &v) || v > 0xFFFFFFFFu;
                r->val[1] = (uint32_t)v;
                r->nval = 2;
            }
        } else if (KEY("r") || KEY("w")) {
            uint64_t a, s;
            if (r->nmem >= ETM_CM3_MAX_MEM)
                return etm_util_fail(diag, ETM_ERR_SYNTAX, "more than %d memory accesses", ETM_CM3_MAX_MEM);
            etm_cm3_mem_t *m = &r->mem[r->nmem++];
            m->write = (uint8_t)KEY("w");
            bad = take_hex(&p, ":", &a) || *p++ != ':' || take_dec(&p, ":", &s) || *p++ != ':' || a > 0xFFFFFFFFu ||
                  (s != 1 && s != 2 && s != 4 && s != 8);
            if (!bad) {
                m->addr = (uint32_t)a;
                m->size = (uint8_t)s;
                if (!strncmp(p, "io", 2) && (!p[2] || strchr(ws, p[2]))) {
                    m->io = 1;
                    p += 2;
                } else {
                    bad = take_hex(&p, ws, &m->value);
                }
            }
        } else {
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "unknown key '%.*s'", (int)klen, key);
        }
#undef KEY
        if (bad)
            return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "malformed value of '%.*s'", (int)klen, key);
    }
    return ETM_OK;
}

/* ---- Parameters ------------------------------------------------------------------ */

typedef struct param_desc {
    const char *name;
    size_t offset;
    unsigned def, max;
    const char *doc;
} param_desc_t;

#define P(field, def, max, doc) { #field, offsetof(etm_cm3_params_t, field), def, max, doc }
static const param_desc_t params[] = {
    P(refill, 2, 16, "P: pipeline refill cycles after a PC change (TRM: 1 to 3)"),
    P(refill_unaligned, 1, 16, "extra refill cycle when the target is a 32-bit instruction not word-aligned"),
    P(load, 2, 16, "LDR/STR single (TRM: 2)"),
    P(ldst_pipeline, 1, 1, "1: a load/store single right after a load single that does not feed its address takes one cycle less"),
    P(agu_stall, 1, 16, "cycles a load/store waits when the instruction before it wrote its address register"),
    P(mla, 2, 16, "MLA, MLS (TRM: 2)"),
    P(mull, 3, 16, "SMULL, UMULL: fewest cycles; +1 per operand wider than 16 bits (TRM: 3 to 5)"),
    P(mlal, 4, 16, "SMLAL, UMLAL: fewest cycles; +1, +3 for one, two operands wider than 16 bits (TRM: 4 to 7)"),
    P(div_min, 2, 64, "SDIV, UDIV: cycles when the quotient is 0 (TRM: 2 to 12)"),
    P(div_max, 12, 64, "SDIV, UDIV: cycles for a 32-bit quotient"),
    P(exc_entry, 12, 64, "exception entry: first entry cycle to the handler's first instruction (TRM: 12)"),
    P(exc_return, 10, 64, "exception return: end of the returning instruction to the interrupted code (Arm: 10)"),
    P(tail_chain, 6, 64, "tail-chaining: end of one handler to the first instruction of the next (TRM: 6)"),
    P(fold, 1, 1, "1: an IT after a single-cycle 16-bit instruction is folded into it (ETMFOLD)"),
    P(cancel, 1, 1, "1: an interrupt taken before a multi-cycle load, store, multiply or divide interrupts it (ETMCANCEL)"),
    P(mmio_wait, 0, 16, "wait states of each load/store to device memory"),
};
#undef P
#define NPARAMS (sizeof params / sizeof params[0])

static unsigned *param_ptr(etm_cm3_params_t *p, unsigned i) { return (unsigned *)(void *)((char *)p + params[i].offset); }

void etm_cm3_params_default(etm_cm3_params_t *p)
{
    memset(p, 0, sizeof *p);
    for (unsigned i = 0; i < NPARAMS; i++)
        *param_ptr(p, i) = params[i].def;
}

etm_err_t etm_cm3_param_set(etm_cm3_params_t *p, const char *name, unsigned value, etm_diag_t *diag)
{
    for (unsigned i = 0; i < NPARAMS; i++) {
        if (!strcmp(params[i].name, name)) {
            if (value > params[i].max)
                return etm_util_fail(diag, ETM_ERR_ARG, "timing parameter %s: %u is more than %u", name, value,
                                     params[i].max);
            *param_ptr(p, i) = value;
            return ETM_OK;
        }
    }
    return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "no timing parameter is called '%s'", name);
}

int etm_cm3_param_get(const etm_cm3_params_t *p, unsigned i, const char **name, const char **doc, unsigned *value)
{
    if (i >= NPARAMS)
        return 0;
    if (name)
        *name = params[i].name;
    if (doc)
        *doc = params[i].doc;
    if (value)
        *value = *(const unsigned *)(const void *)((const char *)p + params[i].offset);
    return 1;
}

/* ---- The model ---------------------------------------------------------------------- */

#define CQ 512u /* cycle queue: the most one instruction and what follows it produce, with room */

typedef struct cyc {
    etm_in_t in;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    unsigned nev;
} cyc_t;

struct etm_cm3 {
    etm_cm3_params_t p;
    etm_cm3_insn_t cur;       /* the instruction waiting for its successor */
    etm_cm3_class_t cur_c;
    int have_cur, finished;
    /* Facts about the instruction before `cur` (same context). */
    etm_cm3_class_t prev_c;
    int have_prev, prev_executed;
    unsigned prev_cycles;
    /* What the next signalled instruction carries. */
    int next_ibranch, next_iindbr;
    uint8_t next_intstat;
    uint16_t next_intnum;
    etm_gen_event_t next_event;
    int has_next_event;
    int skip_it;              /* the IT that comes next was folded into the instruction before */
    uint16_t cur_num;         /* ETMINTNUM: exception number of the context */
    cyc_t q[CQ];
    unsigned qhead, qlen;
    uint64_t cycle;           /* number of the cycle at q[qhead] */
    int hold;                 /* etm_cm3_stall: the next cycle is a held one */
    uint16_t last_num;        /* ETMINTNUM of the last cycle given out */
    uint64_t index;           /* instructions put */
    etm_cm3_stats_t st;
};

etm_err_t etm_cm3_create(etm_cm3_t **out, const etm_cm3_params_t *p, etm_diag_t *diag)
{
    *out = NULL;
    etm_cm3_params_t d;
    if (!p) {
        etm_cm3_params_default(&d);
        p = &d;
    }
    for (unsigned i = 0; i < NPARAMS; i++)
        if (*(const unsigned *)(const void *)((const char *)p + params[i].offset) > params[i].max)
            return etm_util_fail(diag, ETM_ERR_ARG, "timing parameter %s is more than %u", params[i].name,
                                 params[i].max);
    if (p->exc_entry < 1 || p->exc_return < 1 || p->tail_chain < 1 || p->load < 1 || p->mla < 1 || p->mull < 1 ||
        p->mlal < 1 || p->div_min < 1 || p->div_max < p->div_min)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "timing parameters: exception latencies and instruction cycles must be at least 1, "
                             "div_max at least div_min");
    etm_cm3_t *m = (etm_cm3_t *)calloc(1, sizeof *m);
    if (!m)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    m->p = *p;
    *out = m;
    return ETM_OK;
}

void etm_cm3_free(etm_cm3_t *m) { free(m); }

const etm_cm3_stats_t *etm_cm3_get_stats(const etm_cm3_t *m) { return &m->st; }

static cyc_t *push(etm_cm3_t *m)
{
    /* The queue cannot overflow: put() refuses new input until it is empty, and one
     * instruction yields at most ~100 cycles. */
    cyc_t *c = &m->q[(m->qhead + m->qlen) % CQ];
    memset(c, 0, sizeof *c);
    c->in.intnum = m->cur_num;
    m->qlen++;
    m->st.cycles++;
    return c;
}

static void add_event(cyc_t *c, const etm_gen_event_t *ev)
{
    if (c->nev < ETM_GEN_MAX_EVENTS)
        c->ev[c->nev++] = *ev;
}

static void idle(etm_cm3_t *m, unsigned n, int stall)
{
    for (unsigned i = 0; i < n; i++)
        push(m)->in.istall = (uint8_t)stall;
    if (stall)
        m->st.stall_cycles += n;
}

/* The cycle in which an instruction enters execute. */
static cyc_t *signal(etm_cm3_t *m, uint32_t addr, unsigned size, int executed, int is_it)
{
    cyc_t *c = push(m);
    c->in.ivalid = 1;
    c->in.ia = addr;
    c->in.iccfail = (uint8_t)!executed;
    c->in.ibranch = (uint8_t)m->next_ibranch;
    c->in.iindbr = (uint8_t)m->next_iindbr;
    c->in.intstat = m->next_intstat;
    c->in.intnum = m->next_intstat ? m->next_intnum : m->cur_num;
    if (m->has_next_event) {
        add_event(c, &m->next_event);
        m->has_next_event = 0;
    }
    etm_gen_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETM_GEN_EV_INSN;
    ev.size = (uint8_t)size;
    ev.passed = (uint8_t)executed;
    ev.is_it = (uint8_t)is_it;
    ev.addr = addr;
    add_event(c, &ev);
    m->next_ibranch = m->next_iindbr = 0;
    m->next_intstat = 0;
    return c;
}

static unsigned sigbits(uint32_t v)
{
    unsigned n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

/* Execute cycles of an instruction (without refill). */
static unsigned exec_cycles(const etm_cm3_t *m, const etm_cm3_insn_t *r, const etm_cm3_class_t *c, int *agu)
{
    const etm_cm3_params_t *p = &m->p;
    *agu = 0;
    if (!r->executed)
        return 1;
    unsigned n = 1, wait = 0;
    for (unsigned i = 0; i < r->nmem && i < ETM_CM3_MAX_MEM; i++)
        if (r->mem[i].io)
            wait = p->mmio_wait;
    int same_ctx = r->ctx == ETM_CM3_CTX_SAME && m->have_prev;
    int memop = c->kind == ETM_CM3_K_LOAD || c->kind == ETM_CM3_K_STORE || c->kind == ETM_CM3_K_LDRD ||
                c->kind == ETM_CM3_K_STRD || c->kind == ETM_CM3_K_LDM || c->kind == ETM_CM3_K_STM ||
                c->kind == ETM_CM3_K_TB;
    if (memop && same_ctx && m->prev_executed && p->agu_stall) {
        etm_cm3_kind_t pk = m->prev_c.kind;
        int dp = pk == ETM_CM3_K_ALU || pk == ETM_CM3_K_MUL || pk == ETM_CM3_K_MLA || pk == ETM_CM3_K_MULL ||
                 pk == ETM_CM3_K_MLAL || pk == ETM_CM3_K_DIV;
        if (dp && !m->prev_c.writes_pc && (m->prev_c.writes & c->addr_regs))
            *agu = (int)p->agu_stall;
    }
    switch (c->kind) {
    case ETM_CM3_K_MLA: n = p->mla; break;
    case ETM_CM3_K_MULL:
    case ETM_CM3_K_MLAL: {
        unsigned wide = 1; /* unknown operands: one wide */
        if (r->nval >= 2) {
            int sgn = ((r->opcode >> 16) & 0x20) == 0; /* SMULL FB8x, SMLAL FBCx: bit 5 of hw1 clear */
            uint32_t a = r->val[0], b = r->val[1];
            if (sgn) {
                a = (a & 0x80000000u) ? ~a : a;
                b = (b & 0x80000000u) ? ~b : b;
            }
            wide = (sigbits(a) > 16) + (sigbits(b) > 16);
        }
        n = c->kind == ETM_CM3_K_MULL ? p->mull + wide : p->mlal + wide + (wide == 2);
        break;
    }
    case ETM_CM3_K_DIV: {
        if (r->nval < 2) {
            n = (p->div_min + p->div_max + 1) / 2;
            break;
        }
        uint32_t a = r->val[0], b = r->val[1];
        if (!((r->opcode >> 16) & 0x20)) { /* SDIV FB9x: magnitudes */
            a = (a & 0x80000000u) ? 0u - a : a;
            b = (b & 0x80000000u) ? 0u - b : b;
        }
        if (b == 0 || a < b) {
            n = p->div_min;
        } else {
            unsigned q = sigbits(a) - sigbits(b) + 1; /* significant bits of the quotient, 1..32 */
            n = p->div_min + ((p->div_max - p->div_min) * q + 31) / 32;
        }
        break;
    }
    case ETM_CM3_K_LOAD:
    case ETM_CM3_K_STORE:
        n = p->load;
        if (p->ldst_pipeline && same_ctx && m->prev_executed && m->prev_c.kind == ETM_CM3_K_LOAD &&
            !m->prev_c.writes_pc && !(m->prev_c.writes & c->addr_regs) && !*agu && n > 1)
            n--;
        n += wait;
        break;
    case ETM_CM3_K_LDRD:
    case ETM_CM3_K_STRD: n = 3 + wait; break;
    case ETM_CM3_K_LDM:
    case ETM_CM3_K_STM: n = 1 + c->nregs + wait; break;
    case ETM_CM3_K_TB: n = 2 + wait; break;
    default: n = 1; break;
    }
    return n ? n : 1;
}

/* Interrupted instruction: may the exception that comes before `ret` be shown
 * as cancelling it in its second cycle? (TRM 16.1, ETMCANCEL: LDR/STR, LDRD/STRD,
 * LDM/STM, U/SMULL, MLA, U/SDIV, MSR, CPSID; not ones that change the PC or
 * the exception state.) */
static int cancellable(const etm_cm3_insn_t *e)
{
    if (!e->ret_valid || e->ret_in_it || !e->async)
        return 0;
    etm_cm3_class_t c;
    etm_cm3_classify(e->ret_addr, e->ret_opcode, e->ret_size, &c);
    if (c.writes_pc)
        return 0;
    switch (c.kind) {
    case ETM_CM3_K_LOAD: case ETM_CM3_K_STORE: case ETM_CM3_K_LDRD: case ETM_CM3_K_STRD:
    case ETM_CM3_K_LDM: case ETM_CM3_K_STM: case ETM_CM3_K_MULL: case ETM_CM3_K_MLAL:
    case ETM_CM3_K_MLA: case ETM_CM3_K_DIV:
        return 1;
    default:
        return 0;
    }
}

/* A PC change: ETMFLUSH in the first refill cycle, ETMISTALL in the others while
 * the target is fetched; the target will carry ETMIBRANCH (and ETMIINDBR). */
static void refill(etm_cm3_t *m, const etm_cm3_class_t *c, uint32_t to, unsigned to_size)
{
    unsigned n = m->p.refill;
    if (to_size == 4 && (to & 2))
        n += m->p.refill_unaligned;
    if (n == 0 && m->qlen) {
        /* No refill (a what-if): the flush rides on the instruction's last cycle. */
        cyc_t *last = &m->q[(m->qhead + m->qlen - 1) % CQ];
        last->in.flush = 1;
        last->in.findbr = (uint8_t)c->indirect;
    } else if (n) {
        cyc_t *f = push(m);
        f->in.flush = 1;
        f->in.findbr = (uint8_t)c->indirect;
        idle(m, n - 1, 1);
        m->st.stall_cycles -= n - 1; /* counted as refill, not as stalls */
    }
    m->st.refill_cycles += n;
    m->next_ibranch = 1;
    m->next_iindbr = c->indirect;
}

/* Cycles of m->cur, now that its successor `nx` is known (NULL at the end). */
static void emit(etm_cm3_t *m, const etm_cm3_insn_t *nx)
{
    const etm_cm3_insn_t *r = &m->cur;
    const etm_cm3_class_t *c = &m->cur_c;
    const etm_cm3_params_t *p = &m->p;
    int agu = 0, fold = 0;
    unsigned n = 0;

    m->cur_num = r->ipsr; /* ETMINTNUM: this instruction's context, until the next one's begins */
    if (m->skip_it) {
        /* An IT folded into the instruction before: no cycles of its own. */
        m->skip_it = 0;
        m->st.folds++;
    } else {
        n = exec_cycles(m, r, c, &agu);
        if (agu)
            idle(m, (unsigned)agu, 1);
        fold = p->fold && nx && r->size == 2 && r->executed && !r->in_it && n == 1 && !c->writes_pc &&
               c->kind != ETM_CM3_K_IT && c->kind != ETM_CM3_K_SVC && c->kind != ETM_CM3_K_BKPT &&
               nx->ctx == ETM_CM3_CTX_SAME && nx->addr == r->addr + 2 && nx->size == 2 && nx->executed &&
               (nx->opcode & 0xFF00) == 0xBF00 && (nx->opcode & 0xF);
        cyc_t *first = signal(m, r->addr, r->size, r->executed, c->kind == ETM_CM3_K_IT);
        if (fold) {
            first->in.fold = 1;
            etm_gen_event_t ev = first->ev[first->nev - 1];
            ev.addr = r->addr + 2;
            ev.size = 2;
            ev.passed = 1;
            ev.is_it = 1;
            add_event(first, &ev);
            m->skip_it = 1;
        }
        idle(m, n - 1, 0);
        if (c->wide_hint) /* ISB: the pipeline refills, the PC does not change */
            idle(m, p->refill, 1);
    }

    /* What follows: an exception, a return, a tail-chain, a PC change, or nothing. */
    int ctx = nx ? (int)nx->ctx : (int)ETM_CM3_CTX_SAME;
    if (ctx == ETM_CM3_CTX_ENTRY) {
        int cancel = p->cancel && cancellable(nx);
        if (cancel) {
            /* The interrupted instruction enters execute (after the refill if it is
             * a branch target), and in its second cycle the exception cancels it;
             * it runs again after the return. */
            if (r->taken)
                refill(m, c, nx->ret_addr, nx->ret_size);
            signal(m, nx->ret_addr, nx->ret_size, 1, 0);
        }
        cyc_t *e = push(m);
        e->in.flush = 1;
        e->in.findbr = 1;
        e->in.intstat = ETM_INTSTAT_FETCH;
        e->in.cancel = (uint8_t)cancel;
        if (cancel) {
            etm_gen_event_t ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = ETM_GEN_EV_CANCEL;
            add_event(e, &ev);
            m->st.cancels++;
        }
        idle(m, p->exc_entry - 1, 0);
        m->st.exception_cycles += p->exc_entry;
    } else if (ctx == ETM_CM3_CTX_RETURN || ctx == ETM_CM3_CTX_TAILCHAIN) {
        cyc_t *e = push(m);
        e->in.flush = 1;
        e->in.findbr = 1;
        e->in.intstat = ETM_INTSTAT_EXIT;
        unsigned gap = ctx == ETM_CM3_CTX_RETURN ? p->exc_return : p->tail_chain;
        idle(m, gap - 1, 0);
        m->st.exception_cycles += gap;
    } else if (r->taken && nx) {
        refill(m, c, nx->addr, nx->size);
    }

    if (nx && ctx != ETM_CM3_CTX_SAME) {
        m->next_ibranch = m->next_iindbr = 1;
        m->next_intstat = ctx == ETM_CM3_CTX_RETURN ? ETM_INTSTAT_RETURN : ETM_INTSTAT_ENTRY;
        m->next_intnum = nx->excnum;
        memset(&m->next_event, 0, sizeof m->next_event);
        m->next_event.kind = ctx == ETM_CM3_CTX_RETURN ? ETM_GEN_EV_EXC_RETURN : ETM_GEN_EV_EXC_ENTRY;
        m->next_event.excnum = nx->excnum;
        m->next_event.addr = nx->addr;
        m->has_next_event = 1;
        if (ctx == ETM_CM3_CTX_RETURN)
            m->st.returns++;
        else if (ctx == ETM_CM3_CTX_TAILCHAIN)
            m->st.tail_chains++;
        else
            m->st.entries++;
    }
    m->prev_c = *c;
    m->have_prev = 1;
    m->prev_executed = r->executed;
    m->prev_cycles = n;
    (void)fold;
}

etm_err_t etm_cm3_put(etm_cm3_t *m, const etm_cm3_insn_t *r, etm_diag_t *diag)
{
    if (m->finished || m->qlen)
        return etm_util_fail(diag, ETM_ERR_STATE,
                             m->finished ? "an instruction after the end" : "the cycles of the last instruction were not taken out");
    uint64_t idx = m->index;
    if (r->size != 2 && r->size != 4) {
        etm_util_fail(diag, ETM_ERR_ARG, "instruction %llu at 0x%08x: size %u", (unsigned long long)idx,
                      (unsigned)r->addr, (unsigned)r->size);
        if (diag)
            diag->cycle = idx;
        return ETM_ERR_ARG;
    }
    if ((r->ctx == ETM_CM3_CTX_ENTRY || r->ctx == ETM_CM3_CTX_TAILCHAIN) &&
        (r->excnum == 0 || r->excnum == 7 || r->excnum == 8 || r->excnum == 9 || r->excnum == 10 ||
         r->excnum == 13 || r->excnum > 511)) {
        etm_util_fail(diag, ETM_ERR_ARG, "instruction %llu at 0x%08x: exception %u cannot be entered",
                      (unsigned long long)idx, (unsigned)r->addr, (unsigned)r->excnum);
        if (diag)
            diag->cycle = idx;
        return ETM_ERR_ARG;
    }
    if (r->ctx > ETM_CM3_CTX_TAILCHAIN || (r->addr & 1)) {
        etm_util_fail(diag, ETM_ERR_ARG, "instruction %llu at 0x%08x: malformed record", (unsigned long long)idx,
                      (unsigned)r->addr);
        if (diag)
            diag->cycle = idx;
        return ETM_ERR_ARG;
    }
    if (m->have_cur)
        emit(m, r);
    m->cur = *r;
    etm_cm3_classify(r->addr, r->opcode, r->size, &m->cur_c);
    m->have_cur = 1;
    m->index++;
    m->st.insns++;
    m->st.executed += r->executed;
    m->st.kinds[m->cur_c.kind]++;
    m->st.taken += r->taken;
    return ETM_OK;
}

void etm_cm3_finish(etm_cm3_t *m)
{
    if (m->finished)
        return;
    if (m->have_cur)
        emit(m, NULL);
    m->have_cur = 0;
    m->finished = 1;
}

void etm_cm3_stall(etm_cm3_t *m) { m->hold = 1; }

etm_err_t etm_cm3_cycle(etm_cm3_t *m, etm_in_t *in, etm_gen_event_t *ev, unsigned *nev)
{
    if (m->hold && (m->qlen || !m->finished)) {
        /* A held cycle: the core waits, nothing it was doing moves on. */
        m->hold = 0;
        memset(in, 0, sizeof *in);
        in->istall = 1;
        in->intnum = m->last_num;
        if (nev)
            *nev = 0;
        m->cycle++;
        m->st.cycles++;
        m->st.held_cycles++;
        return ETM_OK;
    }
    m->hold = 0;
    if (!m->qlen) {
        if (nev)
            *nev = 0;
        return ETM_END;
    }
    cyc_t *c = &m->q[m->qhead];
    m->qhead = (m->qhead + 1) % CQ;
    m->qlen--;
    *in = c->in;
    m->last_num = c->in.intnum;
    for (unsigned i = 0; i < c->nev; i++) {
        c->ev[i].cycle = m->cycle;
        if (ev)
            ev[i] = c->ev[i];
    }
    if (nev)
        *nev = c->nev;
    m->cycle++;
    return ETM_OK;
}
