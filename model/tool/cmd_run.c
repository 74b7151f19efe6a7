/* cmd_run.c - `etm run`: the model over a stimulus file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/etm.h"
#include "etm/stim.h"
#include "outfile.h"
#include "source.h"
#include "subcommands.h"

static void help(FILE *f)
{
    fprintf(f, "usage: etm run [options] STIMULUS\n\n"
               "Runs the model on STIMULUS (vector file or VCD), one cycle per line or clock\n"
               "edge, then ends the trace and lets the FIFO drain. Prints a summary.\n\n"
               "  --trace FILE     write the ETMv3 bytes that left the port, as a binary file\n"
               "  --out FILE       write the outputs of every cycle as an expected-output vector file\n"
               "                   (ETMv1: PIPESTAT, TRACEPKT, TRACESYNC; ETMv3: V3BYTES; both: FIFO level,\n"
               "                   overflow, trigger)\n"
               "  --vcd FILE       write inputs and outputs as a VCD\n"
               "  --set NAME=0xV   override one register or parameter of the configuration\n"
               "  --program        start from reset and program the configuration through the debug APB\n"
               "                   (unlock, programming bit, ETMSR[1], every register, ETMCR), the core\n"
               "                   idle, before the stimulus; those cycles are part of the outputs\n"
               "  --at-reset       start from reset, unprogrammed: the stimulus programs the ETM through\n"
               "                   its APB columns (the configuration gives the implementation)\n"
               "  --tpiu PINS[:DIV] the ETM's ATB drives a TPIU (PINS of 1 to 32 at the core clock / DIV,\n"
               "                   docs/tpiu.md) whose ATREADY holds it back; --trace then writes the\n"
               "                   TPIU's output: CoreSight-formatted frames (and syncs on pins); SWO\n"
               "                   with --tpiu nrz[:ACPR] or manchester[:ACPR] (,ffcr=V: 0x100 bypasses\n"
               "                   the formatter), the bytes a receiver reads of the pin\n"
               "  --hold[=N]       the closed loop: while FIFOFULL is high (ETMCR[7], ETMFFLR) the core\n"
               "                   waits: the stimulus's next cycle is delayed, a held cycle (ETMISTALL\n"
               "                   alone) in its place; the summary counts the cycles the core was held.\n"
               "                   N: FIFOFULL at the end of a cycle holds the Nth cycle after it (1 to 16,\n"
               "                   default 1; the STM32F105's core fits 3, docs/silicon.md)\n"
               "  --strict         stop at the first interface rule violation (exit 1)\n"
               "  --quiet          no summary\n"
               "  --json           the summary as one JSON object (docs/json.md)\n\n%s",
            source_opts_help);
}

static void summary(const etm_ctx_t *etm, int hold, FILE *f)
{
    const etm_stats_t *s = etm_get_stats(etm);
    fprintf(f, "cycles %llu, instructions %llu, atoms %llu, trace bytes %llu",
            (unsigned long long)s->cycles, (unsigned long long)s->instructions, (unsigned long long)s->atoms,
            (unsigned long long)s->bytes);
    if (s->instructions)
        fprintf(f, ", %.3f bits per instruction", 8.0 * (double)s->bytes / (double)s->instructions);
    fprintf(f, "\noverflows %llu (bytes lost %llu, cycles lost %llu), exceptions %llu, triggers %llu, "
               "interface violations %llu, untraceable %llu\n",
            (unsigned long long)s->overflows, (unsigned long long)s->bytes_lost, (unsigned long long)s->cycles_lost,
            (unsigned long long)s->exceptions, (unsigned long long)s->triggers, (unsigned long long)s->violations,
            (unsigned long long)s->untraceable);
    if (ETM_FIELD_GET(ETM_CR_STALL, etm_get_config(etm)->etmcr))
        fprintf(f, "FIFOFULL asserted in %llu cycles (%s)\n", (unsigned long long)s->fifofull_cycles,
                hold ? "the core held: --hold" : "the core would have stalled; --hold holds it");
    if (s->staged_cycles || s->stage_overflows)
        fprintf(f, "FIFO write port (FIFO_WRITE=%u bytes a cycle): bytes waited in the staging buffer in %llu "
                   "cycles; %llu overflows from its bound\n",
                (unsigned)etm_get_config(etm)->fifo_write, (unsigned long long)s->staged_cycles,
                (unsigned long long)s->stage_overflows);
    fprintf(f, "packets:");
    for (int k = 0; k < ETM_PKT_ALL_COUNT; k++)
        if (s->packets[k])
            fprintf(f, " %s %llu;", etm_pkt_kind_name((etm_pkt_kind_t)k), (unsigned long long)s->packets[k]);
    fprintf(f, "\n");
}

void json_run_stats(json_t *j, const etm_stats_t *s)
{
    json_object(j, "stats");
    json_u64(j, "cycles", s->cycles);
    json_u64(j, "instructions", s->instructions);
    json_u64(j, "atoms", s->atoms);
    json_u64(j, "trace_bytes", s->bytes);
    if (s->instructions)
        json_double(j, "bits_per_instruction", 8.0 * (double)s->bytes / (double)s->instructions);
    else
        json_null(j, "bits_per_instruction");
    json_u64(j, "overflows", s->overflows);
    json_u64(j, "bytes_lost", s->bytes_lost);
    json_u64(j, "cycles_lost", s->cycles_lost);
    json_u64(j, "exceptions", s->exceptions);
    json_u64(j, "triggers", s->triggers);
    json_u64(j, "violations", s->violations);
    json_u64(j, "untraceable", s->untraceable);
    json_u64(j, "fifofull_cycles", s->fifofull_cycles);
    json_u64(j, "staged_cycles", s->staged_cycles);
    json_u64(j, "stage_overflows", s->stage_overflows);
    /* The decoder's packet names (etm_pkt_kind_id); the kinds sharing one are
     * neighbours (the P-header formats, the branch packets), summed. */
    json_object(j, "packets");
    for (int k = 0; k < ETM_PKT_ALL_COUNT;) {
        const char *id = etm_pkt_kind_id((etm_pkt_kind_t)k);
        uint64_t n = 0;
        do
            n += s->packets[k++];
        while (k < ETM_PKT_ALL_COUNT && !strcmp(etm_pkt_kind_id((etm_pkt_kind_t)k), id));
        if (n)
            json_u64(j, id, n);
    }
    json_end(j);
    json_object(j, "p_header_formats"); /* the packing, format by format */
    for (int f = 0; f < 4; f++)
        if (s->packets[ETM_PKT_PHDR_F1 + f]) {
            char key[2] = { (char)('1' + f), 0 };
            json_u64(j, key, s->packets[ETM_PKT_PHDR_F1 + f]);
        }
    json_end(j);
    json_end(j);
}

