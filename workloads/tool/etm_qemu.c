/* etm_qemu.c - `etm-qemu`: Cortex-M3 programs under QEMU, recorded instruction
 * by instruction and turned into ETM interface signals by the timing model.
 *
 *   etm-qemu record   [options] PROGRAM           executed instructions, one line each
 *   etm-qemu stimulus [options] PROGRAM OUTPUT    the interface signals of every cycle
 *   etm-qemu crosscheck [options] PROGRAM         the recorder against QEMU's own log
 *   etm-qemu params                               the timing model's parameters
 *   etm-qemu list                                 the built-in programs
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/cm3.h"
#include "etm/etm.h"
#include "qrec.h"

static const char *const programs[] = { "sort", "crc", "fir", "fsm", "fnptr", "itblock", "divide", "exceptions",
                                        "mix", "selftrace", NULL };

static void help(FILE *f)
{
    fprintf(f,
            "usage: etm-qemu record   [options] PROGRAM [-o FILE]\n"
            "       etm-qemu stimulus [options] PROGRAM OUTPUT.vec\n"
            "       etm-qemu crosscheck [options] PROGRAM\n"
            "       etm-qemu params | list\n\n"
            "Runs a Cortex-M3 program under qemu-system-arm (lm3s6965evb, -icount, -singlestep)\n"
            "with the etmtrace plugin and converts what it executed into one record per\n"
            "instruction (record), or into the ETM interface signals of every core clock\n"
            "through the Cortex-M3 timing model (stimulus). crosscheck runs the program a\n"
            "second time with QEMU's own logging (-d exec,nochain,int) and compares the\n"
            "recorder's instructions, IT conditions, modes and exception counts with it.\n"
            "PROGRAM is a built-in program (etm-qemu list) or the path of an ELF file.\n\n"
            "  -o FILE           output of record (default: standard output)\n"
            "  --events FILE     stimulus: also write what retired in each cycle\n"
            "  --apb             stimulus: the debug APB columns too: the program's loads and stores\n"
            "                    to the ETM's registers (0xE0041000) drive them, and to the TPIU's\n"
            "                    (0xE0040000) with PSELTPIU in place of PSEL, the core held for each\n"
            "                    as the private peripheral bus holds it (etm run --at-reset)\n"
            "  --param NAME=N    a timing parameter (etm-qemu params), repeatable\n"
            "  --set REG=0xV     a register of the configuration in the vector file header\n"
            "  --preset NAME     the configuration's starting point (default etm-m3)\n"
            "  --icount N        QEMU -icount shift=N (default 3)\n"
            "  --raw FILE        read a saved plugin stream instead of running QEMU\n"
            "  --qemu PATH       qemu-system-arm to run (default: %s)\n"
            "  --plugin PATH     the plugin (default: %s)\n"
            "  --log FILE        QEMU's standard error\n"
            "  --max-insns N     give up after N instructions (default 10^8: the program hangs)\n"
            "  --stop-after N    record the first N instructions and stop QEMU: a success whether or\n"
            "                    not the program has exited (firmware that never ends); firmware that\n"
            "                    sleeps for good sooner ends after --idle-timeout with what it ran\n"
            "  --timeout S       give up after S seconds in all (default %u)\n"
            "  --idle-timeout S  give up when QEMU executes nothing for S seconds (default %u: a core\n"
            "                    asleep in WFI with no interrupt to wake it)\n"
            "  --quiet           no summary\n\n"
            "Exit status: 0 when the program ran to its semihosting exit with status 0; 1\n"
            "when it reported a failure; 2 for bad usage, a recorder or a model error.\n",
            ETM_QEMU_BIN, ETM_QEMU_PLUGIN, QREC_DEFAULT_TIMEOUT_S, QREC_DEFAULT_IDLE_S);
}

typedef struct opts {
    qrec_source_opts_t so;
    etm_cm3_params_t params;
    etm_config_t cfg;
    const char *out, *events;
    int quiet;
    int apb; /* stimulus: the debug APB columns too */
} opts_t;

