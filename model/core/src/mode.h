/* mode.h - the version and mode of an instance, decoded once from its registers
 * (internal; setup.c decodes them, every stage reads them) */
#ifndef ETM_MODE_H
#define ETM_MODE_H

#include <stdint.h>

#include "core_inline.h"
#include "etm/config.h"
#include "etm/consts.h"
#include "etm/model.h"
#include "etm/regmap.h"
#include "etm/signals.h"

typedef struct etm_mode {
    unsigned version;      /* ETM_V() */
    int v3;                /* ETMv3 packet protocol (else ETMv1) */
    int cycle_accurate;    /* ETMCR[12] */
    int branch_broadcast;  /* ETMCR[8] */
    int alt_branch;        /* ETMIDR[20] with ETMv3.4 or later */
    int format4;           /* ETMv3.3 and later */
    int exc_ext;           /* ETMv3.4 and later: the exception-return packet (0x76) and
                              exception byte 1 (exception numbers of 16 and more) */
    int sync_in_bytes;     /* ETMv3.1 and later: ETMSYNCFR counts bytes */
    int enabled;           /* not powered down and not being programmed */
    uint32_t sync_period;  /* ETMSYNCFR; 0 means no periodic sync */
    unsigned fifo_depth, port_bytes;
    unsigned fifo_write;   /* ETMv3: staged bytes entering the FIFO's store per cycle (FIFO_WRITE) */
    unsigned pkt_queue;    /* ETMv3: cycle records waiting for the packet generator (PKT_QUEUE; 0: none) */
    int ph_eager;          /* PH_EAGER: ETMFLUSH closes the atoms gathered (else only a packet or a full header) */
    int branch_full;       /* BRANCH_FULL: branch packets carry the whole address */
    uint8_t trace_id;      /* ETMTRACEIDR[6:0]: ATID */
    uint8_t atb_flush;     /* the ATB master has the flush handshake (PORT_BYTES > 1) */
    unsigned v1_port_bits; /* ETMv1: 4, 8 or 16 (ETMCR port size) */
    int data_addr;         /* ETMCR[3]: data addresses traced */
    int data_value;        /* ETMCR[2]: data values traced */
    unsigned fifofull_level; /* ETMCR[7] and ETMFFRR's region ? ETMFFLR : 0: FIFOFULL below this many free bytes */
    /* Implementation choices (regs.def, "choice:"; docs/etmv3-encoder.md). */
    int ph_m3;             /* PH_PACKING=1: format 1 P-headers only, closed at N or 15 E, sent at once */
    int trace_start;       /* TRACE_START=1: the first atom after a restart alone, a trigger after it */
    uint8_t isync_info;    /* ISYNC_INFO: bits of every I-sync information byte */
    int sync_m3;           /* SYNC_PLACEMENT=1: A-sync where a packet closes, I-sync half a period later */
    int tailchain_return;  /* TAILCHAIN_RETURN=1 (ETMv3.4 on): 0x76 before a tail-chained entry */
    int cancel_withdraw;   /* CANCEL_FORM=1: the Cancel bit withdraws the last atom sent */
} etm_mode_t;

#endif