int tpiu_opt_parse(const char *cmd, const char *v, etm_tpiu_params_t *p)
{
    etm_diag_t d;
    if (etm_tpiu_params_parse(p, v, 0, &d) == ETM_OK)
        return 0;
    fprintf(stderr, "etm %s: --tpiu %s\n", cmd, d.msg);
    return -1;
}

int hold_opt_parse(const char *cmd, const char *a, unsigned *latency)
{
    etm_diag_t d;
    if (etm_hold_option(a, latency, &d) == 0)
        return 0;
    fprintf(stderr, "etm %s: %s\n", cmd, d.msg);
    return -1;
}

/* The TPIU of --tpiu and the bytes its pins complete. */
typedef struct tpiu_run {
    etm_tpiu_t *t;
    etm_tpiu_cap_t cap;
} tpiu_run_t;

/* One cycle of the TPIU after the ETM's (out NULL: nothing on ATB; stim
 * NULL: nothing on its APB); its pins' bytes into the trace file. stall: the
 * stimulus held ATREADY low itself. */
static void tpiu_cycle(tpiu_run_t *tr, FILE *tf, const etm_in_t *stim, const etm_out_t *out, int stall)
{
    etm_tpiu_in_t tin;
    etm_tpiu_out_t to;
    etm_tpiu_in_from_etm(&tin, out, stall);
    etm_tpiu_in_apb(&tin, stim);
    etm_tpiu_step(tr->t, &tin, &to);
    uint8_t b[4];
    unsigned n = etm_tpiu_cap_step(&tr->cap, &to, b);
    etm_tpiu_cap_follow(&tr->cap, tr->t);
    if (tf && n)
        fwrite(b, 1, n, tf);
}