static int parse_common(opts_t *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (!strcmp(a, "--quiet"))
        return o->quiet = 1;
    if (!strcmp(a, "--apb"))
        return o->apb = 1;
    if (!v)
        return 0;
    if (!strcmp(a, "-o"))
        o->out = v;
    else if (!strcmp(a, "--events"))
        o->events = v;
    else if (!strcmp(a, "--raw"))
        o->so.raw = v;
    else if (!strcmp(a, "--qemu"))
        o->so.qemu.qemu = v;
    else if (!strcmp(a, "--plugin"))
        o->so.qemu.plugin = v;
    else if (!strcmp(a, "--log"))
        o->so.qemu.log_path = v;
    else if (!strcmp(a, "--max-insns") || !strcmp(a, "--stop-after") || !strcmp(a, "--timeout") ||
             !strcmp(a, "--idle-timeout")) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 0);
        int secs = a[2] == 't' || a[2] == 'i';
        if (!*v || *end || errno || n == 0 || (secs && n > 86400)) {
            fprintf(stderr, "etm-qemu: %s wants a number %s, not '%s'\n", a,
                    secs ? "of seconds from 1 to 86400" : "above 0", v);
            return -1;
        }
        if (!strcmp(a, "--max-insns"))
            o->so.max_insns = n;
        else if (!strcmp(a, "--stop-after"))
            o->so.stop_after = n;
        else if (!strcmp(a, "--timeout"))
            o->so.timeout_s = (unsigned)n;
        else
            o->so.idle_s = (unsigned)n;
    } else if (!strcmp(a, "--icount")) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*end || n > 10) {
            fprintf(stderr, "etm-qemu: --icount wants 0 to 10\n");
            return -1;
        }
        o->so.qemu.icount_shift = (unsigned)n;
    } else if (!strcmp(a, "--param")) {
        const char *eq = strchr(v, '=');
        char name[64];
        char *end;
        if (!eq || (size_t)(eq - v) >= sizeof name) {
            fprintf(stderr, "etm-qemu: --param wants NAME=N\n");
            return -1;
        }
        memcpy(name, v, (size_t)(eq - v));
        name[eq - v] = 0;
        unsigned long n = strtoul(eq + 1, &end, 0);
        if (!eq[1] || *end || etm_cm3_param_set(&o->params, name, (unsigned)n, &d) != ETM_OK) {
            fprintf(stderr, "etm-qemu: --param %s: %s\n", v, d.msg[0] ? d.msg : "not a number");
            return -1;
        }
    } else if (!strcmp(a, "--set")) {
        if (etm_config_parse_line(&o->cfg, v, NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "etm-qemu: --set %s: %s\n", v, d.msg);
            return -1;
        }
    } else if (!strcmp(a, "--preset")) {
        if (etm_config_preset(&o->cfg, v) != ETM_OK) {
            fprintf(stderr, "etm-qemu: unknown preset '%s'\n", v);
            return -1;
        }
    } else {
        return 0;
    }
    (*i)++;
    return 1;
}

