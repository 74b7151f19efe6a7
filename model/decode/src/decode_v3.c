/* decode_v3.c - streaming decoder of the ETMv3 trace protocol (ETMv3.0-3.5).
 *
 * Written from IHI 0014 chapter 7 and checked against a real ETMv3.5 capture with
 * Arm's own decode (tb/oracle/tc2_ds5.c). It shares nothing with the encoder.
 * docs/decoder.md explains the conventions; the comments here name the rule each
 * step follows.
 *
 * Layout (decode_v3_int.h holds the state they share):
 *   decode_v3.c         decoder state, callbacks, byte feeding (A-sync search,
 *                       packet boundaries, errors)
 *   decode_v3_insn.c    1. instruction classifier (A32, T32)
 *   decode_v3_packet.c  2. packet layer: byte stream -> packets (header table, payloads)
 *   decode_v3_trace.c   3. trace layer: packets -> elements (atoms, code following,
 *                          cancel, cycles)
 */
#include "etm/decode_v3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_v3_int.h"
#include "etm/consts.h"
#include "util.h"

/* ---- Header encodings (IHI 0014 table 7.1) --------------------------------- */

#define ETMV3_ASYNC_MIN_ZEROS 5u       /* A-sync: at least five 0x00, then 0x80 */

/* =========================================================================== */
/* Decoder state (struct etm_v3dec: decode_v3_int.h)                           */
/* =========================================================================== */

static const char *const pkt_names[] = {
#define ETM_V3_X_NAME(name, text) text,
    ETM_V3_PKT_LIST(ETM_V3_X_NAME)
#undef ETM_V3_X_NAME
};

static const char *const el_names[] = {
#define ETM_V3_X_NAME(name, text) text,
    ETM_V3_EL_LIST(ETM_V3_X_NAME)
#undef ETM_V3_X_NAME
};

const char *etm_v3pkt_kind_name(etm_v3pkt_kind_t kind)
{
    return (unsigned)kind < ETM_V3PKT_KIND_COUNT ? pkt_names[kind] : "?";
}

const char *etm_v3el_kind_name(etm_v3el_kind_t kind)
{
    return (unsigned)kind < ETM_V3EL_KIND_COUNT ? el_names[kind] : "?";
}

static void state_reset(etm_v3dec_t *d)
{
    d->synced = 0;
    d->skip_start = d->pos;
    d->zeros = 0;
    d->in_async = 0;
    d->len = 0;
    d->pkt_off = d->pos;
    d->last_addr = 0;
    d->last_data_addr = 0;
    d->ts_raw = 0;
    d->isync_seen = 0;
    d->addr_valid = 0;
    d->pc = 0;
    d->gap_reported = 0;
    d->npend = 0;
    d->dinsn_valid = 0;
    d->dnext_valid = 0;
    memset(d->ph, 0, sizeof d->ph);
    d->ddata_held = 0;
}

etm_err_t etm_v3dec_create(etm_v3dec_t **out, const etm_config_t *cfg, unsigned flags, etm_diag_t *diag)
{
    if (!out || !cfg)
        return etm_util_fail(diag, ETM_ERR_ARG, "etm_v3dec_create needs an output pointer and a configuration");
    *out = NULL;
    if (!ETM_FIELD_GET(ETM_CCR_ETMIDR, cfg->etmccr) || ETM_FIELD_GET(ETM_IDR_MAJOR, cfg->etmidr) != 2)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "the ETMv3 decoder needs an ETMv3 (ETMCCR[31]=1 and ETMIDR[11:8]=2); "
                             "ETMIDR is 0x%08x", (unsigned)cfg->etmidr);
    if (ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr) > 5)
        return etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                             "ETMIDR[7:4]=%u: the decoder knows ETMv3.0 to ETMv3.5",
                             (unsigned)ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr));
    etm_v3dec_t *d = (etm_v3dec_t *)calloc(1, sizeof *d);
    if (!d)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory for the ETMv3 decoder");
    static const unsigned ctxid_sizes[4] = { 0, 1, 2, 4 };
    d->minor = ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr);
    d->cycle_acc = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr) != 0;
    d->ctxid_bytes = ctxid_sizes[ETM_FIELD_GET(ETM_CR_CTXID_SIZE, cfg->etmcr)];
    d->ts_on = ETM_FIELD_GET(ETM_CR_TIMESTAMP, cfg->etmcr) != 0;
    d->ts64 = ETM_FIELD_GET(ETM_CCER_TS_SIZE, cfg->etmccer) != 0;
    d->ts_binary = ETM_FIELD_GET(ETM_CCER_TS_ENCODING, cfg->etmccer) != 0;
    d->vmid_on = ETM_FIELD_GET(ETM_CR_VMID, cfg->etmcr) != 0;
    d->virt = ETM_FIELD_GET(ETM_CCER_VIRTUALIZATION, cfg->etmccer) != 0;
    d->alt_branch = d->minor >= 4 && ETM_FIELD_GET(ETM_IDR_ALT_BRANCH, cfg->etmidr) != 0;
    d->data_value = (cfg->etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE)) != 0;
    d->data_addr = (cfg->etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR)) != 0;
    d->data_only = ETM_FIELD_GET(ETM_CR_DATA_ONLY, cfg->etmcr) != 0;
    d->v7m = (flags & ETM_V3DEC_V7M) != 0;
    d->packets_only = (flags & ETM_V3DEC_PACKETS) != 0;
    d->isa = ETM_V3_ISA_ARM;
    state_reset(d);
    *out = d;
    return ETM_OK;
}