/* One cycle's outputs into the files asked for (the trace file: the ETM's
 * bytes, unless a TPIU writes it). */
static void emit(FILE *tf, etm_vec_writer_t *ow, etm_vcd_writer_t *vw, const etm_in_t *in, const etm_out_t *out)
{
    for (unsigned b = 0; tf && b < out->v3_count; b++)
        fputc(out->v3_bytes[b], tf);
    if (ow)
        etm_vec_write_out(ow, out);
    if (vw)
        etm_vcd_write(vw, in, out);
}

/* The rules the cycle just stepped broke, on stderr: where (the file's line
 * when with_line and it has lines), the cycle, the rule and, for an APB rule,
 * the register. */
static void report_rules(const etm_ctx_t *etm, const etm_config_t *cfg, const etm_in_t *in, const source_t *src,
                         const char *path, int with_line, uint64_t cycle)
{
    etm_rule_t r[4];
    unsigned n = etm_last_rules(etm, r, 4);
    for (unsigned k = 0; k < n && k < 4; k++) {
        char where[64] = "";
        if (!strncmp(etm_rule_name(r[k]), "APB_", 4)) { /* the register it names */
            char reg[24];
            etm_reg_name_at(cfg, (in->paddr >> 2) & 0x3FFu, reg, sizeof reg);
            if (reg[0] == '0') /* no register there */
                snprintf(where, sizeof where, " (%s at 0x%03X)", in->pwrite ? "write" : "read", (unsigned)in->paddr);
            else
                snprintf(where, sizeof where, " (%s %s at 0x%03X)", in->pwrite ? "write to" : "read of", reg,
                         (unsigned)in->paddr);
        }
        progress_done();
        char at[600];
        fprintf(stderr, "%s: cycle %llu: %s%s: %s\n", source_where(src, path, with_line, at, sizeof at),
                (unsigned long long)cycle, etm_rule_name(r[k]), where, etm_rule_text(r[k]));
    }
}

#define TRACE_BUF 4096 /* trace bytes gathered before a write */

/* A cycle's port bytes onto the n gathered in tb (TRACE_BUF of room), which
 * are written first when they would not fit; returns how many are gathered. */
static size_t trace_put(FILE *tf, uint8_t *tb, size_t n, const etm_out_t *out)
{
    if (n + out->v3_count > TRACE_BUF) {
        fwrite(tb, 1, n, tf);
        n = 0;
    }
    memcpy(tb + n, out->v3_bytes, out->v3_count);
    return n + out->v3_count;
}

/* One model run over a stimulus file: what it reads, the model, what it
 * writes. */
typedef struct run {
    const char *path;
    const run_outputs_t *o;
    source_t src;
    etm_config_t cfg;
    unsigned ver;          /* ETM_V() of cfg */
    etm_ctx_t *etm;
    tpiu_run_t tr;         /* tr.t NULL: no TPIU */
    FILE *tf, *of, *vf;    /* --trace, --out, --vcd */
    outfile_t tfo, ofo, vfo; /* ... written whole or not at all (outfile.h) */
    etm_vec_writer_t *ow;
    etm_vcd_writer_t *vw;
    uint64_t cycle;        /* cycles stepped */
    etm_hold_path_t hp;    /* --hold: FIFOFULL on its way to the core */
    int hold_next;         /* --hold: the next cycle is a held one */
    uint64_t held;         /* --hold: cycles the core was held */
} run_t;

/* Open the stimulus, apply the overrides (the configuration then goes to
 * *cfg_out, which may be NULL) and build the model. Returns 0, or 2 (printed,
 * all closed). */
