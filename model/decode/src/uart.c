/* uart.c - bytes from the samples of an NRZ serial line, 8N1, or of a
 * Manchester one (etm/uart.h). */
#include "etm/uart.h"

#include <string.h>

#include "util.h"

#define UART_MAX_SAMPLES_PER_BIT (1u << 24)
#define UART_STOP_BIT (ETM_UART_FRAME_BITS - 1)

/* u cleared for a line of the code given, the rates checked: a bit of at
 * least need samples (2 NRZ, 4 Manchester), at most UART_MAX_SAMPLES_PER_BIT. */
static etm_err_t init_rates(etm_uart_t *u, uint64_t samplerate, uint64_t baud, int manchester, etm_diag_t *diag)
{
    memset(u, 0, sizeof *u);
    u->cut = UINT64_MAX;
    u->manchester = (uint8_t)(manchester != 0);
    unsigned need = manchester ? 4 : 2;
    if (!samplerate || !baud)
        return etm_util_fail(diag, ETM_ERR_ARG, "a sample rate and a baud rate above 0 are needed");
    if (samplerate / need < baud)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "%llu baud sampled at %llu Hz: a %sbit needs at least %u samples (a rate of %llu baud or "
                             "less)", (unsigned long long)baud, (unsigned long long)samplerate,
                             manchester ? "Manchester " : "", need, (unsigned long long)(samplerate / need));
    if (samplerate / baud > UART_MAX_SAMPLES_PER_BIT)
        return etm_util_fail(diag, ETM_ERR_ARG, "%llu baud sampled at %llu Hz: more than %u samples a bit",
                             (unsigned long long)baud, (unsigned long long)samplerate, UART_MAX_SAMPLES_PER_BIT);
    u->samplerate = samplerate;
    u->baud = baud;
    return ETM_OK;
}

etm_err_t etm_uart_init(etm_uart_t *u, uint64_t samplerate, uint64_t baud, etm_diag_t *diag)
{
    etm_err_t e = init_rates(u, samplerate, baud, 0, diag);
    if (e != ETM_OK)
        return e;
    /* floor((2k + 1) * samplerate / (2 * baud)) without overflow */
    uint64_t q = samplerate / (2 * baud), r = samplerate % (2 * baud);
    for (unsigned k = 0; k < ETM_UART_FRAME_BITS; k++)
        u->at[k] = (2 * k + 1) * q + (2 * k + 1) * r / (2 * baud);
    return ETM_OK;
}

etm_err_t etm_uart_init_manchester(etm_uart_t *u, uint64_t samplerate, uint64_t baud, etm_diag_t *diag)
{
    etm_err_t e = init_rates(u, samplerate, baud, 1, diag);
    if (e != ETM_OK)
        return e;
    /* k quarters of a bit, rounded: (k * samplerate + 2 * baud) / (4 * baud), without overflow */
    uint64_t q = samplerate / (4 * baud), r = samplerate % (4 * baud);
    u->q1 = q + (r + 2 * baud) / (4 * baud);
    u->q2 = 2 * q + (2 * r + 2 * baud) / (4 * baud);
    u->q3 = 3 * q + (3 * r + 2 * baud) / (4 * baud);
    u->q5 = 5 * q + (5 * r + 2 * baud) / (4 * baud);
    return ETM_OK;
}

/* A falling edge rel samples into the byte: how many whole bits after the start edge. */
static void note_fall(etm_uart_t *u, uint64_t rel)
{
    uint64_t j = (2 * rel * u->baud + u->samplerate) / (2 * u->samplerate); /* rel < 10 bits: no overflow */
    if (j >= 1 && j < UART_STOP_BIT) {
        u->fall_samples += rel;
        u->fall_bits += j;
        u->fall_count++;
    }
}

/* The sample at a bit's centre, level lv. Returns 1 when the byte is over (a
 * byte to report in *b, or a glitch), else 0. */
