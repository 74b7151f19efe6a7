/* decode_v3_int.h - what the files of the ETMv3 decoder share (internal).
 *
 *   decode_v3.c        decoder state, callbacks, byte feeding and A-sync search
 *   decode_v3_insn.c   instruction classifier (A32, T32), exception names
 *   decode_v3_packet.c packet layer: header table and payloads -> packets
 *   decode_v3_trace.c  trace layer: packets -> elements (atoms, code following,
 *                      cancel, data)
 */
#ifndef ETM_DECODE_V3_INT_H
#define ETM_DECODE_V3_INT_H

#include <stdint.h>

#include "etm/decode_v3.h"

/* Elements waiting behind an instruction that a cancel may still withdraw. */
#define PEND_MAX 64

/* Little-endian halfword and word at b. */
static inline uint32_t dv3_le16(const uint8_t *b) { return (uint32_t)b[0] | ((uint32_t)b[1] << 8); }
static inline uint32_t dv3_le32(const uint8_t *b) { return dv3_le16(b) | (dv3_le16(b + 2) << 16); }

/* =========================================================================== */
/* Decoder state                                                               */
/* =========================================================================== */

typedef struct pend {
    etm_v3el_t el;
    int cancellable; /* a Cancel bit would withdraw it */
    int light;       /* made by the atom path: only the atom's fields can be non-zero */
} pend_t;

struct etm_v3dec {
    /* All zero, never written: a packet and an element are cleared by copying
     * these (compilers turn a constant-size memset of this size into a slow
     * string instruction, and the decoder clears one per byte and per atom). */
    etm_v3pkt_t pkt_zero;
    etm_v3el_t el_zero;
    /* The packet of every P-header: only a P-header's fields are ever written
     * into it, and each P-header writes all of them, so it needs no clearing. */
    etm_v3pkt_t phdr;
    int packets_only;     /* ETM_V3DEC_PACKETS */

    /* configuration, decoded once */
    unsigned minor;       /* ETMIDR[7:4] */
    int cycle_acc;        /* ETMCR[12] */
    unsigned ctxid_bytes; /* ETMCR[15:14]: 0, 1, 2, 4 */
    int ts_on;            /* ETMCR[28] */
    int ts64;             /* ETMCCER[29] */
    int ts_binary;        /* ETMCCER[28] */
    int vmid_on;          /* ETMCR[30] */
    int virt;             /* ETMCCER[26]: Hyp bits are meaningful */
    int alt_branch;       /* ETMIDR[20] with minor >= 4 */
    int data_value;       /* ETMCR[2] */
    int data_addr;        /* ETMCR[3] */
    int data_only;        /* ETMCR[20] */
    int v7m;

    etm_v3pkt_fn pkt_fn;
    void *pkt_user;
    etm_v3el_fn el_fn;
    void *el_user;
    etm_v3_read_fn read_fn;
    void *read_user;

    /* ---- packet layer ---- */
    uint64_t pos;         /* offset of the next byte fed */
    int synced;           /* an A-sync has been seen */
    /* while not synced */
    uint64_t skip_start;  /* offset of the first byte not yet reported */
    unsigned zeros;       /* 0x00 bytes in a row (also inside an A-sync when synced) */
    /* current packet */
    int in_async;         /* synced and inside an A-sync */
    uint8_t buf[ETM_V3_RAW_MAX];
    unsigned len;
    uint64_t pkt_off;

    /* state that decompression needs */
    uint32_t last_addr;   /* address of the last I-sync or branch packet */
    etm_v3_isa_t isa;     /* current instruction set */
    uint32_t last_data_addr;
    uint64_t ts_raw;      /* timestamp as transmitted (Gray or binary) */
    uint32_t context_id;

    /* ---- trace layer ---- */
    int isync_seen;       /* an I-sync since the last A-sync search */
    int addr_valid;       /* pc is the address of the next instruction */
    uint32_t pc;
    int gap_reported;     /* NO_IMAGE sent for the current gap */
    uint64_t cycle;
    pend_t pend[PEND_MAX];
    unsigned npend;

    /* data trace */
    int dinsn_valid;      /* the most recent data instruction executed is known */
    uint32_t dinsn_addr;
    int dinsn_ls;
    int dnext_valid;      /* the address of the next sequential transfer is known */
    uint32_t dnext;
    uint64_t dseq;        /* transfers so far */
    struct {
        int valid;        /* a placeholder with this tag waits for its value */
        etm_v3_data_t data;
        uint64_t offset;
    } ph[4];
    int ddata_held;       /* a NORMAL or OOO element waits for a store-failed packet */
    etm_v3el_t ddata;

    etm_v3dec_stats_t stats;
};

/* =========================================================================== */
/* Packet layer (decode_v3_packet.c)                                           */
/* =========================================================================== */

enum { PARSE_DONE = 0, PARSE_MORE = 1, PARSE_ERR = -1 };

typedef struct perr {
    unsigned at;    /* index of the offending byte in the packet */
    char msg[200];
} perr_t;

/* Classify the header and parse the packet in b[0..n-1] into p. Returns
 * PARSE_DONE, PARSE_MORE (more bytes needed) or PARSE_ERR (e set). It fills p
 * only; the decoder state changes after the packet is complete. */
int v3p_parse_packet(const etm_v3dec_t *d, const uint8_t *b, unsigned n, etm_v3pkt_t *p, perr_t *e);

/* =========================================================================== */
/* Trace layer (decode_v3_trace.c)                                             */
/* =========================================================================== */

/* The elements of a complete packet. */
void dv3_on_packet(etm_v3dec_t *d, const etm_v3pkt_t *p);

/* Deliver everything held back: nothing can cancel it any more. */
void dv3_commit(etm_v3dec_t *d);

/* Send the data element that waited for a possible store-failed packet. */
void dv3_data_release(etm_v3dec_t *d);

/* Placeholders still waiting will not get their values (overflow, end). */
void dv3_data_lose_placeholders(etm_v3dec_t *d);

#endif