static int run_open(run_t *r, const char *path, const source_opts_t *so, const char *const *sets, int nsets,
                    etm_config_t *cfg_out)
{
    if (source_open(&r->src, path, so, ETM_VEC_STIMULUS))
        return 2;
    r->cfg = r->src.cfg;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (config_apply_sets("etm", &r->cfg, sets, nsets)) {
        source_close(&r->src);
        return 2;
    }
    if (cfg_out)
        *cfg_out = r->cfg;
    if (r->cfg.port_bytes == 0) {
        fprintf(stderr, "etm: %s: PORT_BYTES=0 is an external port, which needs a caller that takes the bytes at "
                        "its own clock (etm_port_take, the SystemC sink); give 1, 2, 4 or 8\n", path);
        source_close(&r->src);
        return 2;
    }
    int at_reset = r->o->program || r->o->at_reset;
    if ((at_reset ? etm_create_at_reset(&r->etm, &r->cfg, &d) : etm_create(&r->etm, &r->cfg, &d)) != ETM_OK) {
        fprintf(stderr, "etm: %s: configuration: %s\n", path, d.msg);
        source_close(&r->src);
        return 2;
    }
    etm_config_version(&r->cfg, &r->ver, NULL);
    return 0;
}

/* The TPIU of --tpiu (when asked for) and the output files. Returns 0, or 2
 * (printed). */
static int run_open_files(run_t *r, const char *const *inputs)
{
    const run_outputs_t *o = r->o;
    if (o->tpiu) {
        etm_tpiu_params_t tp = *o->tpiu;
        etm_diag_t d;
        etm_diag_clear(&d);
        tp.src_bytes[0] = r->cfg.port_bytes;
        if (ETM_V_MAJOR(r->ver) != 3) {
            fprintf(stderr, "etm: %s: --tpiu: an ETMv1 has no ATB (its trace leaves on PIPESTAT and TRACEPKT)\n",
                    r->path);
            return 2;
        }
        if (etm_tpiu_create(&r->tr.t, &tp, &d) != ETM_OK) {
            fprintf(stderr, "etm: --tpiu: %s\n", d.msg);
            return 2;
        }
        etm_tpiu_cap_init_for(&r->tr.cap, r->tr.t);
    }
    const char *cmd = o->json_command ? o->json_command : "run";
    if ((o->trace && outfile_open(&r->tfo, cmd, o->trace, inputs)) || (o->out && outfile_open(&r->ofo, cmd, o->out, inputs)) ||
        (o->vcd && outfile_open(&r->vfo, cmd, o->vcd, inputs)))
        return 2;
    r->tf = r->tfo.f;
    r->of = r->ofo.f;
    r->vf = r->vfo.f;
    return 0;
}

/* The outputs of the protocol this ETM speaks, and the common ones: the
 * columns of --out and --vcd. */
static uint64_t out_signal_mask(const etm_config_t *cfg, unsigned ver)
{
    uint64_t omask = 0;
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        const char *n = etm_out_signals[i].name;
        int v1only = !strcmp(n, "PIPESTAT") || !strcmp(n, "TRACEPKT") || !strcmp(n, "TRACESYNC");
        int v3only = !strcmp(n, "V3BYTES");
        if (!strcmp(n, "FIFOFULL") && !ETM_FIELD_GET(ETM_CR_STALL, cfg->etmcr))
            continue; /* only where the configuration can stall the core */
        if ((ETM_V_MAJOR(ver) == 1 && !v3only) || (ETM_V_MAJOR(ver) == 3 && !v1only))
            omask |= 1ull << i;
    }
    return omask;
}

/* The writers of --out and --vcd on their open files. Returns 0, or 2. */
static int run_open_writers(run_t *r)
{
    int rc = 0;
    uint64_t omask = out_signal_mask(&r->cfg, r->ver);
    if (r->of && etm_vec_writer_open(&r->ow, r->of, ETM_VEC_EXPECTED, &r->cfg, omask, r->path) != ETM_OK)
        rc = 2;
    uint64_t imask = source_signal_mask(&r->src);
    if (r->o->program)
        imask |= etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_APB);
    if (r->vf && etm_vcd_writer_open(&r->vw, r->vf, imask, omask, r->path) != ETM_OK)
        rc = 2;
    return rc;
}

/* The model over the next block of binary stimulus, which has nothing to
 * write per cycle but the trace. Returns what the read returned; *rc 1 when
 * --strict stops at a rule broken. */
