/* judge_ocsd.c - OpenCSD's full ETMv3 decoder reporting to a judge (judge_ocsd.h). */
#include "judge_ocsd.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <opencsd/etmv3/trc_pkt_types_etmv3.h>

static ocsd_datapath_resp_t on_element(const void *ctx, const ocsd_trc_index_t idx, const uint8_t id,
                                       const ocsd_generic_trace_elem *e)
{
    const judge_ocsd_t *o = (const judge_ocsd_t *)(uintptr_t)ctx;
    judge_t *j = o->j;
    (void)id;
    j->have_now = o->cycles && idx >= o->cycles_base && idx - o->cycles_base < o->ncycles;
    if (j->have_now)
        j->now = o->cycles[idx - o->cycles_base];
    switch (e->elem_type) {
    case OCSD_GEN_TRC_ELEM_INSTR_RANGE: {
        uint32_t a = (uint32_t)e->st_addr;
        if (e->has_cc)
            j->cc_sum += e->cycle_count;
        for (uint32_t i = 0; i < e->num_instr_range; i++) {
            judge_got_insn(j, a, i + 1 == e->num_instr_range ? (int)e->last_instr_exec : 1, 0, j->cc_sum, 1);
            a += j->hooks.insn_size ? j->hooks.insn_size(j->hooks.user, a) : 2u;
        }
        break;
    }
    case OCSD_GEN_TRC_ELEM_CYCLE_COUNT:
        j->cc_sum += e->cycle_count;
        break;
    case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
        if (e->has_cc)
            j->cc_sum += e->cycle_count;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION:
        judge_got(j, JX_EXC, e->exception_number);
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
        judge_got(j, JX_ERET, 0);
        break;
    case OCSD_GEN_TRC_ELEM_EVENT:
        if (e->trace_event.ev_type == EVENT_TRIGGER) {
            if (j->triggers)
                judge_got(j, JX_TRIG, 0);
            else
                j->triggers_seen++;
        }
        break;
    case OCSD_GEN_TRC_ELEM_TRACE_ON:
        if (e->trace_on_reason == TRACE_ON_OVERFLOW)
            judge_got_overflow(j);
        break;
    case OCSD_GEN_TRC_ELEM_NO_SYNC:
    case OCSD_GEN_TRC_ELEM_EO_TRACE:
    case OCSD_GEN_TRC_ELEM_TIMESTAMP:
        break;
    default:
        judge_fail(j, "OpenCSD element %d at byte %" PRIu64 " (address 0x%" PRIx64 "): the trace lost its way",
                   (int)e->elem_type, (uint64_t)idx, (uint64_t)e->st_addr);
        break;
    }
    return OCSD_RESP_CONT;
}

/* A P-header's atoms and W as a string (IHI 0014 7.3; En_bits: oldest atom in bit 0). */
static unsigned phdr_string(const ocsd_etmv3_pkt *p, int ca, char *s)
{
    unsigned n = 0;
    if (ca && p->p_hdr_fmt == 3) { /* W{cycles}, then the E in the last of them */
        for (uint32_t w = 0; w < p->cycle_count && w < 8; w++)
            s[n++] = 'W';
        if (p->atom.num)
            s[n++] = 'E';
        return n;
    }
    for (unsigned k = 0; k < p->atom.num && k < 16; k++) {
        if (ca && (p->p_hdr_fmt == 1 || (p->p_hdr_fmt == 2 && k == 0)))
            s[n++] = 'W';
        s[n++] = (p->atom.En_bits >> k) & 1 ? 'E' : 'N';
    }
    return n;
}