static void print_stats(FILE *f, const char *program, const qrec_stats_t *s, const etm_cm3_stats_t *m)
{
    fprintf(f, "%s: %" PRIu64 " instructions (%" PRIu64 " failed their condition, %" PRIu64 " in IT blocks, %" PRIu64
               " PC changes), %" PRIu64 " memory accesses (%" PRIu64 " to devices)\n",
            program, s->insns, s->failed, s->in_it, s->taken, s->mems, s->io_mems);
    fprintf(f, "%s: exceptions: %" PRIu64 " entries (%" PRIu64 " SVC, %" PRIu64 " preempting a handler, deepest %u), %"
               PRIu64 " tail-chains, %" PRIu64 " returns; QEMU restarted %" PRIu64 " device accesses\n",
            program, s->entries, s->sync_entries, s->preemptions, s->max_depth, s->tail_chains, s->returns,
            s->restarts);
    if (m)
        fprintf(f, "%s: timing: %" PRIu64 " cycles (%.3f per instruction), %" PRIu64 " refill, %" PRIu64
                   " stall, %" PRIu64 " exception cycles, %" PRIu64 " folded IT, %" PRIu64 " cancelled\n",
                program, m->cycles, m->insns ? (double)m->cycles / (double)m->insns : 0.0, m->refill_cycles,
                m->stall_cycles, m->exception_cycles, m->folds, m->cancels);
    if (m && (m->etm_accesses || m->tpiu_accesses || m->etm_unknown_stores || m->etm_undriven))
        fprintf(f, "%s: the ETM's registers: %" PRIu64 " accesses on its APB, the TPIU's %" PRIu64 "; not driven: %" PRIu64
                   " stores whose value the recording lacks, %" PRIu64 " accesses of one cycle\n",
                program, m->etm_accesses, m->tpiu_accesses, m->etm_unknown_stores, m->etm_undriven);
}

static void note_stopped(const qrec_source_t *src, const char *program)
{
    uint32_t pc = 0;
    if (qrec_asleep(src->q, &pc))
        fprintf(stderr, "%s: the core went to sleep for good at 0x%08" PRIx32 " after %" PRIu64 " instructions, "
                "before --stop-after's count: stopped there; the program had not exited\n",
                program, pc, qrec_get_stats(src->q)->insns);
    else if (qrec_stopped(src->q))
        fprintf(stderr, "%s: stopped after %" PRIu64 " instructions (--stop-after); the program had not exited\n",
                program, qrec_get_stats(src->q)->insns);
}

static int finish(qrec_source_t *src, const char *program, int rc)
{
    char err[512] = "";
    int st = qrec_source_close(src, err, sizeof err);
    if (st < 0) {
        fprintf(stderr, "etm-qemu: %s: %s\n", program, err);
        return 2;
    }
    if (rc)
        return rc;
    if (st != 0) {
        fprintf(stderr, "etm-qemu: %s: the program reported a failure (QEMU exit status %d)\n", program, st);
        return 1;
    }
    return 0;
}

static int cmd_record(opts_t *o, const char *program)
{
    qrec_source_t src;
    char err[512];
    if (qrec_source_open(&src, &o->so, program, err, sizeof err) != 0) {
        fprintf(stderr, "etm-qemu: %s\n", err);
        return 2;
    }
    FILE *out = o->out ? fopen(o->out, "w") : stdout;
    if (!out) {
        fprintf(stderr, "etm-qemu: %s: cannot create: %s\n", o->out, strerror(errno));
        return finish(&src, program, 2);
    }
    fprintf(out, "# etm-qemu record %s: one executed instruction per line\n"
                 "# ADDR SIZE OPCODE E|N [br=dir|ind] [it=COND|c=COND] [tk=TARGET] [ipsr=N]\n"
                 "#     [entry=N [sync]|return=N|tail=N]\n"
                 "#     [ret=ADDR:SIZE:OPCODE[:it]] [v=RN[,RM]] [r|w=ADDR:SIZE:VALUE|io]...\n",
            src.elf);
    etm_cm3_insn_t r;
    char line[1024];
    int k, rc = 0;
    while ((k = qrec_next(src.q, &r)) > 0)
        fprintf(out, "%s\n", etm_cm3_insn_format(&r, line, sizeof line));
    if (k < 0) {
        fprintf(stderr, "etm-qemu: %s\n", qrec_error(src.q));
        rc = 2;
    } else if (!o->quiet) {
        print_stats(stderr, program, qrec_get_stats(src.q), NULL);
    }
    if (k == 0 && !o->quiet)
        note_stopped(&src, program);
    if (o->out && fclose(out) != 0)
        rc = 2;
    return finish(&src, program, rc);
}