static etm_err_t run_block(run_t *r, int *rc)
{
    const etm_in_t *blk;
    etm_out_t out;
    size_t nb, i;
    etm_err_t e = source_read_block(&r->src, &blk, &nb);
    if (e != ETM_OK)
        return e;
    uint64_t cycle = r->cycle;
    if ((cycle ^ (cycle + nb)) >> 16) /* a multiple of 65536 cycles is crossed */
        progress("run", (cycle + nb) & ~(uint64_t)0xffff);
    /* The block's trace bytes, gathered and written at once (a write a cycle
     * cost more than the bytes). */
    etm_ctx_t *etm = r->etm;
    FILE *tf = r->tf;
    uint8_t tb[TRACE_BUF];
    size_t tn = 0;
    for (i = 0; i < nb; i++) {
        size_t n = etm_step_repeat(etm, &blk[i], nb - i, &out); /* a run of the same cycle at once */
        if (n) {
            for (size_t j = 0; tf && out.v3_count && j < n; j++)
                tn = trace_put(tf, tb, tn, &out);
            i += n - 1;
            continue;
        }
        if (etm_step(etm, &blk[i], &out) == ETM_ERR_RULE) {
            report_rules(etm, &r->cfg, &blk[i], &r->src, r->path, 1, cycle + i);
            if (r->o->strict) {
                *rc = 1;
                break;
            }
        }
        if (tf && out.v3_count)
            tn = trace_put(tf, tb, tn, &out);
    }
    if (tn)
        fwrite(tb, 1, tn, tf);
    r->cycle = cycle + i;
    return ETM_OK;
}

/* One cycle: the APB driver's while it programs the ETM, else the stimulus's
 * next (into *in, which keeps what the stimulus does not change); the ETM's
 * outputs into the files and the TPIU. Returns what the read returned; *rc 1
 * when --strict stops at a rule broken. */
static etm_err_t run_cycle(run_t *r, etm_apb_driver_t *drv, int programming, etm_in_t *in, int *rc)
{
    etm_out_t out;
    if (programming) {
        memset(in, 0, sizeof *in);
        etm_apb_drive(drv, in);
    } else if (!(r->o->hold && r->hold_next && r->cycle && etm_stim_held_cycle(in, in))) {
        etm_err_t e = source_read_in(&r->src, in);
        if (e != ETM_OK)
            return e;
    } else {
        r->held++; /* the core waits: the stimulus's next cycle comes later */
    }
    progress("run", r->cycle);
    int stall = in->atstall; /* the stimulus's own ATREADY: an interconnect before the TPIU */
    if (r->tr.t)
        in->atstall = (uint8_t)(stall || !etm_tpiu_ready(r->tr.t, 0));
    if (etm_step(r->etm, in, &out) == ETM_ERR_RULE) {
        report_rules(r->etm, &r->cfg, in, &r->src, r->path, !programming, r->cycle);
        if (r->o->strict) {
            *rc = 1;
            return ETM_OK;
        }
    }
    if (programming)
        etm_apb_observe(drv, &out);
    r->hold_next = etm_hold_path_step(&r->hp, out.fifofull);
    emit(r->tr.t ? NULL : r->tf, r->ow, r->vw, in, &out);
    if (r->tr.t)
        tpiu_cycle(&r->tr, r->tf, in, &out, stall);
    r->cycle++;
    return ETM_OK;
}

/* Every cycle of the stimulus, after the APB programming of --program.
 * Returns 0, 1 (--strict stopped at a rule broken) or 2 (bad input). */
static int run_cycles(run_t *r)
{
    etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv;
    etm_apb_driver_start(&drv, ops, r->o->program ? etm_program_ops(&r->cfg, NULL, ops, ETM_PROGRAM_MAX_OPS) : 0);
    /* Binary stimulus, with nothing to write per cycle but the trace: a block
     * of records at a time. */
    int blocks = r->src.blk && !r->tr.t && !r->ow && !r->vw && !r->o->hold;
    etm_in_t in;
    memset(&in, 0, sizeof in);
    etm_err_t e = ETM_OK;
    int rc = 0;
    while (rc == 0 && e == ETM_OK) {
        int programming = etm_apb_busy(&drv);
        if (blocks && !programming)
            e = run_block(r, &rc);
        else
            e = run_cycle(r, &drv, programming, &in, &rc);
    }
    return rc == 0 && e != ETM_END ? 2 : rc;
}

/* The end of trace and the FIFO's drain, through the TPIU when there is one,
 * which then completes its frame and empties its pins. */