void etm_v3dec_destroy(etm_v3dec_t *d) { free(d); }

void etm_v3dec_on_packet(etm_v3dec_t *d, etm_v3pkt_fn fn, void *user)
{
    d->pkt_fn = fn;
    d->pkt_user = user;
}

void etm_v3dec_on_element(etm_v3dec_t *d, etm_v3el_fn fn, void *user)
{
    d->el_fn = fn;
    d->el_user = user;
}

void etm_v3dec_set_image(etm_v3dec_t *d, etm_v3_read_fn fn, void *user)
{
    d->read_fn = fn;
    d->read_user = user;
}

const etm_v3dec_stats_t *etm_v3dec_get_stats(const etm_v3dec_t *d) { return &d->stats; }

size_t etm_v3dec_stats_size(void) { return sizeof(etm_v3dec_stats_t); }

void etm_v3dec_reset(etm_v3dec_t *d)
{
    d->pos = 0;
    d->cycle = 0;
    d->isa = ETM_V3_ISA_ARM;
    d->context_id = 0;
    d->dseq = 0;
    memset(&d->stats, 0, sizeof d->stats);
    state_reset(d);
}

/* =========================================================================== */
/* Byte feeding: packet boundaries, A-sync search, errors                      */
/* =========================================================================== */

static void send_packet(etm_v3dec_t *d, etm_v3pkt_t *p)
{
    d->stats.packets[p->kind]++;
    if (d->pkt_fn)
        d->pkt_fn(d->pkt_user, p);
}

/* What the next packets' parsing needs from this one: the trace layer keeps
 * it as it goes (decode_v3_trace.c); with ETM_V3DEC_PACKETS, only this runs. */
static void packet_state(etm_v3dec_t *d, const etm_v3pkt_t *p)
{
    switch (p->kind) {
    case ETM_V3PKT_BRANCH:
        d->last_addr = p->addr;
        d->isa = p->isa;
        break;
    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC:
        if (p->has_addr) {
            d->isa = p->isa;
            d->last_addr = p->lsip ? p->lsip_addr : p->addr;
        }
        break;
    default:
        break;
    }
    /* a store-failed packet completes the normal or out-of-order data packet before it */
    d->ddata_held = p->kind == ETM_V3PKT_NORMAL_DATA || p->kind == ETM_V3PKT_OOO_DATA;
}

/* What the trace layer holds goes out (an error, the end: with placeholders
 * that will get no values). With packets only, nothing is held. */
static void flush_trace(etm_v3dec_t *d, int end)
{
    if (d->packets_only) {
        d->ddata_held = 0;
        return;
    }
    dv3_data_release(d);
    if (end)
        dv3_data_lose_placeholders(d);
    dv3_commit(d);
}

/* A complete packet to the trace layer, or only to the packet state. */
static void on_packet_done(etm_v3dec_t *d, etm_v3pkt_t *p)
{
    if (d->packets_only)
        packet_state(d, p);
    else
        dv3_on_packet(d, p);
}

static void send_nosync(etm_v3dec_t *d, uint64_t upto)
{
    if (upto <= d->skip_start)
        return;
    etm_v3pkt_t p;
    memset(&p, 0, sizeof p);
    p.kind = ETM_V3PKT_NOSYNC;
    p.offset = d->skip_start;
    p.size = upto - d->skip_start;
    p.raw = d->buf;
    p.raw_len = (unsigned)(p.size < d->len ? p.size : d->len);
    send_packet(d, &p);
    d->skip_start = upto;
}

