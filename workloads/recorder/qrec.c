/* qrec.c - the recorder: QEMU's raw instruction stream to executed instructions
 * (qrec.h). */
#define _POSIX_C_SOURCE 200809L
#include "qrec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "etm/snapshot.h"
#include "qtrace_format.h"

extern char **environ;

static void say(char *err, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void say(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* ---- ELF ------------------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

int qrec_image_load(qrec_image_t *img, const char *path, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    FILE *f = fopen(path, "rb");
    if (!f) {
        say(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    uint8_t *data = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = (uint8_t *)malloc((size_t)n);
        if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    if (!data) {
        say(err, errlen, "%s: cannot read", path);
        return -1;
    }
    /* The program headers as libetm reads them (etm/snapshot.h); QEMU loads
     * each segment at its physical address. */
    etm_elf_segment_t seg[QREC_MAX_SEGMENTS];
    unsigned nseg = 0;
    etm_diag_t d;
    int rc = 0;
    if (etm_elf_parse(data, (size_t)n, path, seg, QREC_MAX_SEGMENTS, &nseg, &img->entry, &d) != ETM_OK) {
        say(err, errlen, "%s", d.msg);
        rc = -1;
    }
    for (unsigned i = 0; i < nseg && rc == 0; i++) {
        qrec_segment_t *s = &img->seg[img->nseg];
        s->bytes = (uint8_t *)malloc(seg[i].filesz);
        if (!s->bytes) {
            say(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        memcpy(s->bytes, data + seg[i].offset, seg[i].filesz);
        s->addr = seg[i].paddr;
        s->size = seg[i].filesz;
        s->exec = (seg[i].flags & 1) != 0;
        img->nseg++;
    }
    free(data);
    if (rc)
        qrec_image_free(img);
    return rc;
}

void qrec_image_free(qrec_image_t *img)
{
    for (unsigned i = 0; i < img->nseg; i++)
        free(img->seg[i].bytes);
    memset(img, 0, sizeof *img);
}

int qrec_image_read(const qrec_image_t *img, uint32_t addr, uint8_t *buf, unsigned n)
{
    for (unsigned i = 0; i < img->nseg; i++) {
        const qrec_segment_t *s = &img->seg[i];
        if (s->exec && addr - s->addr < s->size) {
            uint32_t off = addr - s->addr, k = n;
            if (k > s->size - off)
                k = s->size - off;
            memcpy(buf, s->bytes + off, k);
            return (int)k;
        }
    }
    return 0;
}

int qrec_image_write_exec(const qrec_image_t *img, unsigned which, const char *path, uint32_t *addr)
{
    for (unsigned i = 0; i < img->nseg; i++) {
        if (!img->seg[i].exec || which--)
            continue;
        FILE *f = fopen(path, "wb");
        if (!f)
            return -1;
        size_t w = fwrite(img->seg[i].bytes, 1, img->seg[i].size, f);
        if (fclose(f) != 0 || w != img->seg[i].size)
            return -1;
        if (addr)
            *addr = img->seg[i].addr;
        return 0;
    }
    return -1;
}

/* ---- The converter ------------------------------------------------------------------ */

typedef struct cand {
    qt_insn_t raw;
    uint64_t index, offset;  /* raw record number and byte offset */
    etm_cm3_mem_t mem[ETM_CM3_MAX_MEM];
    unsigned nmem;
    /* Set when the instruction before it was converted. */
    uint8_t ctx, async;
    uint16_t excnum;
    uint8_t ret_valid, ret_in_it, ret_size;
    uint32_t ret_addr, ret_opcode;
} cand_t;

typedef struct frame {
    uint32_t ret;
    int ret_known;
    uint16_t prev_ipsr;
    uint8_t it;
} frame_t;

#define MAX_DEPTH 64

#define QREC_BUF 65536

struct qrec {
    int fd;                     /* the stream, read without stdio (poll needs to see every byte) */
    uint8_t buf[QREC_BUF];
    size_t pos, len;
    double start, last_data;    /* monotonic seconds: the first read, the last byte */
    unsigned timeout_s, idle_s; /* limits (0: none) */
    uint64_t stop_after;        /* end after this many instructions (0: at the program's end) */
    int stopped;
    int asleep;                 /* with stop_after: the core slept past the idle limit first */
    uint32_t last_pc, last_opcode; /* of the last instruction record */
    uint8_t last_size;
    const char *name;
    const qrec_image_t *img;
    uint64_t offset, nraw;
    cand_t pend, next, peek;
    int have_pend, have_next, have_peek, at_end, failed;
    uint8_t itstate;            /* ITSTATE[7:0] of the instruction to be converted next */
    frame_t stack[MAX_DEPTH];
    int depth;
    qrec_stats_t st;
    uint64_t max_insns;
    char err[512];
};

qrec_t *qrec_create(FILE *f, const char *name, const qrec_image_t *img)
{
    qrec_t *q = (qrec_t *)calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->fd = fileno(f);
    q->name = name;
    q->img = img;
    q->max_insns = QREC_DEFAULT_MAX_INSNS;
    return q;
}

void qrec_set_max_insns(qrec_t *q, uint64_t max) { q->max_insns = max; }

void qrec_set_limits(qrec_t *q, unsigned timeout_s, unsigned idle_s, uint64_t stop_after)
{
    q->timeout_s = timeout_s;
    q->idle_s = idle_s;
    q->stop_after = stop_after;
}

int qrec_stopped(const qrec_t *q) { return q->stopped; }

int qrec_asleep(const qrec_t *q, uint32_t *pc)
{
    if (pc)
        *pc = q->last_pc;
    return q->asleep;
}

void qrec_free(qrec_t *q) { free(q); }
const char *qrec_error(const qrec_t *q) { return q->err; }
const qrec_stats_t *qrec_get_stats(const qrec_t *q) { return &q->st; }

static int fail(qrec_t *q, const cand_t *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(qrec_t *q, const cand_t *c, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c)
        snprintf(q->err, sizeof q->err, "%s: offset %" PRIu64 ": record %" PRIu64 " (instruction at 0x%08" PRIx32
                 "): %s", q->name, c->offset, c->index, c->raw.pc, msg);
    else
        snprintf(q->err, sizeof q->err, "%s: offset %" PRIu64 ": %s", q->name, q->offset, msg);
    q->failed = 1;
    return -1;
}

/* ---- Reading the stream, within the time limits ------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *last_insn_name(const qrec_t *q, char *buf, size_t size)
{
    uint32_t op = q->last_size == 2 ? (q->last_opcode & 0xFFFFu) : q->last_opcode;
    if (q->last_size == 2 && op == 0xBF30u)
        return "WFI";
    if (q->last_size == 2 && op == 0xBF20u)
        return "WFE";
    snprintf(buf, size, "opcode 0x%0*" PRIx32, q->last_size == 2 ? 4 : 8, op);
    return buf;
}

/* More bytes into the buffer: 1, 0 at the end of the stream, -1 (failed: a read
 * error, or a time limit passed). */
static int refill(qrec_t *q)
{
    double t = now_s();
    if (q->start == 0)
        q->start = q->last_data = t;
    for (;;) {
        int ms = -1;
        if (q->timeout_s || q->idle_s) {
            double left = 1e9;
            if (q->timeout_s && q->start + q->timeout_s - t < left)
                left = q->start + q->timeout_s - t;
            if (q->idle_s && q->last_data + q->idle_s - t < left)
                left = q->last_data + q->idle_s - t;
            if (left <= 0) {
                char b[32];
                if (q->timeout_s && t - q->start >= q->timeout_s)
                    return fail(q, NULL, "the program ran for %u s (the time limit, --timeout) without exiting: %"
                                PRIu64 " instructions so far, the last at 0x%08" PRIx32, q->timeout_s,
                                q->st.raw_insns, q->last_pc);
                if (q->st.raw_insns == 0)
                    return fail(q, NULL, "QEMU executed nothing for %u s (--idle-timeout): it did not start the "
                                "program", q->idle_s);
                if (q->stop_after) { /* firmware asleep for good before N: what it ran is the recording */
                    q->asleep = q->stopped = 1;
                    return 0;
                }
                return fail(q, NULL, "QEMU executed nothing for %u s (--idle-timeout) after %" PRIu64
                            " instructions, the last at 0x%08" PRIx32 " (%s): the core sleeps with nothing to wake it, "
                            "or QEMU is stuck", q->idle_s, q->st.raw_insns, q->last_pc,
                            last_insn_name(q, b, sizeof b));
            }
            ms = left > 1000.0 ? 1000 : (int)(left * 1000.0) + 1;
        }
        struct pollfd p = { q->fd, POLLIN, 0 };
        int r = poll(&p, 1, ms);
        t = now_s();
        if (r < 0 && errno != EINTR)
            return fail(q, NULL, "poll: %s", strerror(errno));
        if (r <= 0)
            continue;
        ssize_t n = read(q->fd, q->buf, sizeof q->buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return fail(q, NULL, "read: %s", strerror(errno));
        if (n == 0)
            return 0;
        q->pos = 0;
        q->len = (size_t)n;
        q->last_data = t;
        return 1;
    }
}

/* The next byte (0-255), EOF at the end of the stream, -2 when refill failed. */
static int read_byte(qrec_t *q)
{
    if (q->pos == q->len) {
        int k = refill(q);
        if (k <= 0)
            return k < 0 ? -2 : EOF;
    }
    q->offset++;
    return q->buf[q->pos++];
}

/* Give back the byte read_byte just returned. */
static void unread_byte(qrec_t *q)
{
    q->pos--;
    q->offset--;
}

static int read_exact(qrec_t *q, void *buf, size_t n)
{
    uint8_t *b = (uint8_t *)buf;
    while (n) {
        if (q->pos == q->len && refill(q) <= 0)
            return -1;
        size_t k = q->len - q->pos < n ? q->len - q->pos : n;
        memcpy(b, q->buf + q->pos, k);
        q->pos += k;
        q->offset += k;
        b += k;
        n -= k;
    }
    return 0;
}

/* Read the next instruction with its memory accesses into c. Returns 1, 0 at the
 * end record, -1 on error. q->next holds an 'I' record already read. */
static int read_cand(qrec_t *q, cand_t *c)
{
    if (q->at_end)
        return 0;
    if (q->offset == 0) {
        qt_header_t h;
        if (read_exact(q, &h, sizeof h) && q->failed)
            return -1;
        if (q->offset != sizeof h || memcmp(h.magic, QT_MAGIC, 8) != 0)
            return fail(q, NULL, "not an etmtrace stream (QEMU or the plugin did not start; see QEMU's log)");
        if (h.version != QT_VERSION)
            return fail(q, NULL, "etmtrace stream version %u, expected %u", h.version, QT_VERSION);
    }
    memset(c, 0, sizeof *c);
    int have = 0;
    for (;;) {
        uint64_t at = q->offset;
        int k = read_byte(q);
        if (k == -2 || (k == EOF && q->failed))
            return -1;
        if (k == EOF && q->asleep) { /* --stop-after: the core sleeps for good; the last record is whole */
            q->at_end = 1;
            return have;
        }
        if (k == EOF)
            return fail(q, NULL, "the stream ends without an end record: QEMU stopped before the program exited");
        uint8_t buf[24];
        buf[0] = (uint8_t)k;
        if (k == QT_REC_INSN) {
            if (have) { /* the next instruction: keep it for the next call */
                unread_byte(q);
                return 1;
            }
            if (read_exact(q, buf + 1, sizeof(qt_insn_t) - 1))
                return q->failed ? -1 : fail(q, NULL, "truncated instruction record");
            memcpy(&c->raw, buf, sizeof(qt_insn_t));
            q->last_pc = c->raw.pc;
            q->last_opcode = c->raw.opcode;
            q->last_size = c->raw.size;
            c->offset = at;
            c->index = q->nraw++;
            q->st.raw_insns++;
            have = 1;
        } else if (k == QT_REC_MEM) {
            qt_mem_t m;
            if (read_exact(q, buf + 1, sizeof(qt_mem_t) - 1))
                return q->failed ? -1 : fail(q, NULL, "truncated memory record");
            memcpy(&m, buf, sizeof m);
            q->nraw++;
            q->st.raw_mems++;
            if (!have)
                return fail(q, NULL, "a memory access before any instruction");
            if (c->nmem == ETM_CM3_MAX_MEM)
                return fail(q, c, "more than %d memory accesses", ETM_CM3_MAX_MEM);
            etm_cm3_mem_t *e = &c->mem[c->nmem++];
            e->addr = m.addr;
            e->size = m.size;
            e->write = (m.flags & QT_MEM_STORE) != 0;
            e->io = (m.flags & QT_MEM_IO) != 0;
            e->value = m.value;
        } else if (k == QT_REC_END) {
            qt_end_t e;
            memcpy(&e, buf, 1);
            if (read_exact(q, (uint8_t *)&e + 1, sizeof e - 1))
                return q->failed ? -1 : fail(q, NULL, "truncated end record");
            if (e.insns != q->st.raw_insns || e.mems != q->st.raw_mems)
                return fail(q, NULL, "the end record counts %" PRIu64 " instructions and %" PRIu64
                                     " accesses, the stream held %" PRIu64 " and %" PRIu64,
                            e.insns, e.mems, q->st.raw_insns, q->st.raw_mems);
            q->at_end = 1;
            return have;
        } else {
            return fail(q, NULL, "unknown record kind 0x%02x", k);
        }
    }
}

static int it_active(uint8_t it) { return (it & 0xF) != 0; }
static uint8_t it_advance(uint8_t it) { return (it & 7) == 0 ? 0 : (uint8_t)((it & 0xE0) | ((it << 1) & 0x1F)); }

/* Vector table entry of exception k (Thumb bit cleared). */
static int vector(const qrec_image_t *img, unsigned k, uint32_t *addr)
{
    uint8_t b[4];
    /* VTOR is 0 from reset. A part whose program sits elsewhere maps its boot
     * memory at 0 (the STM32s alias their flash at 0x08000000 there): with no
     * segment at 0, the lowest executable segment is what 0 shows. */
    uint32_t base = 0;
    if (qrec_image_read(img, 0, b, 4) != 4) {
        int found = 0;
        for (unsigned i = 0; i < img->nseg; i++)
            if (img->seg[i].exec && (!found || img->seg[i].addr < base)) {
                base = img->seg[i].addr;
                found = 1;
            }
    }
    if (qrec_image_read(img, base + 4 * k, b, 4) != 4)
        return -1;
    *addr = le32(b) & ~1u;
    return 0;
}

static int is_memop(etm_cm3_kind_t k)
{
    return k == ETM_CM3_K_LOAD || k == ETM_CM3_K_STORE || k == ETM_CM3_K_LDRD || k == ETM_CM3_K_STRD ||
           k == ETM_CM3_K_LDM || k == ETM_CM3_K_STM || k == ETM_CM3_K_TB;
}

/* The value an instruction loaded into the PC: the access at the highest address. */
static int loaded_pc(const cand_t *c, uint32_t *v)
{
    int best = -1;
    for (unsigned i = 0; i < c->nmem; i++)
        if (!c->mem[i].write && (best < 0 || c->mem[i].addr >= c->mem[best].addr))
            best = (int)i;
    if (best < 0 || c->mem[best].io)
        return -1;
    *v = (uint32_t)c->mem[best].value;
    return 0;
}

/* The next instruction start that is not an abandoned one: under -icount QEMU
 * starts an instruction that touches a device, abandons it before the access and
 * runs it again. Such a start is a load or store without memory access followed
 * by a start at the same address (which no real execution produces: a load or
 * store that fails its condition is followed by the next address). */
static int clean_next(qrec_t *q, cand_t *c)
{
    for (;;) {
        if (q->have_peek) {
            *c = q->peek;
            q->have_peek = 0;
        } else {
            int k = read_cand(q, c);
            if (k <= 0)
                return k;
        }
        etm_cm3_class_t cl;
        etm_cm3_classify(c->raw.pc, c->raw.opcode, c->raw.size, &cl);
        if (is_memop(cl.kind) && c->nmem == 0) {
            int k = read_cand(q, &q->peek);
            if (k < 0)
                return -1;
            q->have_peek = k;
            if (k && q->peek.raw.pc == c->raw.pc) {
                q->st.restarts++;
                continue;
            }
        }
        return 1;
    }
}

/* What an instruction did: its condition and where it sends the PC. */
typedef struct flow {
    etm_cm3_class_t cl;
    unsigned cond, ipsr;
    int in_it, passed, taken, known, exc_return;
    uint32_t next;
} flow_t;

/* The opcode QEMU ran is the program's, and one the classifier knows; the
 * condition it executed under. Returns 1, or fail's -1. */
static int condition(qrec_t *q, cand_t *c, flow_t *f)
{
    const qt_insn_t *r = &c->raw;
    uint8_t b[4];
    if (qrec_image_read(q->img, r->pc, b, r->size) == (int)r->size) {
        uint32_t hw1 = le16(b), op = r->size == 4 ? hw1 << 16 | le16(b + 2) : hw1;
        if (op != r->opcode)
            return fail(q, c, "QEMU ran opcode %08" PRIx32 ", the ELF holds %08" PRIx32, r->opcode, op);
    }
    if (f->cl.kind == ETM_CM3_K_UNDEF)
        return fail(q, c, "opcode %08" PRIx32 " is not an ARMv7-M instruction the classifier knows", r->opcode);
    f->in_it = it_active(q->itstate);
    f->cond = f->in_it ? (unsigned)(q->itstate >> 4) : f->cl.cond;
    f->passed = etm_cm3_cond_pass(f->cond, r->xpsr >> 28);
    if (f->cl.kind == ETM_CM3_K_CBZ) {
        if (f->in_it)
            return fail(q, c, "CBZ/CBNZ inside an IT block");
        if (r->nval < 1)
            return fail(q, c, "CBZ/CBNZ without its register value");
        int nonzero = (r->opcode >> 11) & 1;
        f->passed = (r->val[0] != 0) == nonzero;
    }
    if (f->in_it && f->cl.kind == ETM_CM3_K_BCOND)
        return fail(q, c, "B<c> inside an IT block");
    if (f->passed && is_memop(f->cl.kind) && c->nmem == 0)
        return fail(q, c, "a load or store that passed its condition made no memory access");
    return 1;
}

/* Where the PC goes: the next address, known or not (a TB or load from I/O).
 * Returns 1, or fail's -1. */
static int destination(qrec_t *q, cand_t *c, flow_t *f)
{
    const qt_insn_t *r = &c->raw;
    f->taken = f->passed && f->cl.writes_pc;
    f->known = 1;
    f->next = r->pc + r->size;
    if (f->taken) {
        uint32_t v = 0;
        switch (f->cl.kind) {
        case ETM_CM3_K_B: case ETM_CM3_K_BL: case ETM_CM3_K_BCOND: case ETM_CM3_K_CBZ:
            f->next = f->cl.target;
            break;
        case ETM_CM3_K_BX: case ETM_CM3_K_BLX:
            if (r->nval < 1)
                return fail(q, c, "BX/BLX without its register value");
            f->next = r->val[0] & ~1u;
            if (r->val[0] >= 0xF0000000u)
                f->next = r->val[0];
            break;
        case ETM_CM3_K_ALU: /* MOV pc, Rm; ADD pc, Rm */
            if (r->nval < 1)
                return fail(q, c, "write to the PC without the register value");
            f->next = ((r->opcode & 0xFF00) == 0x4400 ? r->pc + 4 + r->val[0] : r->val[0]) & ~1u;
            break;
        case ETM_CM3_K_TB:
            if (c->nmem < 1 || c->mem[0].io)
                f->known = 0;
            else
                f->next = r->pc + 4 + 2 * (uint32_t)c->mem[0].value;
            break;
        default: /* loads to the PC */
            if (loaded_pc(c, &v) != 0)
                f->known = 0;
            else
                f->next = v >= 0xF0000000u ? v : v & ~1u;
            break;
        }
    }
    f->exc_return = f->taken && f->known && f->next >= 0xF0000000u;
    /* IT state after this instruction. */
    if (f->cl.kind == ETM_CM3_K_IT) {
        if (f->in_it)
            return fail(q, c, "IT inside an IT block");
        q->itstate = (uint8_t)(f->cl.it_firstcond << 4 | f->cl.it_mask);
    } else if (f->in_it) {
        q->itstate = it_advance(q->itstate);
    }
    return 1;
}

/* The record of the instruction, all but where it leads. */
static void fill_record(const cand_t *c, const flow_t *f, etm_cm3_insn_t *out)
{
    const qt_insn_t *r = &c->raw;
    memset(out, 0, sizeof *out);
    out->addr = r->pc;
    out->opcode = r->opcode;
    out->size = r->size;
    out->executed = (uint8_t)f->passed;
    out->branch = (uint8_t)(!f->cl.writes_pc ? ETM_CM3_BR_NONE
                            : f->cl.indirect ? ETM_CM3_BR_INDIRECT : ETM_CM3_BR_DIRECT);
    out->taken = (uint8_t)f->taken;
    out->in_it = (uint8_t)f->in_it;
    out->cond = (uint8_t)(f->in_it || f->cl.kind == ETM_CM3_K_BCOND ? f->cond : 14);
    out->ctx = c->ctx;
    out->excnum = c->excnum;
    out->async = c->async;
    out->ret_valid = c->ret_valid;
    out->ret_in_it = c->ret_in_it;
    out->ret_size = c->ret_size;
    out->ret_addr = c->ret_addr;
    out->ret_opcode = c->ret_opcode;
    out->ipsr = (uint16_t)f->ipsr;
    out->nval = r->nval > 2 ? 2 : r->nval;
    out->val[0] = r->val[0];
    out->val[1] = r->val[1];
    out->nmem = (uint8_t)c->nmem;
    memcpy(out->mem, c->mem, c->nmem * sizeof c->mem[0]);
    if (f->cl.kind == ETM_CM3_K_STORE && r->nval == 1) {
        /* The register a single store wrote (the plugin reads it for every
         * store): the value of a store to a device, which QEMU does not show. */
        out->nval = 0;
        out->val[0] = 0;
        if (out->nmem == 1 && out->mem[0].io && out->mem[0].write) {
            unsigned bits = 8u * out->mem[0].size;
            out->mem[0].value = bits >= 32 ? r->val[0] : r->val[0] & ((1u << bits) - 1u);
            out->mem[0].value_known = 1;
        }
    }
}

/* An exception return: back to the stacked context, or a tail-chain into
 * another handler. Returns 1, or fail's -1. */
static int follow_return(qrec_t *q, cand_t *c, const flow_t *f)
{
    cand_t *n = &q->next;
    unsigned nipsr = n->raw.xpsr & 0x1FF;
    uint32_t h, next = f->next;
    if ((next & 0x0FFFFFF0u) != 0x0FFFFFF0u || !((next & 0xF) == 1 || (next & 0xF) == 9 || (next & 0xF) == 0xD))
        return fail(q, c, "EXC_RETURN value 0x%08" PRIx32 " is not one of 0xFFFFFFF1, 9, D", next);
    if (q->depth == 0)
        return fail(q, c, "an exception return with no exception active");
    frame_t *fr = &q->stack[q->depth - 1];
    if (nipsr == fr->prev_ipsr && (!fr->ret_known || n->raw.pc == fr->ret)) {
        n->ctx = ETM_CM3_CTX_RETURN;
        n->excnum = fr->prev_ipsr;
        q->itstate = fr->it;
        q->depth--;
        q->st.returns++;
    } else if (nipsr != 0 && vector(q->img, nipsr, &h) == 0 && h == n->raw.pc) {
        n->ctx = ETM_CM3_CTX_TAILCHAIN;
        n->excnum = (uint16_t)nipsr;
        q->itstate = 0;
        q->st.tail_chains++;
        q->st.exc_count[nipsr]++;
    } else {
        return fail(q, c, "after the exception return QEMU ran 0x%08" PRIx32 " in exception %u; the "
                          "stacked context is 0x%08" PRIx32 " in %u, and it is not a handler",
                    n->raw.pc, nipsr, fr->ret, fr->prev_ipsr);
    }
    return 1;
}

/* An exception entry before the next instruction (checked against the
 * vector table), with what the handler will return to. Returns 1, or -1. */
static int follow_entry(qrec_t *q, cand_t *c, const flow_t *f)
{
    cand_t *n = &q->next;
    unsigned nipsr = n->raw.xpsr & 0x1FF;
    uint32_t h, next = f->next;
    uint8_t b[4];
    if (nipsr == f->ipsr)
        return fail(q, c, "the next instruction QEMU ran is at 0x%08" PRIx32 ", this one leads to 0x%08" PRIx32,
                    n->raw.pc, next);
    if (nipsr == 0)
        return fail(q, c, "thread mode resumed at 0x%08" PRIx32 " without an exception return", n->raw.pc);
    if (vector(q->img, nipsr, &h) != 0 || h != n->raw.pc)
        return fail(q, c, "exception %u entered at 0x%08" PRIx32 ", its vector says 0x%08" PRIx32, nipsr,
                    n->raw.pc, h);
    if (q->depth == MAX_DEPTH)
        return fail(q, c, "exceptions nested more than %d deep", MAX_DEPTH);
    frame_t *fr = &q->stack[q->depth++];
    fr->ret = next;
    fr->ret_known = f->known;
    fr->prev_ipsr = (uint16_t)f->ipsr;
    fr->it = q->itstate;
    n->ctx = ETM_CM3_CTX_ENTRY;
    n->excnum = (uint16_t)nipsr;
    n->async = !(f->cl.kind == ETM_CM3_K_SVC && f->passed && nipsr == 11);
    if (f->known && qrec_image_read(q->img, next, b, 2) == 2) {
        unsigned sz = etm_cm3_insn_size(le16(b));
        if (sz == 2 || qrec_image_read(q->img, next, b, 4) == 4) {
            n->ret_valid = 1;
            n->ret_size = (uint8_t)sz;
            n->ret_addr = next;
            n->ret_opcode = sz == 4 ? (uint32_t)le16(b) << 16 | le16(b + 2) : le16(b);
            n->ret_in_it = (uint8_t)it_active(q->itstate);
        }
    }
    q->itstate = 0;
    q->st.entries++;
    q->st.sync_entries += !n->async;
    q->st.preemptions += f->ipsr != 0;
    q->st.exc_count[nipsr]++;
    if ((unsigned)q->depth > q->st.max_depth)
        q->st.max_depth = (unsigned)q->depth;
    return 1;
}

/* What comes next: the same context, an exception entry, a return, a
 * tail-chain. Returns 1, or fail's -1. */
static int follow(qrec_t *q, cand_t *c, const flow_t *f, etm_cm3_insn_t *out)
{
    if (!q->have_next) {
        if (f->exc_return)
            return fail(q, c, "the program ends with an exception return");
        out->next = f->next;
        return 1;
    }
    const cand_t *n = &q->next;
    unsigned nipsr = n->raw.xpsr & 0x1FF;
    int k = 1;
    if (f->exc_return)
        k = follow_return(q, c, f);
    else if ((f->cl.kind == ETM_CM3_K_SVC && f->passed) || nipsr != f->ipsr || (f->known && n->raw.pc != f->next))
        k = follow_entry(q, c, f);
    else {
        out->next = f->known ? f->next : n->raw.pc;
        return 1;
    }
    out->next = f->next;
    return k;
}

static int convert(qrec_t *q, etm_cm3_insn_t *out)
{
    cand_t *c = &q->pend;
    const qt_insn_t *r = &c->raw;
    flow_t f;
    memset(&f, 0, sizeof f);
    etm_cm3_classify(r->pc, r->opcode, r->size, &f.cl);
    f.ipsr = r->xpsr & 0x1FF;
    int k = condition(q, c, &f);
    if (k == 1)
        k = destination(q, c, &f);
    if (k != 1)
        return k;
    fill_record(c, &f, out);
    if ((k = follow(q, c, &f, out)) != 1)
        return k;
    q->st.insns++;
    q->st.failed += !f.passed;
    q->st.in_it += f.in_it;
    q->st.taken += f.taken;
    q->st.mems += c->nmem;
    for (unsigned i = 0; i < c->nmem; i++)
        q->st.io_mems += c->mem[i].io;
    return 1;
}

int qrec_next(qrec_t *q, etm_cm3_insn_t *out)
{
    if (q->failed)
        return -1;
    if (q->stop_after && q->st.insns >= q->stop_after) {
        q->stopped = 1;
        return 0;
    }
    if (!q->have_pend) {
        if (q->have_next) {
            q->pend = q->next;
            q->have_next = 0;
        } else {
            int k = clean_next(q, &q->pend);
            if (k <= 0)
                return k;
        }
        q->have_pend = 1;
    }
    if (!q->have_next) {
        int k = clean_next(q, &q->next);
        if (k < 0)
            return -1;
        q->have_next = k;
    }
    if (convert(q, out) < 0)
        return -1;
    q->have_pend = 0;
    if (q->st.insns > q->max_insns)
        return fail(q, NULL, "more than %" PRIu64 " instructions and the program has not exited: it hangs, or it "
                             "needs a higher limit", q->max_insns);
    return 1;
}

/* ---- Running QEMU ---------------------------------------------------------------------------- */

int qrec_qemu_start(qrec_run_t *r, const qrec_qemu_opts_t *o, const char *elf, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->pid = -1;
    int fds[2];
    if (pipe(fds) != 0) {
        say(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char icount[64], plugin[1024];
    snprintf(icount, sizeof icount, "shift=%u,sleep=off", o->icount_shift);
    snprintf(plugin, sizeof plugin, "%s,out=/dev/fd/3", o->plugin);
    const char *qemu = o->qemu ? o->qemu : "qemu-system-arm";
    char *argv[] = { (char *)qemu, (char *)"-M", (char *)(o->machine ? o->machine : "lm3s6965evb"),
                     (char *)"-nographic", (char *)"-monitor", (char *)"none", (char *)"-serial", (char *)"none",
                     (char *)"-semihosting-config", (char *)"enable=on,target=native", (char *)"-icount", icount,
                     (char *)"-singlestep", (char *)"-kernel", (char *)elf, (char *)"-plugin", plugin, NULL, NULL,
                     NULL };
    if (o->stock_log) {
        argv[15] = (char *)"-d";
        argv[16] = (char *)"exec,nochain,int";
        argv[17] = (char *)"-D";
        argv[18] = (char *)"/dev/fd/3";
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 3);
    if (fds[1] != 3)
        posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, o->log_path ? o->log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid;
    int e = posix_spawnp(&pid, qemu, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e != 0) {
        close(fds[0]);
        say(err, errlen, "cannot start %s: %s", qemu, strerror(e));
        return -1;
    }
    r->pid = (int)pid;
    r->f = fdopen(fds[0], "rb");
    if (!r->f) {
        close(fds[0]);
        say(err, errlen, "fdopen: %s", strerror(errno));
        return -1;
    }
    setvbuf(r->f, NULL, _IOFBF, 1u << 20);
    if (o->log_path)
        snprintf(r->log, sizeof r->log, "%s", o->log_path);
    return 0;
}

int qrec_qemu_wait(qrec_run_t *r, char *err, size_t errlen)
{
    if (r->f) {
        /* Drain what is left so QEMU is not blocked on a full pipe. */
        char buf[65536];
        while (fread(buf, 1, sizeof buf, r->f) > 0) {
        }
        fclose(r->f);
        r->f = NULL;
    }
    if (r->pid < 0)
        return -1;
    int status = 0;
    while (waitpid((pid_t)r->pid, &status, 0) < 0) {
        if (errno != EINTR) {
            say(err, errlen, "waitpid: %s", strerror(errno));
            return -1;
        }
    }
    r->pid = -1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    say(err, errlen, "QEMU was killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}

/* ---- Sources -------------------------------------------------------------------------------- */

int qrec_source_open(qrec_source_t *s, const qrec_source_opts_t *o, const char *program, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->run.pid = -1;
    size_t n = strlen(program);
    if (strchr(program, '/') || (n > 4 && !strcmp(program + n - 4, ".elf")))
        snprintf(s->elf, sizeof s->elf, "%s", program);
    else
        snprintf(s->elf, sizeof s->elf, "%s/%s.elf", o->workload_dir ? o->workload_dir : ".", program);
    if (qrec_image_load(&s->img, s->elf, err, errlen) != 0)
        return -1;
    FILE *f;
    if (o->raw) {
        s->raw = fopen(o->raw, "rb");
        if (!s->raw) {
            say(err, errlen, "%s: cannot open: %s", o->raw, strerror(errno));
            qrec_image_free(&s->img);
            return -1;
        }
        f = s->raw;
    } else {
        if (qrec_qemu_start(&s->run, &o->qemu, s->elf, err, errlen) != 0) {
            qrec_image_free(&s->img);
            return -1;
        }
        f = s->run.f;
    }
    s->q = qrec_create(f, o->raw ? o->raw : "QEMU", &s->img);
    if (!s->q) {
        say(err, errlen, "out of memory");
        qrec_source_close(s, NULL, 0);
        return -1;
    }
    if (o->max_insns)
        qrec_set_max_insns(s->q, o->max_insns);
    /* A saved stream is read as fast as the disk allows; QEMU gets the time limits. */
    qrec_set_limits(s->q, o->raw ? 0 : o->timeout_s ? o->timeout_s : QREC_DEFAULT_TIMEOUT_S,
                    o->raw ? 0 : o->idle_s ? o->idle_s : QREC_DEFAULT_IDLE_S, o->stop_after);
    return 0;
}

int qrec_source_close(qrec_source_t *s, char *err, size_t errlen)
{
    int rc = 0;
    if (s->raw) {
        fclose(s->raw);
        s->raw = NULL;
    } else if (s->run.pid >= 0) {
        int stop = s->q && (s->q->failed || s->q->stopped); /* no reason to let it run on */
        if (stop)
            kill((pid_t)s->run.pid, SIGKILL);
        rc = qrec_qemu_wait(&s->run, err, errlen);
        if (stop) /* killed here: its verdict is not known (and after --stop-after not wanted) */
            rc = 0;
    }
    if (s->q)
        qrec_free(s->q);
    s->q = NULL;
    qrec_image_free(&s->img);
    return rc;
}