static void run_drain(run_t *r)
{
    etm_in_t in;
    etm_out_t out;
    tpiu_run_t *tr = &r->tr;
    etm_end(r->etm);
    memset(&in, 0, sizeof in);
    if (tr->t)
        tpiu_cycle(tr, r->tf, NULL, NULL, 0); /* the end's edge: no port cycle */
    for (;;) {
        in.atstall = (uint8_t)(tr->t && !etm_tpiu_ready(tr->t, 0));
        if (etm_drain_in(r->etm, &in, &out) != ETM_OK)
            break;
        emit(tr->t ? NULL : r->tf, r->ow, r->vw, &in, &out);
        if (tr->t)
            tpiu_cycle(tr, r->tf, NULL, &out, 0);
    }
    if (tr->t) {
        etm_tpiu_end(tr->t);
        for (unsigned k = 0; k < 1000000 && !etm_tpiu_done(tr->t); k++)
            tpiu_cycle(tr, r->tf, NULL, NULL, 0);
    }
}

/* Close the writers of --out and --vcd; returns rc, or 2 when one fails. */
static int run_close_writers(run_t *r, int rc)
{
    if (r->ow && etm_vec_writer_close(r->ow) != ETM_OK)
        rc = 2;
    if (r->vw && etm_vcd_writer_close(r->vw) != ETM_OK)
        rc = 2;
    return rc;
}

/* The run's summary as one JSON object with exit status rc. */
static void run_json(const run_t *r, int rc)
{
    const run_outputs_t *o = r->o;
    json_t j;
    json_begin(&j, stdout, o->json_command ? o->json_command : "run", rc);
    json_str(&j, "stimulus", r->path);
    json_run_stats(&j, etm_get_stats(r->etm));
    if (r->o->hold)
        json_u64(&j, "held_cycles", r->held);
    if (r->tr.t) {
        const etm_tpiu_stats_t *ts = etm_tpiu_get_stats(r->tr.t);
        json_object(&j, "tpiu");
        json_u64(&j, "pins", o->tpiu->port_bits);
        json_u64(&j, "clock_divider", o->tpiu->clk_div);
        json_u64(&j, "frames", ts->frames);
        json_u64(&j, "id_bytes", ts->id_bytes);
        json_u64(&j, "padding_bytes", ts->pad_bytes);
        json_u64(&j, "frame_syncs", ts->fsyncs);
        json_u64(&j, "halfword_syncs", ts->hsyncs);
        json_u64(&j, "stall_cycles", ts->stall_cycles[0]);
        json_u64(&j, "protocol", etm_tpiu_protocol(r->tr.t));
        json_u64(&j, "acpr", etm_tpiu_acpr(r->tr.t));
        json_u64(&j, "trigger_markers", ts->triggers);
        json_u64(&j, "swo_bytes", ts->swo_bytes);
        json_u64(&j, "swo_busy_cycles", ts->swo_busy);
        json_end(&j);
    }
    if (o->json_more)
        o->json_more(o->user, &j);
    json_finish(&j);
}

/* The run's summary as text, the TPIU's after the ETM's. */
static void run_summary(const run_t *r)
{
    summary(r->etm, r->o->hold, stdout);
    if (r->o->hold)
        printf("closed loop: the core was held by FIFOFULL in %llu cycles: the stimulus's %llu cycles took %llu\n",
               (unsigned long long)r->held, (unsigned long long)(r->cycle - r->held), (unsigned long long)r->cycle);
    if (!r->tr.t)
        return;
    const etm_tpiu_params_t *tp = r->o->tpiu;
    const etm_tpiu_stats_t *ts = etm_tpiu_get_stats(r->tr.t);
    unsigned proto = etm_tpiu_protocol(r->tr.t);
    if (proto == ETM_TPIU_PARALLEL)
        printf("TPIU: %u pins at the core clock / %u", tp->port_bits, tp->clk_div);
    else
        printf("TPIU: SWO, %s at the core clock / %u%s", proto == ETM_TPIU_NRZ ? "NRZ" : "Manchester",
               etm_tpiu_acpr(r->tr.t) + 1, etm_tpiu_ffcr(r->tr.t) & ETM_TPIU_FFCR_ENFCONT ? "" : ", formatter bypassed");
    printf(": %llu frames (%llu ID bytes, %llu padding), %llu frame syncs, %llu half-word syncs, %llu trigger "
           "markers; ATREADY low while the ETM waited in %llu cycles\n",
           (unsigned long long)ts->frames, (unsigned long long)ts->id_bytes, (unsigned long long)ts->pad_bytes,
           (unsigned long long)ts->fsyncs, (unsigned long long)ts->hsyncs, (unsigned long long)ts->triggers,
           (unsigned long long)ts->stall_cycles[0]);
    if (proto != ETM_TPIU_PARALLEL)
        printf("SWO: %llu bytes, the line busy in %llu of %llu cycles\n", (unsigned long long)ts->swo_bytes,
               (unsigned long long)ts->swo_busy, (unsigned long long)ts->cycles);
}