static void send_async(etm_v3dec_t *d, uint64_t start)
{
    uint8_t raw[ETM_V3_RAW_MAX];
    etm_v3pkt_t p;
    memset(&p, 0, sizeof p);
    p.kind = ETM_V3PKT_ASYNC;
    p.offset = start;
    p.size = d->pos + 1 - start;
    p.raw_len = (unsigned)(p.size < ETM_V3_RAW_MAX ? p.size : ETM_V3_RAW_MAX);
    memset(raw, 0, sizeof raw);
    raw[p.raw_len - 1] = ETMV3_HDR_ASYNC_LAST;
    p.raw = raw;
    send_packet(d, &p);
    if (!d->packets_only)
        dv3_on_packet(d, &p);
}

/* Lose synchronisation after an error: commit what was decoded, look for A-sync. */
static etm_err_t fail(etm_v3dec_t *d, etm_diag_t *diag, uint64_t offset, const char *msg)
{
    flush_trace(d, 0);
    uint64_t next = d->pos + 1;
    d->pos = next;
    state_reset(d);
    if (diag) {
        etm_util_fail(diag, ETM_ERR_DECODE, "%s", msg);
        diag->offset = offset;
    }
    return ETM_ERR_DECODE;
}

/* A byte before synchronisation: skip until at least five 0x00 then 0x80. */
static inline etm_err_t feed_unsynced(etm_v3dec_t *d, uint8_t c)
{
    if (d->len < ETM_V3_RAW_MAX)
        d->buf[d->len++] = c;
    if (c == 0) {
        d->zeros++;
    } else if (c == ETMV3_HDR_ASYNC_LAST && d->zeros >= ETMV3_ASYNC_MIN_ZEROS) {
        uint64_t start = d->pos - d->zeros;
        send_nosync(d, start);
        d->synced = 1;
        d->len = 0;
        d->zeros = 0;
        send_async(d, start);
    } else {
        d->zeros = 0;
    }
    d->pos++;
    return ETM_OK;
}

/* A byte inside an A-sync: more 0x00, or the 0x80 that ends it after enough
 * of them; anything else is an error. */
static inline etm_err_t feed_in_async(etm_v3dec_t *d, uint8_t c, etm_diag_t *diag)
{
    if (c == 0) {
        d->zeros++;
    } else if (c == ETMV3_HDR_ASYNC_LAST && d->zeros >= ETMV3_ASYNC_MIN_ZEROS) {
        send_async(d, d->pkt_off);
        d->in_async = 0;
        d->zeros = 0;
    } else {
        char msg[200];
        if (c == ETMV3_HDR_ASYNC_LAST)
            snprintf(msg, sizeof msg, "A-sync at offset %llu has %u bytes 0x00 before 0x80; it needs at "
                     "least %u", (unsigned long long)d->pkt_off, d->zeros, ETMV3_ASYNC_MIN_ZEROS);
        else
            snprintf(msg, sizeof msg, "byte 0x%02x inside the A-sync that started at offset %llu; an A-sync "
                     "is 0x00 bytes then 0x80", c, (unsigned long long)d->pkt_off);
        return fail(d, diag, d->pos, msg);
    }
    d->pos++;
    return ETM_OK;
}

/* The first byte of a packet when it is a packet by itself: an A-sync's first
 * 0x00 (the A-sync goes on) or a P-header, the commonest packet (its own
 * packet object). Returns 1 when it was, 0 when the byte begins a longer
 * packet (nothing done). */
static inline int feed_first_byte(etm_v3dec_t *d, uint8_t c)
{
    d->pkt_off = d->pos;
    if (c == ETMV3_HDR_ASYNC) {
        d->in_async = 1;
        d->zeros = 1;
        d->pos++;
        return 1;
    }
    perr_t pe;
    if ((c & 0x81u) == 0x80u && v3p_parse_packet(d, &c, 1, &d->phdr, &pe) == PARSE_DONE) {
        d->buf[0] = c;
        d->phdr.offset = d->pos;
        d->phdr.size = 1;
        d->phdr.raw = d->buf;
        d->phdr.raw_len = 1;
        send_packet(d, &d->phdr);
        on_packet_done(d, &d->phdr);
        d->pos++;
        return 1;
    }
    return 0;
}

/* A timestamp as transmitted (Gray code when ETMCCER[28]=0) into binary:
 * binary[n] = XOR of Gray[N:n] (IHI 0014 7.7.3). */
static inline uint64_t gray_to_binary(uint64_t g)
{
    for (unsigned s = 1; s < 64; s <<= 1)
        g ^= g >> s;
    return g;
}