static void on_packet(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx, const void *pkt,
                      const uint32_t size, const uint8_t *data)
{
    judge_ocsd_t *o = (judge_ocsd_t *)(uintptr_t)ctx;
    judge_t *j = o->j;
    const ocsd_etmv3_pkt *p = (const ocsd_etmv3_pkt *)pkt;
    if (op != OCSD_OP_DATA || !p)
        return;
    if (p->type == ETM3_PKT_BRANCH_ADDRESS && data && size) {
        unsigned n = 1; /* address bytes: bit 7 of the first four says another follows */
        while (n < 5 && n < size && (data[n - 1] & 0x80))
            n++;
        phaudit_branch(&o->ph, idx, (uint32_t)p->addr.val, n, p->exception.bits.present);
    }
    int cancel = p->type == ETM3_PKT_BRANCH_ADDRESS && p->exception.bits.present && p->exception.bits.cancel;
    if (p->type == ETM3_PKT_I_SYNC || p->type == ETM3_PKT_I_SYNC_CYCLE) {
        phaudit_isync(&o->ph, idx, (uint32_t)p->addr.val, p->isync_info.reason == iSync_Periodic,
                      p->isync_info.reason == iSync_TraceRestartAfterOverflow);
        /* Its information byte comes before the four address bytes (no LSiP
         * address on an M profile; OpenCSD does not decode bit 0). */
        partaudit_isync(&o->pa, data && size >= 6 ? data[size - 5] : 0, p->isync_info.reason == iSync_Periodic);
    } else if (p->type == ETM3_PKT_A_SYNC) {
        phaudit_async(&o->ph, idx);
        partaudit_async(&o->pa);
    } else if (p->type != ETM3_PKT_P_HDR && p->type != ETM3_PKT_IGNORE) {
        partaudit_other(&o->pa, cancel);
    }
    if (p->type != ETM3_PKT_IGNORE) {
        phaudit_bytes(&o->ph, size);
        partaudit_bytes(&o->pa, size);
    }
    if (p->type == ETM3_PKT_P_HDR) {
        char s[40];
        unsigned n = phdr_string(p, o->ca, s);
        phaudit_header(&o->ph, idx, s, n);
        partaudit_header(&o->pa, idx, data && size ? data[0] : 0, s, n);
    } else {
        /* Before ETMv3.4 an exception numbered 16 or more goes as a plain branch
         * packet, whose cancelled atom still stands alone before it. */
        int plain = p->type == ETM3_PKT_BRANCH_ADDRESS && !p->exception.bits.present && !o->exc_ext;
        phaudit_flush(&o->ph, cancel || plain);
    }
    /* OpenCSD drops the cycle count of a P-header whose atom a Cancel withdraws:
     * add it back, unless it kept the atom (and its count: the judge counted it
     * as kept since that header, judge_keep_cancels). */
    if (o->ca) {
        if (cancel && j->cancels_kept == o->kept_at_phdr)
            j->cc_sum += j->last_phdr_cc;
        j->last_phdr_cc = p->type == ETM3_PKT_P_HDR ? p->cycle_count : 0;
        o->kept_at_phdr = j->cancels_kept;
    }
}

int judge_ocsd_open(judge_ocsd_t *o, const etm_config_t *cfg, judge_t *j)
{
    return judge_ocsd_open_formatted(o, cfg, j, 0);
}

