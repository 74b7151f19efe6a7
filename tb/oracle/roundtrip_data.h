/* roundtrip_data.h - the data trace half of the ETMv3 round trip (roundtrip.c):
 * what the project's decoder must report of each data transfer, as the rules
 * of docs/data-trace.md say (the data judge), and OpenCSD's packet processor
 * against the project's decoder, packet by packet, on the same bytes. */
#ifndef ETM_TB_ROUNDTRIP_DATA_H
#define ETM_TB_ROUNDTRIP_DATA_H

#include <stddef.h>
#include <stdint.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm/decode_v3.h"
#include "etm/gen.h"
#include "etm/signals.h"
#include "judge.h"

enum { XD_DATA, XD_NOT_TRACED, XD_RESYNC };

typedef struct xdata {
    uint8_t kind;
    uint8_t first, fail, imprecise;
    uint8_t need;          /* values still to come (2 for an unaligned access) */
    uint32_t insn, addr, value;
    uint64_t id;           /* number of the expected transfer */
} xdata_t;

#define DQCAP (1u << 16)
#define DPH 64

typedef struct djudge {
    judge_t *j;            /* where differences are counted */
    int addr_on, value_on; /* ETMCR[3], ETMCR[2] */
    xdata_t *q;            /* expected transfers in trace order, and resync markers */
    size_t head, len;
    uint64_t next_id;
    struct { int used; unsigned tag; uint64_t seq; xdata_t x; } ph[DPH]; /* reported placeholders */
    uint64_t slot_item[4]; /* the expected transfer (id + 1) whose value the slot waits for */
    uint64_t pair_item;    /* an unaligned access's first half (id + 1) */
    int owner_traced, started;
    uint64_t compared, normal, not_traced, placed, ooo, failed, lost, end_dropped;
} djudge_t;

/* The data judge: the generator presents each cycle's value (dj_value) and
 * transfer (dj_transfer), the decoder reports data elements (dj_element, the
 * judge's v3_data hook); overflow restarts drop what was waiting. */
void dj_value(djudge_t *g, const etm_in_t *in);
void dj_transfer(djudge_t *g, const etm_in_t *in, const etm_gen_xfer_t *x, int insn_traced, int view);
void dj_resync(djudge_t *g);
void dj_overflow(djudge_t *g);
void dj_element(djudge_t *g, const etm_v3_data_t *e);
/* The trace ended: what was not reported must be a transfer whose value never came. */
void dj_end(djudge_t *g);

typedef struct pkrec {
    int kind;              /* ocsd_etmv3_pkt_type (the project's kinds are mapped to it) */
    uint64_t offset, size;
    unsigned tag, addr_bytes;
    uint32_t value, addr7;
    int has_value, has_addr;
} pkrec_t;

#define PKCAP 4096

typedef struct pkcmp {
    pkrec_t own[PKCAP], ocsd[PKCAP];
    unsigned nown, nocsd;
    int on;
    uint64_t compared, data_compared;
    judge_t *j;
    uint8_t *strip;        /* the stream without its data packets, for OpenCSD's full decoder */
    size_t nstrip, cap;
} pkcmp_t;

/* The project's decoder's packets (etm_v3dec_on_packet): recorded, and all but
 * the data packets copied into strip for OpenCSD's full decoder. */
void own_pkt(void *user, const etm_v3pkt_t *p);
/* OpenCSD's packet processor's packets (its packet monitor callback). */
void ocsd_data_pkt(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx, const void *pkt,
                   const uint32_t size, const uint8_t *data);
/* Both parsers have seen the same bytes: the same packets. */
void pk_compare(pkcmp_t *c);

#endif