/* The packet of the d->len bytes in d->buf is complete: what it changes in the
 * decoder state (context ID, timestamp, data address), then it goes out. A
 * store-failed packet not after a data packet is an error. */
static inline etm_err_t packet_complete(etm_v3dec_t *d, etm_v3pkt_t *p, etm_diag_t *diag)
{
    p->offset = d->pkt_off;
    p->size = d->len;
    p->raw = d->buf;
    p->raw_len = d->len;
    switch (p->kind) {
    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC:
        if (p->has_context_id)
            d->context_id = p->context_id;
        break;
    case ETM_V3PKT_CONTEXT_ID:
        d->context_id = p->context_id;
        break;
    case ETM_V3PKT_TIMESTAMP:
        /* compression works on the value as transmitted; Gray code is converted after */
        d->ts_raw = p->timestamp;
        if (!d->ts_binary)
            p->timestamp = gray_to_binary(p->timestamp);
        break;
    default:
        break;
    }
    if (p->kind == ETM_V3PKT_STORE_FAILED && !d->ddata_held) {
        char msg[200];
        snprintf(msg, sizeof msg, "store-failed packet (0x50) not right after a normal or out-of-order data packet "
                                  "(IHI 0014 7.4.7: it follows the packet of the failed STREX)");
        return fail(d, diag, d->pkt_off, msg);
    }
    if (p->has_data_addr)
        d->last_data_addr = p->data_addr;
    send_packet(d, p);
    on_packet_done(d, p);
    d->len = 0;
    d->pos++;
    return ETM_OK;
}

/* One byte. */
static etm_err_t feed_byte(etm_v3dec_t *d, uint8_t c, etm_diag_t *diag)
{
    if (!d->synced)
        return feed_unsynced(d, c);
    if (d->in_async)
        return feed_in_async(d, c, diag);
    if (d->len == 0 && feed_first_byte(d, c))
        return ETM_OK;
    d->buf[d->len++] = c;
    /* An address byte of a branch packet with its continuation bit (bit 7 of
     * bytes 0 to 3, in either branch encoding): more follow, nothing to parse yet. */
    if ((d->buf[0] & 1u) && d->len < 5 && (c & 0x80u)) {
        d->pos++;
        return ETM_OK;
    }
    etm_v3pkt_t p = d->pkt_zero;
    perr_t e;
    e.at = 0;
    e.msg[0] = '\0';
    int r = v3p_parse_packet(d, d->buf, d->len, &p, &e);
    if (r == PARSE_ERR)
        return fail(d, diag, d->pkt_off + e.at, e.msg);
    if (r == PARSE_MORE) {
        if (d->len == ETM_V3_RAW_MAX)
            return fail(d, diag, d->pos, "packet longer than any ETMv3 packet"); /* not reached */
        d->pos++;
        return ETM_OK;
    }
    return packet_complete(d, &p, diag);
}

etm_err_t etm_v3dec_feed(etm_v3dec_t *d, const uint8_t *data, size_t n, size_t *used, etm_diag_t *diag)
{
    size_t k;
    for (k = 0; k < n; k++) {
        etm_err_t err = feed_byte(d, data[k], diag);
        d->stats.bytes++;
        if (err != ETM_OK) {
            if (used)
                *used = k + 1;
            d->stats.cycles = d->cycle;
            return err;
        }
    }
    if (used)
        *used = n;
    d->stats.cycles = d->cycle;
    return ETM_OK;
}

etm_err_t etm_v3dec_end(etm_v3dec_t *d, etm_diag_t *diag)
{
    flush_trace(d, 1);
    d->stats.cycles = d->cycle;
    if (!d->synced) {
        send_nosync(d, d->pos);
        return ETM_OK;
    }
    if (d->in_async || d->len > 0) {
        char msg[200];
        etm_v3pkt_t p;
        perr_t e;
        memset(&p, 0, sizeof p);
        if (d->in_async)
            p.kind = ETM_V3PKT_ASYNC;
        else
            (void)v3p_parse_packet(d, d->buf, d->len, &p, &e);
        snprintf(msg, sizeof msg, "the trace ends inside a %s packet (%llu bytes of it seen)",
                 etm_v3pkt_kind_name(p.kind),
                 (unsigned long long)(d->in_async ? d->zeros : d->len));
        uint64_t off = d->pkt_off;
        d->in_async = 0;
        d->len = 0;
        d->zeros = 0;
        if (diag) {
            etm_util_fail(diag, ETM_ERR_DECODE, "%s", msg);
            diag->offset = off;
        }
        return ETM_ERR_DECODE;
    }
    return ETM_OK;
}