int judge_ocsd_open_formatted(judge_ocsd_t *o, const etm_config_t *cfg, judge_t *j, uint32_t dfrmtr_flags)
{
    memset(o, 0, sizeof *o);
    o->j = j;
    ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0);
    o->tree = dfrmtr_flags ? ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED, dfrmtr_flags)
                           : ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    ocsd_etmv3_cfg oc;
    memset(&oc, 0, sizeof oc);
    oc.reg_idr = cfg->etmidr;
    oc.reg_ctrl = cfg->etmcr & ~ETM_FIELD_MASK(ETM_CR_DATA_ACCESS); /* it gets no data packets */
    oc.reg_ccer = cfg->etmccer;
    oc.reg_trc_id = cfg->etmtraceidr;
    oc.arch_ver = ARCH_V7;
    oc.core_prof = profile_CortexM;
    unsigned char csid;
    if (!o->tree ||
        ocsd_dt_create_decoder(o->tree, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_FULL_DECODER, &oc, &csid) != OCSD_OK) {
        fprintf(stderr, "cannot create the OpenCSD decoder\n");
        return -1;
    }
    ocsd_dt_set_gen_elem_outfn(o->tree, on_element, o);
    o->ca = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr) != 0;
    if (cfg->cancel_form)
        judge_keep_cancels(j); /* its Cancel bug (judge.h) */
    unsigned ver = 0;
    etm_config_version(cfg, &ver, NULL);
    phaudit_init(&o->ph, o->ca, ver >= ETM_V(3, 3));
    o->exc_ext = ver >= ETM_V(3, 4);
    /* Data packets are taken out before OpenCSD sees them (where they split a
     * run of headers, the run looks split for nothing): only counted then. */
    int data = ETM_FIELD_GET(ETM_CR_DATA_ACCESS, cfg->etmcr) != 0;
    o->ph_enforce = !cfg->ph_eager && !cfg->ph_packing && !data;
    phaudit_set_first_alone(&o->ph, cfg->trace_start != 0);
    partaudit_init(&o->pa, o->ca);
    o->choices.ph_packing = cfg->ph_packing && !o->ca; /* (cycle-accurate packs as PH_PACKING=0) */
    o->choices.eager = cfg->ph_eager != 0;
    o->choices.trace_start = cfg->trace_start != 0;
    o->choices.isync_bit0 = cfg->isync_info & 1;
    o->choices.sync_placement = cfg->sync_placement != 0;
    o->branch_enforce = !cfg->branch_full;
    phaudit_set_branch(&o->ph, ver >= ETM_V(3, 4) && ETM_FIELD_GET(ETM_IDR_ALT_BRANCH, cfg->etmidr));
    /* ETMSYNCFR counts bytes from ETMv3.1; the spacing is in the packets OpenCSD
     * reads, which are all the ETM's only when none are taken out. */
    if (ver >= ETM_V(3, 1) && !data) {
        phaudit_set_sync(&o->ph, ETM_FIELD_GET(ETM_SYNCFR_PERIOD, cfg->etmsyncfr));
        o->choices.sync_period = ETM_FIELD_GET(ETM_SYNCFR_PERIOD, cfg->etmsyncfr);
        /* SYNC_PLACEMENT=1 waits for a header that closes by itself: with the
         * part's packing that is at most 15 atoms away; with headers held for
         * the fewest (a what-if) there is no such bound. */
        if (cfg->sync_placement && !o->choices.ph_packing)
            phaudit_set_sync_late(&o->ph, 1);
    }
    union { FnDefPktDataMon fn; void *p; } cb; /* the C API takes the callback as void * */
    cb.fn = on_packet;
    ocsd_dt_attach_packet_callback(o->tree, csid, OCSD_C_API_CB_PKT_MON, cb.p, o);
    return 0;
}

void judge_ocsd_add_memory(judge_ocsd_t *o, uint32_t base, const uint8_t *bytes, uint32_t size)
{
    ocsd_dt_add_buffer_mem_acc(o->tree, base, OCSD_MEM_SPACE_ANY, bytes, size);
}

void judge_ocsd_feed(judge_ocsd_t *o, const uint8_t *bytes, size_t n)
{
    if (o->fatal || !n)
        return;
    uint32_t used = 0;
    ocsd_datapath_resp_t r = ocsd_dt_process_data(o->tree, OCSD_OP_DATA, o->fed, (uint32_t)n, bytes, &used);
    if (OCSD_DATA_RESP_IS_FATAL(r) || used != n) {
        judge_fail(o->j, "OpenCSD: fatal response %d at byte %" PRIu64, (int)r, o->fed + used);
        o->fatal = 1;
    }
    o->fed += n;
}

void judge_ocsd_feed_timed(judge_ocsd_t *o, const uint8_t *bytes, const uint64_t *cycles, size_t n)
{
    o->cycles = cycles;
    o->cycles_base = o->fed;
    o->ncycles = n;
    judge_ocsd_feed(o, bytes, n);
    o->cycles = NULL;
    o->j->have_now = 0;
}