static int cmd_stimulus(opts_t *o, const char *program, const char *output)
{
    qrec_source_t src;
    char err[512];
    etm_diag_t d;
    etm_diag_clear(&d);
    if (qrec_source_open(&src, &o->so, program, err, sizeof err) != 0) {
        fprintf(stderr, "etm-qemu: %s\n", err);
        return 2;
    }
    FILE *vf = fopen(output, "w"), *ef = o->events ? fopen(o->events, "w") : NULL;
    if (!vf || (o->events && !ef)) {
        fprintf(stderr, "etm-qemu: cannot create %s\n", !vf ? output : o->events);
        if (vf)
            fclose(vf);
        return finish(&src, program, 2);
    }
    char comment[1400];
    snprintf(comment, sizeof comment, "%s under qemu-system-arm -icount shift=%u, Cortex-M3 timing model (etm-qemu)",
             src.elf, o->so.qemu.icount_shift);
    etm_vec_writer_t *w = NULL;
    etm_cm3_t *m = NULL;
    int rc = 0;
    uint64_t columns = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_CORE);
    if (o->apb)
        columns |= etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_APB);
    if (etm_vec_writer_open(&w, vf, ETM_VEC_STIMULUS, &o->cfg, columns, comment) != ETM_OK ||
        etm_cm3_create(&m, &o->params, &d) != ETM_OK) {
        fprintf(stderr, "etm-qemu: %s\n", d.msg[0] ? d.msg : "cannot start the output");
        rc = 2;
    }
    etm_cm3_insn_t r;
    etm_in_t in;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    unsigned nev;
    int k = 1;
    while (!rc) {
        k = qrec_next(src.q, &r);
        if (k < 0) {
            fprintf(stderr, "etm-qemu: %s\n", qrec_error(src.q));
            rc = 2;
            break;
        }
        if (k == 0)
            etm_cm3_finish(m);
        else if (etm_cm3_put(m, &r, &d) != ETM_OK) {
            fprintf(stderr, "etm-qemu: timing model: %s\n", d.msg);
            rc = 2;
            break;
        }
        while (etm_cm3_cycle(m, &in, ev, &nev) == ETM_OK) {
            etm_vec_write_in(w, &in);
            for (unsigned i = 0; ef && i < nev; i++) {
                const etm_gen_event_t *e = &ev[i];
                switch (e->kind) {
                case ETM_GEN_EV_INSN:
                    fprintf(ef, "%" PRIu64 " insn %08" PRIx32 " %u %c%s\n", e->cycle, e->addr, e->size,
                            e->passed ? 'E' : 'N', e->is_it ? " it" : "");
                    break;
                case ETM_GEN_EV_CANCEL: fprintf(ef, "%" PRIu64 " cancel\n", e->cycle); break;
                case ETM_GEN_EV_EXC_ENTRY:
                    fprintf(ef, "%" PRIu64 " entry %u %08" PRIx32 "\n", e->cycle, e->excnum, e->addr);
                    break;
                default:
                    fprintf(ef, "%" PRIu64 " return %u %08" PRIx32 "\n", e->cycle, e->excnum, e->addr);
                    break;
                }
            }
        }
        if (k == 0)
            break;
    }
    if (w && etm_vec_writer_close(w) != ETM_OK)
        rc = 2;
    if (fclose(vf) != 0 || (ef && fclose(ef) != 0))
        rc = 2;
    if (!rc && !o->quiet)
        print_stats(stderr, program, qrec_get_stats(src.q), etm_cm3_get_stats(m));
    if (!rc && !o->quiet)
        note_stopped(&src, program);
    etm_cm3_free(m);
    return finish(&src, program, rc);
}

/* ---- The recorder against QEMU's own log ------------------------------------------------- */

typedef struct logline {
    uint32_t pc, cs_base, cflags;
} logline_t;

typedef struct logrd {
    FILE *f;
    uint64_t line;
    logline_t pend;
    int have_pend;
    uint64_t entries, tail_chains, returns, dropped;
} logrd_t;