static int read_bit(etm_uart_t *u, unsigned lv, etm_uart_byte_t *b)
{
    unsigned k = u->bit++;
    if (k == 0) {
        if (lv) {
            u->glitches++;
            u->in_byte = 0;
            return 1;
        }
        return 0;
    }
    if (k < UART_STOP_BIT) {
        u->value |= lv << (k - 1);
        return 0;
    }
    u->in_byte = 0;
    b->start = u->start;
    b->stop = u->pos;
    b->value = (uint8_t)u->value;
    b->framing_error = !lv;
    if (lv) {
        u->bytes++;
        u->edge_samples += u->fall_samples;
        u->edge_bits += u->fall_bits;
        u->edges += u->fall_count;
    } else {
        u->framing_errors++;
    }
    return 2;
}

/* Samples up to the next falling edge after the line was high: returns how
 * many were passed over (the edge's sample not among them). */
static size_t hunt(etm_uart_t *u, const uint8_t *lv, size_t n)
{
    size_t i = 0;
    uint8_t prev = u->prev;
    while (i < n && !(prev && !lv[i]))
        prev = lv[i++] != 0;
    u->prev = prev;
    u->pos += i;
    return i;
}

/* Manchester: a byte out (into *b): good, or a framing error. */
static void manch_byte(etm_uart_t *u, etm_uart_byte_t *b, uint8_t value, uint64_t start, uint64_t stop, int good)
{
    b->start = start;
    b->stop = stop;
    b->value = value;
    b->framing_error = (uint8_t)!good;
    if (good)
        u->bytes++;
    else
        u->framing_errors++;
}

/* Manchester: the packet is over at sample u->pos, the line at lv. Returns
 * the bytes put in b (0 or 1: the byte waiting, or the part of one). */
static size_t manch_end(etm_uart_t *u, unsigned lv, etm_uart_byte_t *b)
{
    size_t n = 0;
    unsigned part = u->pbits % 8;
    int good = !lv && !part && u->pbits; /* low after whole bytes */
    if (u->pending) {
        manch_byte(u, b, u->pending_value, u->pending_start, u->pending_stop, good);
        n = 1;
    } else if (part) {
        manch_byte(u, b, (uint8_t)u->value, u->byte_start, u->pos, 0);
        n = 1;
    } else {
        u->glitches++; /* a start bit and no data: not a packet */
    }
    if (good) {
        u->edge_samples += u->mid - u->first_mid;
        u->edge_bits += u->pbits;
        u->edges += u->pbits;
    }
    u->pending = 0;
    u->in_byte = 0;
    u->seen_idle = !lv;
    return n;
}

/* Manchester: one sample of a packet. Returns the bytes put in b (0 or 1). */
static size_t manch_sample(etm_uart_t *u, unsigned lv, etm_uart_byte_t *b)
{
    int edge = lv != u->prev;
    if (u->bit == 0) { /* the start bit's middle: a fall a quarter to three quarters in */
        uint64_t rel = u->pos - u->start;
        if ((edge && !(!lv && rel >= u->q1 && rel <= u->q3)) || (!edge && rel > u->q3)) {
            u->glitches++;
            u->in_byte = 0;
            u->seen_idle = !lv;
            return 0;
        }
        if (edge) {
            u->bit = 1;
            u->mid = u->first_mid = u->pos;
            u->byte_start = u->start;
        }
        return 0;
    }
    uint64_t rel = u->pos - u->mid;
    if (rel > u->q5) { /* no middle where the next bit's should be: the packet is over */
        size_t n = manch_end(u, u->prev, b); /* the line as it stayed */
        if (lv && !u->prev) { /* and this sample is the next packet's rising edge */
            u->in_byte = 1;
            u->start = u->pos;
            u->bit = 0;
            u->pbits = 0;
            u->value = 0;
        }
        return n;
    }
    if (edge && rel >= u->q3) { /* the next bit's middle; the level before it is its value */
        size_t n = 0;
        if (u->pending) { /* more bits follow the waiting byte: it was whole */
            manch_byte(u, b, u->pending_value, u->pending_start, u->pending_stop, 1);
            u->pending = 0;
            n = 1;
        }
        if (u->pbits % 8 == 0) {
            u->value = 0;
            if (u->pbits) /* the first byte starts at the packet's edge */
                u->byte_start = u->pos - u->q2;
        }
        u->value |= u->prev << (u->pbits % 8);
        u->pbits++;
        u->mid = u->pos;
        if (u->pbits % 8 == 0) {
            u->pending = 1;
            u->pending_value = (uint8_t)u->value;
            u->pending_start = u->byte_start;
            u->pending_stop = u->pos;
        }
        return n;
    }
    return 0; /* a transition between two bits */
}