void judge_ocsd_close(judge_ocsd_t *o)
{
    if (!o->tree)
        return;
    ocsd_dt_process_data(o->tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
    ocsd_trc_index_t eidx = 0;
    uint8_t echan = 0;
    char emsg[256] = "";
    ocsd_err_t last = ocsd_get_last_err(&eidx, &echan, emsg, (int)sizeof emsg);
    if (last != OCSD_OK)
        judge_fail(o->j, "OpenCSD reported error %d at byte %" PRIu64 ": %s", (int)last, (uint64_t)eidx, emsg);
    ocsd_destroy_dcd_tree(o->tree);
    o->tree = 0;
    phaudit_flush(&o->ph, 0);
    if (o->ph_enforce && o->ph.excess_runs)
        judge_fail(o->j, "P-header packing: %s (%" PRIu64 " such runs; docs/etmv3-encoder.md, \"P-header packing\")",
                   o->ph.first_excess, o->ph.excess_runs);
    if (o->ph.branch_over && o->branch_enforce)
        judge_fail(o->j, "branch address compression: %s (%" PRIu64 " such packets; docs/etmv3-encoder.md, "
                   "\"Branch packets\")", o->ph.first_branch_over, o->ph.branch_over);
    if (o->ph.sync_off)
        judge_fail(o->j, "synchronisation: %s (%" PRIu64 " times; docs/etmv3-encoder.md, \"I-sync and "
                   "synchronisation\")", o->ph.first_sync_off, o->ph.sync_off);
    char msg[300];
    if (partaudit_check(&o->pa, &o->choices, msg, sizeof msg))
        judge_fail(o->j, "implementation choice: %s (docs/silicon.md)", msg);
}

void judge_ocsd_print_packing(const judge_ocsd_t *o, FILE *f, const char *prefix)
{
    fprintf(f, "%sP-headers %" PRIu64 ", fewest possible %" PRIu64 " (%" PRIu64 " of %" PRIu64
               " runs between flush points over)\n",
            prefix, o->ph.total_headers, o->ph.total_bound, o->ph.excess_runs, o->ph.runs);
    fprintf(f, "%sbranch packets %" PRIu64 ": address bytes %" PRIu64 ", fewest possible %" PRIu64 "\n", prefix,
            o->ph.branches, o->ph.branch_bytes, o->ph.branch_bound);
    const partaudit_t *a = &o->pa;
    fprintf(f, "%sP-headers: %" PRIu64 " format 2, %" PRIu64 " 0xFC, %" PRIu64 " closed before their N or 15th E; "
               "restarts %" PRIu64 ", the first atom alone in %" PRIu64 "; I-syncs %" PRIu64 ", bit 0 set in %"
               PRIu64 "; cancels %" PRIu64 ", in a header with other atoms %" PRIu64 "\n",
            prefix, a->format2, a->fc, a->early, a->restarts, a->first_alone, a->isyncs, a->isync_bit0, a->cancels,
            a->cancels_shared);
    if (a->halves)
        fprintf(f, "%speriodic I-syncs %" PRIu64 ": %" PRIu64 " to %" PRIu64 " bytes after their A-sync\n", prefix,
                a->halves, a->half_min, a->half_max);
    if (o->ph.periodic_syncs)
        fprintf(f, "%speriodic syncs %" PRIu64 ": %" PRIu64 " to %" PRIu64 " bytes apart (ETMSYNCFR %" PRIu32 ")\n",
                prefix, o->ph.periodic_syncs, o->ph.sync_gap_min, o->ph.sync_gap_max, o->ph.sync_period);
    if (o->j->lat_n)
        fprintf(f, "%slatency: instructions decoded from bytes that left the port %.1f cycles after they executed on "
                   "average, %" PRIu64 " at most\n",
                prefix, (double)o->j->lat_sum / (double)o->j->lat_n, o->j->lat_max);
}