/* Close the files, the TPIU, the model and the stimulus; returns rc, or 2
 * when a file cannot be closed. */
static int run_close(run_t *r, int rc)
{
    etm_tpiu_destroy(r->tr.t);
    outfile_t *files[] = { &r->tfo, &r->ofo, &r->vfo };
    const char *cmd = r->o->json_command ? r->o->json_command : "run";
    for (int k = 0; k < 3; k++) /* complete (rc 0, or 1: the violations reported): in place; else none */
        if (outfile_finish(files[k], rc <= 1, cmd))
            rc = 2;
    etm_destroy(r->etm);
    source_close(&r->src);
    return rc;
}

int run_stimulus(const char *path, const source_opts_t *so, const char *const *sets, int nsets,
                 const run_outputs_t *o, etm_config_t *cfg_out)
{
    run_t r;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.o = o;
    etm_hold_path_init(&r.hp, o->hold);
    int rc = run_open(&r, path, so, sets, nsets, cfg_out);
    if (rc)
        return rc;
    const char *inputs[] = { path, so->config_path, NULL };
    if (!so->config_path)
        inputs[1] = NULL;
    rc = run_open_files(&r, inputs);
    if (rc == 0) {
        rc = run_open_writers(&r);
        if (rc == 0)
            rc = run_cycles(&r);
        if (rc == 0)
            run_drain(&r);
        progress_done();
        if (rc == 0 && o->at_end)
            rc = o->at_end(o->user, r.etm);
        rc = run_close_writers(&r, rc);
        if (o->json && rc <= 1)
            run_json(&r, rc);
        else if (rc == 0 && !o->quiet)
            run_summary(&r);
    }
    return run_close(&r, rc);
}

int cmd_run(int argc, char **argv)
{
    source_opts_t so;
    source_opts_init(&so);
    run_outputs_t o;
    memset(&o, 0, sizeof o);
    etm_tpiu_params_t tp;
    const char *path = NULL;
    const char *sets[32];
    int nsets = 0;
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(a, "--trace") && i + 1 < argc) {
            o.trace = argv[++i];
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            o.out = argv[++i];
        } else if (!strcmp(a, "--vcd") && i + 1 < argc) {
            o.vcd = argv[++i];
        } else if (!strcmp(a, "--set") && i + 1 < argc && nsets < 32) {
            sets[nsets++] = argv[++i];
        } else if (!strcmp(a, "--strict")) {
            o.strict = 1;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = 1;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "--program")) {
            o.program = 1;
        } else if (!strcmp(a, "--at-reset")) {
            o.at_reset = 1;
        } else if (!strcmp(a, "--hold") || !strncmp(a, "--hold=", 7)) {
            if (hold_opt_parse("run", a, &o.hold))
                return 2;
        } else if (!strcmp(a, "--tpiu") && i + 1 < argc) {
            if (tpiu_opt_parse("run", argv[++i], &tp))
                return 2;
            o.tpiu = &tp;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "etm run: unknown option or missing value '%s' (try --help)\n", a);
            return 2;
        } else if (path) {
            fprintf(stderr, "etm run: one stimulus file only\n");
            return 2;
        } else {
            path = a;
        }
    }
    if (!path) {
        help(stderr);
        return 2;
    }
    return run_stimulus(path, &so, sets, nsets, &o, NULL);
}