static size_t manch_feed(etm_uart_t *u, const uint8_t *levels, size_t n, etm_uart_byte_t *out, size_t max,
                         size_t *nout)
{
    size_t i = 0;
    *nout = 0;
    for (; i < n; i++, u->pos++) {
        unsigned lv = levels[i] != 0;
        if (!u->in_byte) {
            if (lv && u->seen_idle && !u->prev) { /* a rising edge after the line was low */
                u->in_byte = 1;
                u->start = u->pos;
                u->bit = 0;
                u->pbits = 0;
                u->value = 0;
                u->pending = 0;
            } else if (!lv) {
                u->seen_idle = 1;
            }
            u->prev = (uint8_t)lv;
            continue;
        }
        if (*nout == max)
            break; /* a byte may end here: room first */
        *nout += manch_sample(u, lv, &out[*nout]);
        u->prev = (uint8_t)lv;
    }
    return i;
}

size_t etm_uart_feed(etm_uart_t *u, const uint8_t *levels, size_t n, etm_uart_byte_t *out, size_t max,
                     size_t *nout)
{
    if (u->manchester)
        return manch_feed(u, levels, n, out, max, nout);
    size_t i = 0;
    *nout = 0;
    while (i < n) {
        if (!u->in_byte) {
            i += hunt(u, levels + i, n - i);
            if (i == n)
                break;
            u->in_byte = 1;
            u->bit = 0;
            u->value = 0;
            u->start = u->pos;
            u->fall_samples = u->fall_bits = u->fall_count = 0;
        }
        if (*nout == max)
            break; /* a byte may end here: room first */
        unsigned lv = levels[i] != 0;
        uint64_t rel = u->pos - u->start;
        if (u->prev && !lv && rel)
            note_fall(u, rel);
        int over = rel == u->at[u->bit] ? read_bit(u, lv, &out[*nout]) : 0;
        if (over == 2)
            (*nout)++;
        u->prev = (uint8_t)lv;
        u->pos++;
        i++;
    }
    return i;
}

void etm_uart_end(etm_uart_t *u)
{
    if (u->in_byte)
        u->cut = u->manchester && u->pending ? u->pending_start : u->start;
    u->in_byte = 0;
    u->pending = 0;
}

double etm_uart_measured_baud(const etm_uart_t *u)
{
    if (!u->edge_samples)
        return 0.0;
    return (double)u->samplerate * (double)u->edge_bits / (double)u->edge_samples;
}

double etm_uart_tolerance(const etm_uart_t *u)
{
    double s = (double)u->samplerate / (double)u->baud;
    if (u->manchester)
        return s > 4.0 ? 0.25 - 1.0 / s : 0.0;
    return s > 2.0 ? (0.5 - 1.0 / s) / 10.0 : 0.0;
}

/* ---- Pulse lengths ------------------------------------------------------------- */

void etm_uart_runs_init(etm_uart_runs_t *r) { memset(r, 0, sizeof *r); }

void etm_uart_runs_feed(etm_uart_runs_t *r, const uint8_t *levels, size_t n)
{
    size_t i = 0;
    if (!r->started && n) {
        r->level = levels[0] != 0;
        r->started = 1;
    }
    for (; i < n; i++) {
        uint8_t lv = levels[i] != 0;
        if (lv == r->level) {
            r->run++;
            continue;
        }
        if (r->seen_edge && r->run < ETM_UART_RUN_MAX) {
            r->count[r->run]++;
            r->total++;
        }
        r->seen_edge = 1;
        r->level = lv;
        r->run = 1;
    }
}

double etm_uart_runs_bit(const etm_uart_runs_t *r)
{
    if (r->total < 10)
        return 0.0;
    unsigned shortest = 1;
    while (shortest < ETM_UART_RUN_MAX && r->count[shortest] * 100 < r->total)
        shortest++;
    uint64_t pulses = 0, samples = 0;
    for (unsigned len = shortest; len < ETM_UART_RUN_MAX && len <= shortest + shortest / 4 + 1; len++) {
        pulses += r->count[len];
        samples += r->count[len] * len;
    }
    return pulses ? (double)samples / (double)pulses : 0.0;
}