/* The next instruction QEMU's log says executed: 1, or 0 at the end. A "Trace"
 * line is held until the next one, since the log may then say that it did not
 * run after all ("Stopped execution of TB chain before" its address) or that it
 * was abandoned and started again ("cpu_io_recompile: rewound execution of TB"). */
static int log_next(logrd_t *r, logline_t *out)
{
    char buf[512];
    while (fgets(buf, sizeof buf, r->f)) {
        r->line++;
        unsigned long long host;
        unsigned cs, pc, fl, cf;
        if (sscanf(buf, "Trace %*d: 0x%llx [%x/%x/%x/%x]", &host, &cs, &pc, &fl, &cf) == 5) {
            logline_t cur = { pc, cs, cf };
            int had = r->have_pend;
            logline_t prev = r->pend;
            r->pend = cur;
            r->have_pend = 1;
            if (had) {
                *out = prev;
                return 1;
            }
            continue;
        }
        const char *p;
        if ((p = strstr(buf, "Stopped execution of TB chain before")) || (p = strstr(buf, "rewound execution of TB to"))) {
            const char *q = strchr(p, '[');
            unsigned a;
            if ((q && sscanf(q, "[%x]", &a) == 1) || (!q && sscanf(strstr(p, " to ") + 4, "%x", &a) == 1)) {
                if (r->have_pend && r->pend.pc == a) {
                    r->have_pend = 0;
                    r->dropped++;
                }
            }
        } else if (strstr(buf, "Taking exception") && !strstr(buf, "exception exit") && !strstr(buf, "Semihosting")) {
            r->entries++;
        } else if (strstr(buf, "...tailchaining")) {
            r->tail_chains++;
        } else if (strstr(buf, "...successful exception return")) {
            r->returns++;
        }
    }
    if (r->have_pend) {
        *out = r->pend;
        r->have_pend = 0;
        return 1;
    }
    return 0;
}

