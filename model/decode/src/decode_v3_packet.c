/* decode_v3_packet.c - the ETMv3 decoder's packet layer: a packet's bytes to an
 * etm_v3pkt_t (IHI 0014 chapter 7: the header table 7.1, the P-header tables
 * 7.2 and 7.3, branch addresses 7.3.5, I-sync 7.3.4, data 7.4, timestamps 7.7).
 *
 * Only the parser is here; decode_v3.c feeds it the bytes and changes the
 * decoder state once a packet is complete.
 */
#include "etm/decode_v3.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "decode_v3_int.h"
#include "etm/consts.h"

/* Mask of the low `bits` bits of a 32-bit value. */
static uint32_t low_mask32(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : ((1u << bits) - 1u); }
static uint64_t low_mask64(unsigned bits) { return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u); }

/* The parser re-reads the packet from its first byte each time a byte is added,
 * so it needs no per-kind resume state; packets are at most ~20 bytes. It fills
 * p only; the decoder state changes after the packet is complete. */
#define NEED(idx)                                                                     \
    do {                                                                              \
        if ((idx) >= n)                                                               \
            return PARSE_MORE;                                                        \
    } while (0)

static int perr_set(perr_t *e, unsigned at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int perr_set(perr_t *e, unsigned at, const char *fmt, ...)
{
    va_list ap;
    e->at = at;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return PARSE_ERR;
}

/* Cycle count field: 1-5 bytes of 7 bits, bit 7 = more; the 5th byte gives [31:28]. */
static int parse_count(const uint8_t *b, unsigned n, unsigned *i, uint32_t *v)
{
    uint32_t x = 0;
    for (unsigned k = 0; k < 5; k++) {
        NEED(*i);
        uint8_t c = b[(*i)++];
        if (k < 4) {
            x |= (uint32_t)(c & 0x7Fu) << (7 * k);
            if (!(c & ETMV3_CONTINUE))
                break;
        } else {
            x |= (uint32_t)(c & 0x0Fu) << 28;
        }
    }
    *v = x;
    return PARSE_DONE;
}

/* A branch-format address as its bytes are read: the address bits so far and
 * what the bytes said.
 *
 * parse_address and its helpers below call perr_set and then return
 * PARSE_ERR themselves, not perr_set's result: with the helpers inlined, the
 * compiler then knows that an error ends the parse (after `return
 * perr_set(...)` it must allow for a result of PARSE_DONE and go on, which
 * cost the hot path a stack frame and a few instructions a branch packet). */
typedef struct addr_acc {
    uint32_t value;    /* the address bits, from bit 0 of byte 0's field */
    unsigned bits;     /*   how many */
    int more;          /* the last byte read has its continue bit */
    int exc;           /* exception bytes follow */
    int isa_given;     /* byte 4 or an exception byte named the instruction set */
    etm_v3_isa_t isa;
} addr_acc_t;

/* Address bytes 0 to 3 at b[*i], each with its continue bit (a->more after
 * byte 3: byte 4 follows). Byte 0 is C A[6:1] 1 (Thumb numbering), bytes 1
 * to 3 seven bits each, except in the alternative encoding the last of them:
 * six bits and E. */
static inline int addr_low_bytes(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, addr_acc_t *a)
{
    unsigned start = *i;
    NEED(*i);
    uint8_t c = b[(*i)++];
    a->value = (uint32_t)(c >> 1) & 0x3Fu;
    a->bits = 6;
    a->more = (c & ETMV3_CONTINUE) != 0;
    while (a->more && *i - start < 4) {
        NEED(*i);
        c = b[(*i)++];
        a->more = (c & ETMV3_CONTINUE) != 0;
        if (d->alt_branch && !a->more) {
            a->value |= (uint32_t)(c & 0x3Fu) << a->bits;
            a->bits += 6;
            a->exc = (c & 0x40u) != 0;
        } else {
            a->value |= (uint32_t)(c & 0x7Fu) << a->bits;
            a->bits += 7;
        }
    }
    return PARSE_DONE;
}

/* Address byte 4 at b[*i]: 0 E state-field, or (the original encoding, where
 * allow_exc) 1 C exception[2:0] ..., the deprecated ARM exception form. */
static inline int addr_byte4(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, int allow_exc,
                             addr_acc_t *a, etm_v3pkt_t *p, perr_t *e)
{
    unsigned at = *i;
    NEED(*i);
    uint8_t c = b[(*i)++];
    a->isa_given = 1;
    if (c & 0x80u) {
        if (d->alt_branch || !allow_exc) {
            perr_set(e, at, "byte 4 of a branch address (0x%02x) has bit 7 set, which only the "
                            "original encoding's deprecated ARM exception form uses", c);
            return PARSE_ERR;
        }
        a->isa = ETM_V3_ISA_ARM;
        a->value |= (uint32_t)(c & 0x07u) << a->bits;
        a->bits += 3;
        p->exception = 1;
        p->deprecated_exc = 1;
        p->exc_number = (c >> 3) & 7u;
        p->cancel = (c & 0x40u) != 0;
        return PARSE_DONE;
    }
    a->exc = (c & 0x40u) != 0;
    if ((c & 0x38u) == 0x08u) {
        a->isa = ETM_V3_ISA_ARM; /* 0 E 0 0 1 A[31:29] */
        a->value |= (uint32_t)(c & 0x07u) << a->bits;
        a->bits += 3;
    } else if ((c & 0x30u) == 0x10u) {
        a->isa = ETM_V3_ISA_THUMB; /* 0 E 0 1 A[31:28] */
        a->value |= (uint32_t)(c & 0x0Fu) << a->bits;
        a->bits += 4;
    } else if ((c & 0x20u) == 0x20u) {
        a->isa = ETM_V3_ISA_JAZELLE; /* 0 E 1 A[31:27] */
        a->value |= (uint32_t)(c & 0x1Fu) << a->bits;
        a->bits += 5;
    } else {
        perr_set(e, at, "byte 4 of a branch address (0x%02x) names no instruction set: bits [5:3] are 000", c);
        return PARSE_ERR;
    }
    return PARSE_DONE;
}

/* Exception byte 2 at b[*i]: 0 1 x x Resume[3:0], the last. */
static inline int exc_resume_byte(const uint8_t *b, unsigned n, unsigned *i, etm_v3pkt_t *p, perr_t *e)
{
    unsigned at = *i;
    NEED(*i);
    uint8_t c = b[(*i)++];
    if (c & ETMV3_CONTINUE) {
        perr_set(e, at, "exception byte 2 (0x%02x) has its continue bit set; no exception byte follows byte 2",
                 c);
        return PARSE_ERR;
    }
    p->has_resume = 1;
    p->resume = c & 0xFu;
    return PARSE_DONE;
}

/* The exception bytes after a branch address, at b[*i]: byte 0, then from
 * ETMv3.4 byte 1 or byte 2 directly, and byte 2 after byte 1 (IHI 0014Q
 * 7.5.1). */
static inline int exception_bytes(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, etm_v3pkt_t *p,
                                  perr_t *e)
{
    /* exception byte 0: C AltISA Cancel Exception[3:0] NS */
    NEED(*i);
    uint8_t c = b[(*i)++];
    p->exception = 1;
    p->ns = c & 1u;
    p->exc_number = (c >> 1) & 0xFu;
    p->cancel = (c >> 5) & 1u;
    p->altisa = (c >> 6) & 1u;
    if ((c & ETMV3_CONTINUE) && d->minor < 4) {
        perr_set(e, *i - 1, "exception byte 0 (0x%02x) says more exception bytes follow; they came "
                            "with ETMv3.4 (IHI 0014Q 7.5.1) and this configuration is ETMv3.%u",
                 c, d->minor);
        return PARSE_ERR;
    }
    if (!(c & ETMV3_CONTINUE))
        return PARSE_DONE;
    NEED(*i);
    c = b[*i];
    if (c & 0x40u) /* byte 2 directly (byte 1 skipped) */
        return exc_resume_byte(b, n, i, p, e);
    /* byte 1: C 0 Hyp Exception[8:4] */
    (*i)++;
    if (d->v7m)
        p->exc_number |= (uint32_t)(c & 0x1Fu) << 4;
    p->hyp = d->virt ? (c >> 5) & 1u : 0;
    if (c & ETMV3_CONTINUE)
        return exc_resume_byte(b, n, i, p, e);
    return PARSE_DONE;
}

/* Branch-format address at b[*i] (a branch packet's first byte, or an LSiP
 * address), compressed against base. allow_exc: exception bytes may follow.
 * IHI 0014 7.3.5; the alternative encoding from ETMv3.4 (ETMIDR[20]). */
static int parse_address(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, uint32_t base,
                         etm_v3_isa_t isa, int allow_exc, etm_v3pkt_t *p, perr_t *e)
{
    addr_acc_t a = { 0, 0, 0, 0, 0, isa };
    int r;
    if ((r = addr_low_bytes(d, b, n, i, &a)) != PARSE_DONE)
        return r;
    if (a.more && (r = addr_byte4(d, b, n, i, allow_exc, &a, p, e)) != PARSE_DONE)
        return r;
    if (a.exc) {
        if (!allow_exc) {
            perr_set(e, *i - 1, "the LSiP address of an I-sync says exception bytes follow; "
                                "only branch packets carry them");
            return PARSE_ERR;
        }
        if ((r = exception_bytes(d, b, n, i, p, e)) != PARSE_DONE)
            return r;
        if (a.isa == ETM_V3_ISA_THUMB || a.isa == ETM_V3_ISA_THUMBEE) {
            a.isa = p->altisa ? ETM_V3_ISA_THUMBEE : ETM_V3_ISA_THUMB;
            a.isa_given = 1;
        }
    }
    /* bits of byte 0 are A[6:1] for Thumb, A[7:2] for ARM, A[5:0] for Jazelle */
    unsigned shift = a.isa == ETM_V3_ISA_ARM ? 2u : a.isa == ETM_V3_ISA_JAZELLE ? 0u : 1u;
    unsigned total = a.bits + shift;
    uint32_t mask = low_mask32(total);
    p->addr = (base & ~mask) | ((a.value << shift) & mask);
    p->addr_bits = total > 32 ? 32 : total;
    p->isa = a.isa;
    p->isa_given = a.isa_given;
    return PARSE_DONE;
}

/* P-header atoms (IHI 0014 tables 7.2 and 7.3). */
static int parse_phdr(const etm_v3dec_t *d, uint8_t h, etm_v3pkt_t *p, perr_t *e)
{
    char *a = p->atoms;
    if (!d->cycle_acc) {
        if ((h & 0x83u) == 0x80u) {
            /* format 1: 1 N EEEE 0 0 */
            p->format = 1;
            for (unsigned k = 0; k < ((h >> 2) & 0xFu); k++)
                *a++ = 'E';
            if (h & 0x40u)
                *a++ = 'N';
        } else if ((h & 0xF3u) == 0x82u) {
            /* format 2: 1 0 0 0 F F 1 0, bit 3 first, 1 = N */
            p->format = 2;
            *a++ = (h & 0x08u) ? 'N' : 'E';
            *a++ = (h & 0x04u) ? 'N' : 'E';
        } else {
            return perr_set(e, 0, "P-header 0x%02x is reserved when not cycle-accurate "
                                  "(IHI 0014 table 7.2: 1001xx10, 101xxx10, 11xxxx10)", h);
        }
    } else if (h == 0x80u) {
        if (d->minor != 0)
            return perr_set(e, 0, "P-header 0x80 (format 0) exists only in ETMv3.0; "
                                  "this ETM is ETMv3.%u, where it is reserved", d->minor);
        p->format = 0;
        *a++ = 'W';
    } else if ((h & 0xA3u) == 0x80u) {
        /* format 1: 1 N 0 EEE 0 0 -> EEE x (W E), N x (W N) */
        p->format = 1;
        for (unsigned k = 0; k < ((h >> 2) & 7u); k++) {
            *a++ = 'W';
            *a++ = 'E';
        }
        if (h & 0x40u) {
            *a++ = 'W';
            *a++ = 'N';
        }
    } else if ((h & 0xF3u) == 0x82u) {
        /* format 2: W, then two atoms */
        p->format = 2;
        *a++ = 'W';
        *a++ = (h & 0x08u) ? 'N' : 'E';
        *a++ = (h & 0x04u) ? 'N' : 'E';
    } else if ((h & 0xA3u) == 0xA0u) {
        /* format 3: 1 E 1 WWW 0 0 -> (WWW+1) x W, then E if bit 6 */
        p->format = 3;
        for (unsigned k = 0; k <= ((h >> 2) & 7u); k++)
            *a++ = 'W';
        if (h & 0x40u)
            *a++ = 'E';
    } else if ((h & 0xFBu) == 0x92u) {
        if (d->minor < 3)
            return perr_set(e, 0, "P-header 0x%02x (format 4) exists from ETMv3.3; "
                                  "this ETM is ETMv3.%u, where 10010x10 is reserved", h, d->minor);
        p->format = 4;
        *a++ = (h & 0x04u) ? 'N' : 'E';
    } else {
        return perr_set(e, 0, "P-header 0x%02x is reserved in cycle-accurate mode "
                              "(IHI 0014 table 7.3: 10011x10, 101xxx10, 11xxxx10)", h);
    }
    *a = '\0';
    return PARSE_DONE;
}

/* Data address: 1-5 bytes, 7 bits each with bit 7 = more; the 5th gives [31:28]. */
static int parse_data_addr(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *i, etm_v3pkt_t *p)
{
    uint32_t v = 0;
    unsigned bits = 0;
    for (unsigned k = 0; k < 5; k++) {
        NEED(*i);
        uint8_t c = b[(*i)++];
        if (k < 4) {
            v |= (uint32_t)(c & 0x7Fu) << (7 * k);
            bits += 7;
            if (!(c & ETMV3_CONTINUE))
                break;
        } else {
            v |= (uint32_t)(c & 0x0Fu) << 28;
            bits += 4;
        }
    }
    uint32_t mask = low_mask32(bits);
    p->has_data_addr = 1;
    p->data_addr = (d->last_data_addr & ~mask) | (v & mask);
    p->data_addr_bits = bits;
    return PARSE_DONE;
}

static int parse_value(const uint8_t *b, unsigned n, unsigned *i, unsigned size_field, etm_v3pkt_t *p)
{
    unsigned bytes = size_field == 3 ? 4 : size_field;
    uint32_t v = 0;
    for (unsigned k = 0; k < bytes; k++) {
        NEED(*i);
        v |= (uint32_t)b[(*i)++] << (8 * k);
    }
    p->value_size = bytes;
    p->value = v;
    return PARSE_DONE;
}

static int need_data(const etm_v3dec_t *d, uint8_t h, int value_needed, perr_t *e)
{
    if (value_needed ? d->data_value : (d->data_value || d->data_addr))
        return PARSE_DONE;
    return perr_set(e, 0, "header 0x%02x is a data-trace packet, but ETMCR[3:2] say %s is not traced",
                    h, value_needed ? "the data value" : "data");
}

/* I-sync and I-sync with cycle count: [count] [context ID] information byte
 * [address [LSiP address]] (IHI 0014 7.3.4). */
static int parse_isync(const etm_v3dec_t *d, uint8_t h, const uint8_t *b, unsigned n, unsigned *ip, etm_v3pkt_t *p,
                       perr_t *e)
{
    unsigned i = *ip;
    int r;
    if (h == ETMV3_HDR_ISYNC_CC) {
        if (!d->cycle_acc)
            return perr_set(e, 0, "I-sync with cycle count (0x70) while ETMCR[12] says the trace is not "
                                  "cycle-accurate");
        r = parse_count(b, n, &i, &p->cycle_count);
        if (r != PARSE_DONE)
            return r;
    }
    if (d->ctxid_bytes) {
        NEED(i + d->ctxid_bytes - 1);
        p->has_context_id = 1;
        for (unsigned k = 0; k < d->ctxid_bytes; k++)
            p->context_id |= (uint32_t)b[i + k] << (8 * k);
        i += d->ctxid_bytes;
    }
    /* information byte: LSiP reason[1:0] J NS AltISA Hyp x */
    NEED(i);
    uint8_t info = b[i++];
    p->lsip = (info >> 7) & 1u;
    p->reason = (info >> 5) & 3u;
    p->jazelle = (info >> 4) & 1u;
    p->ns = (info >> 3) & 1u;
    p->altisa = d->minor >= 3 ? (info >> 2) & 1u : 0;
    p->hyp = d->virt ? (info >> 1) & 1u : 0;
    if (!d->data_only) {
        NEED(i + 3);
        uint32_t a = dv3_le32(b + i);
        i += 4;
        p->has_addr = 1;
        p->addr_bits = 32;
        p->isa_given = 1;
        if (p->jazelle) {
            p->isa = ETM_V3_ISA_JAZELLE;
            p->addr = a;
        } else if (a & 1u) {
            p->isa = p->altisa ? ETM_V3_ISA_THUMBEE : ETM_V3_ISA_THUMB;
            p->addr = a & ~1u;
        } else {
            p->isa = ETM_V3_ISA_ARM;
            p->addr = a;
        }
        if (p->lsip) {
            etm_v3pkt_t q;
            memset(&q, 0, sizeof q);
            r = parse_address(d, b, n, &i, p->addr, p->isa, 0, &q, e);
            if (r != PARSE_DONE)
                return r;
            p->lsip_addr = q.addr;
        }
    }
    *ip = i;
    return PARSE_DONE;
}

/* Timestamp: the value as transmitted, compressed against the last one. */
static int parse_timestamp(const etm_v3dec_t *d, uint8_t h, const uint8_t *b, unsigned n, unsigned *ip,
                           etm_v3pkt_t *p, perr_t *e)
{
    unsigned i = *ip;
    if (!d->ts_on)
        return perr_set(e, 0, "timestamp packet (0x%02x) while ETMCR[28] says timestamps are off", h);
    p->ts_rate_changed = (h >> 2) & 1u;
    /* 7 bits a byte, bit 7 = more; the last possible byte (7th, or 9th for 64-bit
     * timestamps) carries 6 (or 8) bits and no continue bit (IHI 0014 7.7.4) */
    unsigned maxb = d->ts64 ? 9u : 7u, bits = 0;
    uint64_t v = 0;
    for (unsigned k = 0; k < maxb; k++) {
        NEED(i);
        uint8_t c = b[i++];
        if (k + 1 < maxb) {
            v |= (uint64_t)(c & 0x7Fu) << (7 * k);
            bits += 7;
            if (!(c & ETMV3_CONTINUE))
                break;
        } else {
            unsigned last = d->ts64 ? 8u : 6u;
            v |= (uint64_t)(c & (uint8_t)low_mask32(last)) << (7 * k);
            bits += last;
        }
    }
    uint64_t mask = low_mask64(bits);
    p->ts_bits = bits;
    p->timestamp = (d->ts_raw & ~mask) | (v & mask); /* as transmitted; see feed_byte() */
    *ip = i;
    return PARSE_DONE;
}

/* Context ID packet: ETMCR[15:14] give its size. */
static int parse_context_id(const etm_v3dec_t *d, const uint8_t *b, unsigned n, unsigned *ip, etm_v3pkt_t *p,
                            perr_t *e)
{
    unsigned i = *ip;
    if (!d->ctxid_bytes)
        return perr_set(e, 0, "context ID packet (0x6E) while ETMCR[15:14] say context IDs are not traced");
    NEED(i + d->ctxid_bytes - 1);
    p->has_context_id = 1;
    for (unsigned k = 0; k < d->ctxid_bytes; k++)
        p->context_id |= (uint32_t)b[i + k] << (8 * k);
    i += d->ctxid_bytes;
    *ip = i;
    return PARSE_DONE;
}

/* Out-of-order data 0 TT 0 SS 0 0: tag and value. */
static int parse_ooo_data(const etm_v3dec_t *d, uint8_t h, const uint8_t *b, unsigned n, unsigned *i, etm_v3pkt_t *p,
                          perr_t *e)
{
    if (need_data(d, h, 1, e) != PARSE_DONE)
        return PARSE_ERR;
    p->tag = (h >> 5) & 3u;
    return parse_value(b, n, i, (h >> 2) & 3u, p);
}

/* Out-of-order placeholder 0 1 A 1 TT 0 0: tag and, with A, an address. */
static int parse_placeholder(const etm_v3dec_t *d, uint8_t h, const uint8_t *b, unsigned n, unsigned *i,
                             etm_v3pkt_t *p, perr_t *e)
{
    if (need_data(d, h, 0, e) != PARSE_DONE)
        return PARSE_ERR;
    p->tag = (h >> 2) & 3u;
    p->data_first = (h & 0x20u) != 0;
    if ((h & 0x20u) && d->data_addr)
        return parse_data_addr(d, b, n, i, p);
    return PARSE_DONE;
}

/* Normal data 0 0 A 0 SS 1 0: with A an address, then the value. */
static int parse_normal_data(const etm_v3dec_t *d, uint8_t h, const uint8_t *b, unsigned n, unsigned *i,
                             etm_v3pkt_t *p, perr_t *e)
{
    int r;
    if (need_data(d, h, 0, e) != PARSE_DONE)
        return PARSE_ERR;
    p->data_first = (h & 0x20u) != 0;
    if ((h & 0x20u) && d->data_addr) {
        r = parse_data_addr(d, b, n, i, p);
        if (r != PARSE_DONE)
            return r;
    }
    return parse_value(b, n, i, (h >> 2) & 3u, p);
}

/* Value not traced 0 1 1 A 1 0 1 0: with A an address. */
static int parse_not_traced(const etm_v3dec_t *d, uint8_t h, const uint8_t *b, unsigned n, unsigned *i,
                            etm_v3pkt_t *p, perr_t *e)
{
    if (need_data(d, h, 0, e) != PARSE_DONE)
        return PARSE_ERR;
    p->data_first = (h & 0x10u) != 0;
    if ((h & 0x10u) && d->data_addr)
        return parse_data_addr(d, b, n, i, p);
    return PARSE_DONE;
}

/* Classify the header and parse the packet in b[0..n-1]. */
int v3p_parse_packet(const etm_v3dec_t *d, const uint8_t *b, unsigned n, etm_v3pkt_t *p, perr_t *e)
{
    uint8_t h = b[0];
    unsigned i = 1;
    int r = PARSE_DONE;

    if (h & 1u) {
        p->kind = ETM_V3PKT_BRANCH;
        i = 0;
        r = parse_address(d, b, n, &i, d->last_addr, d->isa, 1, p, e);
    } else if ((h & 0x81u) == 0x80u) {
        p->kind = ETM_V3PKT_PHDR;
        r = parse_phdr(d, h, p, e);
    } else if (h == ETMV3_HDR_CYCLE_COUNT) {
        p->kind = ETM_V3PKT_CYCLE_COUNT;
        if (!d->cycle_acc)
            return perr_set(e, 0, "cycle-count packet (0x04) while ETMCR[12] says the trace is not cycle-accurate");
        r = parse_count(b, n, &i, &p->cycle_count);
    } else if (h == ETMV3_HDR_ISYNC || h == ETMV3_HDR_ISYNC_CC) {
        p->kind = h == ETMV3_HDR_ISYNC ? ETM_V3PKT_ISYNC : ETM_V3PKT_ISYNC_CC;
        r = parse_isync(d, h, b, n, &i, p, e);
    } else if (h == ETMV3_HDR_ASYNC) {
        p->kind = ETM_V3PKT_ASYNC; /* handled by the caller; not reached */
    } else if (h == ETMV3_HDR_TRIGGER) {
        p->kind = ETM_V3PKT_TRIGGER;
    } else if (h == ETMV3_HDR_VMID) {
        p->kind = ETM_V3PKT_VMID;
        if (!d->vmid_on)
            return perr_set(e, 0, "VMID packet (0x3C) while ETMCR[30] says VMIDs are not traced");
        NEED(i);
        p->vmid = b[i++];
    } else if ((h & ETMV3_HDR_TIMESTAMP_MASK) == ETMV3_HDR_TIMESTAMP) {
        p->kind = ETM_V3PKT_TIMESTAMP;
        r = parse_timestamp(d, h, b, n, &i, p, e);
    } else if (h == ETMV3_HDR_IGNORE) {
        p->kind = ETM_V3PKT_IGNORE;
    } else if (h == ETMV3_HDR_CONTEXT_ID) {
        p->kind = ETM_V3PKT_CONTEXT_ID;
        r = parse_context_id(d, b, n, &i, p, e);
    } else if (h == ETMV3_HDR_EXC_RETURN) {
        if (d->minor < 4)
            return perr_set(e, 0, "exception-return packet (0x76): it came with ETMv3.4 (IHI 0014Q 7.6) and this "
                                  "configuration is ETMv3.%u", d->minor);
        p->kind = ETM_V3PKT_EXC_RETURN;
    } else if (h == ETMV3_HDR_EXC_ENTRY) {
        p->kind = ETM_V3PKT_EXC_ENTRY;
    } else if (h == ETMV3_HDR_STORE_FAILED) {
        p->kind = ETM_V3PKT_STORE_FAILED;
        if (need_data(d, h, 1, e) != PARSE_DONE)
            return PARSE_ERR;
    } else if (h == ETMV3_HDR_DATA_SUPPRESSED) {
        p->kind = ETM_V3PKT_DATA_SUPPRESSED;
        if (need_data(d, h, 0, e) != PARSE_DONE)
            return PARSE_ERR;
    } else if ((h & 0x93u) == 0x00u && (h & 0x60u) != 0) {
        p->kind = ETM_V3PKT_OOO_DATA;
        r = parse_ooo_data(d, h, b, n, &i, p, e);
    } else if ((h & 0xD3u) == 0x50u && (h & 0x0Cu) != 0) {
        p->kind = ETM_V3PKT_OOO_PLACEHOLDER;
        r = parse_placeholder(d, h, b, n, &i, p, e);
    } else if ((h & 0xD3u) == 0x02u) {
        p->kind = ETM_V3PKT_NORMAL_DATA;
        r = parse_normal_data(d, h, b, n, &i, p, e);
    } else if ((h & 0xEFu) == 0x6Au) {
        p->kind = ETM_V3PKT_VALUE_NOT_TRACED;
        r = parse_not_traced(d, h, b, n, &i, p, e);
    } else {
        return perr_set(e, 0, "header 0x%02x is a reserved encoding (IHI 0014 table 7.1)", h);
    }
    return r; /* PARSE_DONE: i == n, the caller parses again after every byte */
}