static int cmd_crosscheck(opts_t *o, const char *program)
{
    qrec_source_t src;
    char err[512];
    if (o->so.raw) {
        fprintf(stderr, "etm-qemu crosscheck: runs QEMU itself (no --raw)\n");
        return 2;
    }
    if (qrec_source_open(&src, &o->so, program, err, sizeof err) != 0) {
        fprintf(stderr, "etm-qemu: %s\n", err);
        return 2;
    }
    qrec_qemu_opts_t lo = o->so.qemu;
    lo.stock_log = 1;
    lo.log_path = NULL;
    qrec_run_t lr;
    if (qrec_qemu_start(&lr, &lo, src.elf, err, sizeof err) != 0) {
        fprintf(stderr, "etm-qemu: %s\n", err);
        return finish(&src, program, 2);
    }
    logrd_t rd;
    memset(&rd, 0, sizeof rd);
    rd.f = lr.f;
    etm_cm3_insn_t r;
    logline_t l;
    uint64_t n = 0, it_checked = 0, errors = 0;
    int k, rc = 0;
    char first[600] = "";
    while ((k = qrec_next(src.q, &r)) > 0) {
        if (!log_next(&rd, &l)) {
            snprintf(first, sizeof first, "instruction %" PRIu64 " at 0x%08" PRIx32 ": QEMU's log has ended", n, r.addr);
            errors++;
            break;
        }
        unsigned itstate = l.cs_base >> 24, handler = l.cs_base & 1;
        int log_in_it = (itstate & 0xF) != 0;
        const char *what = NULL;
        if (l.pc != r.addr)
            what = "address";
        else if (log_in_it != r.in_it || (log_in_it && (itstate >> 4) != r.cond))
            what = "IT condition";
        else if (handler != (r.ipsr != 0))
            what = "thread/handler mode";
        if (what && !errors++)
            snprintf(first, sizeof first, "instruction %" PRIu64 ": %s differs: log line %" PRIu64 " has 0x%08" PRIx32
                     " ITSTATE 0x%02x %s mode, the recorder 0x%08" PRIx32 " %s%x ipsr %u", n, what, rd.line, l.pc,
                     itstate, handler ? "handler" : "thread", r.addr, r.in_it ? "IT " : "cond ", r.cond, r.ipsr);
        it_checked += r.in_it;
        n++;
    }
    if (k < 0) {
        fprintf(stderr, "etm-qemu: %s\n", qrec_error(src.q));
        rc = 2;
    } else if (!errors && log_next(&rd, &l)) {
        snprintf(first, sizeof first, "QEMU's log goes on after the recorder's last instruction (0x%08" PRIx32 ")", l.pc);
        errors++;
    }
    while (log_next(&rd, &l)) {
    }
    int st = qrec_qemu_wait(&lr, err, sizeof err);
    const qrec_stats_t *s = qrec_get_stats(src.q);
    if (!rc && (rd.entries != s->entries || rd.tail_chains != s->tail_chains || rd.returns != s->returns)) {
        if (!errors++)
            snprintf(first, sizeof first, "QEMU's log: %" PRIu64 " entries, %" PRIu64 " tail-chains, %" PRIu64
                     " returns; the recorder: %" PRIu64 ", %" PRIu64 ", %" PRIu64, rd.entries, rd.tail_chains,
                     rd.returns, s->entries, s->tail_chains, s->returns);
    }
    if (!rc) {
        printf("%s: %" PRIu64 " instructions (%" PRIu64 " in IT blocks), %" PRIu64 " exception entries, %" PRIu64
               " tail-chains, %" PRIu64 " returns against QEMU's -d exec,nochain,int log (%" PRIu64
               " log entries that did not run): %s%s\n",
               program, n, it_checked, rd.entries, rd.tail_chains, rd.returns, rd.dropped,
               errors ? "DIFFERENT: " : "the same", first);
        rc = errors ? 1 : 0;
    }
    if (st < 0) {
        fprintf(stderr, "etm-qemu: logging run: %s\n", err);
        rc = 2;
    }
    return finish(&src, program, rc);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        help(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    opts_t o;
    memset(&o, 0, sizeof o);
    o.so.workload_dir = ETM_WORKLOAD_DIR;
    o.so.qemu.qemu = ETM_QEMU_BIN;
    o.so.qemu.plugin = ETM_QEMU_PLUGIN;
    o.so.qemu.icount_shift = 3;
    etm_cm3_params_default(&o.params);
    etm_config_default(&o.cfg);
    const char *sub = argv[1];
    if (!strcmp(sub, "params")) {
        const char *name, *doc;
        unsigned v;
        for (unsigned i = 0; etm_cm3_param_get(&o.params, i, &name, &doc, &v); i++)
            printf("%-17s %3u  %s\n", name, v, doc);
        return 0;
    }
    if (!strcmp(sub, "list")) {
        for (int i = 0; programs[i]; i++)
            printf("%s/%s.elf\n", ETM_WORKLOAD_DIR, programs[i]);
        return 0;
    }
    const char *pos[2] = { NULL, NULL };
    int npos = 0;
    for (int i = 2; i < argc; i++) {
        int k = parse_common(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k)
            continue;
        if (argv[i][0] == '-' || npos == 2) {
            fprintf(stderr, "etm-qemu %s: unknown option or missing value '%s' (try --help)\n", sub, argv[i]);
            return 2;
        }
        pos[npos++] = argv[i];
    }
    if (!strcmp(sub, "record") && npos == 1)
        return cmd_record(&o, pos[0]);
    if (!strcmp(sub, "crosscheck") && npos == 1)
        return cmd_crosscheck(&o, pos[0]);
    if (!strcmp(sub, "stimulus") && npos == 2)
        return cmd_stimulus(&o, pos[0], pos[1]);
    help(stderr);
    return 2;
}
