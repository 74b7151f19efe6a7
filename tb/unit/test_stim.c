/* test_stim.c - etm/stim.h: every source gives the cycles its own reader gives,
 * a source that can hold gives held cycles (ETMISTALL alone, the ETMINTNUM of the
 * cycle before) and otherwise the same stream, a replayed source counts the holds
 * it cannot honour, bad records name their file and line, and a core held on
 * FIFOFULL does not overflow a FIFO that overflows without it.
 *
 *   test_stim VECTOR_FILE TMPDIR
 */
#include <stdlib.h>
#include <string.h>

#include "etm/etm.h"
#include "etm/stim.h"
#include "test.h"

static const char *tmpdir;

/* Held at cycle k when k % 3 == 1 or k is in [40, 60). */
static int held_at(uint64_t k) { return k % 3 == 1 || (k >= 40 && k < 60); }

/* The stream without the held cycles must be `ref`; each held cycle is ETMISTALL
 * alone with the previous cycle's ETMINTNUM. */
static void check_held_stream(etm_stim_t *s, const etm_in_t *ref, unsigned nref)
{
    etm_in_t in, prev;
    memset(&prev, 0, sizeof prev);
    unsigned j = 0, held = 0;
    etm_diag_t d;
    for (uint64_t k = 0;; k++) {
        int hold = held_at(k);
        etm_err_t e = etm_stim_next(s, hold, &in, &d);
        if (e == ETM_END)
            break;
        CHECK_EQ(e, ETM_OK);
        if (e != ETM_OK)
            break;
        if (hold) {
            etm_in_t want;
            memset(&want, 0, sizeof want);
            want.istall = 1;
            want.intnum = prev.intnum;
            CHECK(memcmp(&in, &want, sizeof in) == 0);
            held++;
        } else {
            CHECK(j < nref && memcmp(&in, &ref[j], sizeof in) == 0);
            j++;
        }
        prev = in;
    }
    CHECK_EQ(j, nref);
    CHECK_EQ(etm_stim_get_stats(s)->held, held);
    CHECK_EQ(etm_stim_get_stats(s)->cycles, nref + held);
}

static void vectors_case(const char *path)
{
    etm_vec_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vec_open(&r, path, &d), ETM_OK);
    etm_stim_t *s;
    CHECK_EQ(etm_stim_open_vectors(&s, path, &d), ETM_OK);
    CHECK(!etm_stim_can_hold(s));
    CHECK(etm_stim_config(s) && etm_config_equal(etm_stim_config(s), etm_vec_config(r)));
    etm_in_t a, b;
    uint64_t n = 0, asked = 0;
    while (etm_vec_read_in(r, &a, &d) == ETM_OK) {
        int hold = held_at(n);
        asked += (uint64_t)hold;
        CHECK_EQ(etm_stim_next(s, hold, &b, &d), ETM_OK);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        n++;
    }
    CHECK_EQ(etm_stim_next(s, 0, &b, &d), ETM_END);
    CHECK(n > 1000);
    CHECK_EQ(etm_stim_get_stats(s)->holds_ignored, asked);
    CHECK_EQ(etm_stim_get_stats(s)->held, 0);
    etm_stim_close(s);
    etm_vec_close(r);
}

/* A vector file with etm_stim_set_delay: holds delay the recording, which
 * then comes out whole, with held cycles between; an APB transfer's setup
 * phase is never followed by a held cycle. */
static void vectors_delay_case(const char *path)
{
    etm_vec_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vec_open(&r, path, &d), ETM_OK);
    unsigned cap = 1u << 16, n = 0;
    etm_in_t *ref = (etm_in_t *)malloc(cap * sizeof *ref);
    while (n < cap && etm_vec_read_in(r, &ref[n], &d) == ETM_OK)
        n++;
    etm_vec_close(r);
    etm_stim_t *s;
    CHECK_EQ(etm_stim_open_vectors(&s, path, &d), ETM_OK);
    etm_stim_set_delay(s, 1);
    CHECK(etm_stim_can_hold(s));
    if (n < cap)
        check_held_stream(s, ref, n);
    CHECK_EQ(etm_stim_get_stats(s)->holds_ignored, 0);
    etm_stim_close(s);
    free(ref);
    /* The APB rule, and ATREADY high in a held cycle. */
    etm_in_t prev, in;
    memset(&prev, 0, sizeof prev);
    prev.psel = 1;
    prev.intnum = 5;
    prev.atstall = 1;
    memset(&in, 0xA5, sizeof in);
    CHECK_EQ(etm_stim_held_cycle(&in, &prev), 0); /* setup: the access phase must follow */
    CHECK_EQ(in.ivalid, 0xA5);
    prev.penable = 1;
    CHECK_EQ(etm_stim_held_cycle(&in, &prev), 1);
    CHECK(in.istall == 1 && in.intnum == 5 && in.atstall == 0 && in.psel == 0 && in.ivalid == 0);
}

static void gen_case(void)
{
    enum { N = 5000 };
    static etm_in_t ref[N];
    etm_gen_params_t p;
    etm_gen_params_default(&p);
    p.seed = 7;
    etm_gen_t *g;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, &p, &d), ETM_OK);
    for (unsigned i = 0; i < N; i++)
        etm_gen_next(g, &ref[i], NULL);
    etm_gen_free(g);
    etm_stim_t *s;
    CHECK_EQ(etm_stim_open_gen(&s, &p, N, &d), ETM_OK);
    CHECK(etm_stim_can_hold(s));
    check_held_stream(s, ref, N);
    etm_stim_close(s);
}

/* A records file of a small program: entry in front of an LDM it cancels,
 * return, a taken branch. */
static void write_records(const char *path, int bad_line)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    static const char *const lines[] = {
        "# a comment line, then a blank one",
        "",
        "00000100 2 2000 E",
        "00000040 2 4770 E br=ind tk=fffffff9 ipsr=15 entry=15 ret=00000102:2:cc0f v=fffffff9",
        "00000102 2 cc0f E return=0 r=20000000:4:1 r=20000004:4:2 r=20000008:4:3 r=2000000c:4:4",
        "00000104 2 e004 E br=dir tk=00000110   # b.n 110",
        "00000110 2 2101 E",
    };
    for (unsigned i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        fprintf(f, "%s\n", lines[i]);
        if ((int)i == bad_line)
            fprintf(f, "00000112 2 zz01 E\n");
    }
    fclose(f);
}

static void records_case(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/stim_test.rec", tmpdir);
    write_records(path, -1);
    /* The reference: the same records straight into the timing model. */
    etm_in_t ref[256];
    unsigned nref = 0;
    {
        FILE *f = fopen(path, "r");
        etm_cm3_t *m;
        etm_diag_t d;
        CHECK_EQ(etm_cm3_create(&m, NULL, &d), ETM_OK);
        char line[512];
        etm_in_t in;
        while (f && fgets(line, sizeof line, f)) {
            char *h = strchr(line, '#');
            if (h)
                *h = 0;
            if (strspn(line, " \t\r\n") == strlen(line))
                continue;
            etm_cm3_insn_t r;
            CHECK_EQ(etm_cm3_insn_parse(line, &r, &d), ETM_OK);
            CHECK_EQ(etm_cm3_put(m, &r, &d), ETM_OK);
            while (etm_cm3_cycle(m, &in, NULL, NULL) == ETM_OK && nref < 256)
                ref[nref++] = in;
        }
        etm_cm3_finish(m);
        while (etm_cm3_cycle(m, &in, NULL, NULL) == ETM_OK && nref < 256)
            ref[nref++] = in;
        etm_cm3_free(m);
        if (f)
            fclose(f);
    }
    CHECK(nref > 20);
    etm_stim_t *s;
    etm_diag_t d;
    CHECK_EQ(etm_stim_open_records(&s, path, NULL, &d), ETM_OK);
    CHECK(etm_stim_can_hold(s));
    check_held_stream(s, ref, nref);
    CHECK_EQ(etm_stim_get_stats(s)->insns, 5);
    CHECK_EQ(etm_cm3_get_stats(etm_stim_cm3(s))->held_cycles, etm_stim_get_stats(s)->held);
    etm_stim_close(s);

    /* A malformed record: the file and its line. */
    write_records(path, 4);
    CHECK_EQ(etm_stim_open_records(&s, path, NULL, &d), ETM_OK);
    etm_in_t in;
    etm_err_t e;
    while ((e = etm_stim_next(s, 0, &in, &d)) == ETM_OK)
        ;
    CHECK_EQ(e, ETM_ERR_BAD_NUMBER);
    CHECK_EQ(d.line, 6);
    CHECK(d.file && strstr(d.file, "stim_test.rec"));
    char msg[512];
    CHECK_STR_CONTAINS(etm_diag_format(&d, msg, sizeof msg), "stim_test.rec:6:");
    etm_stim_close(s);

    /* A record the timing model cannot time: exception 0 entered. */
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "00000100 2 2000 E\n00000040 2 2001 E ipsr=0 entry=0\n");
        fclose(f);
    }
    CHECK_EQ(etm_stim_open_records(&s, path, NULL, &d), ETM_OK);
    while ((e = etm_stim_next(s, 0, &in, &d)) == ETM_OK)
        ;
    CHECK_EQ(e, ETM_ERR_ARG);
    CHECK_EQ(d.line, 2);
    CHECK_STR_CONTAINS(d.msg, "exception 0 cannot be entered");
    etm_stim_close(s);

    snprintf(path, sizeof path, "%s/no_such_file.rec", tmpdir);
    CHECK_EQ(etm_stim_open_records(&s, path, NULL, &d), ETM_ERR_IO);
    CHECK(s == NULL);
    CHECK_STR_CONTAINS(etm_diag_format(&d, msg, sizeof msg), "no_such_file.rec: cannot open the records file");
}

/* Random stimulus into a 24-byte FIFO, cycle-accurate, frequent synchronisation:
 * it overflows; with ETMCR[7] and ETMFFLR=24 the core is held on FIFOFULL and
 * nothing overflows, at the price of held cycles. */
static void fifofull_case(void)
{
    uint64_t ovf[2], held[2];
    for (int stall = 0; stall < 2; stall++) {
        etm_config_t cfg;
        etm_config_preset(&cfg, "cm3-ca-whatif");
        cfg.etmcr = 0x1810 | (stall ? ETM_FIELD_MASK(ETM_CR_STALL) : 0);
        cfg.etmfflr = 24;
        cfg.fifo_depth = 24;
        cfg.etmsyncfr = 0x20;
        etm_ctx_t *etm;
        etm_diag_t d;
        CHECK_EQ(etm_create(&etm, &cfg, &d), ETM_OK);
        etm_gen_params_t p;
        etm_gen_params_default(&p);
        p.seed = 3;
        etm_stim_t *s;
        CHECK_EQ(etm_stim_open_gen(&s, &p, 200000, &d), ETM_OK);
        etm_in_t in;
        etm_out_t out;
        memset(&out, 0, sizeof out);
        while (etm_stim_next(s, out.fifofull, &in, &d) == ETM_OK)
            CHECK_EQ(etm_step(etm, &in, &out), ETM_OK);
        ovf[stall] = etm_get_stats(etm)->overflows;
        held[stall] = etm_stim_get_stats(s)->held;
        CHECK_EQ(etm_get_stats(etm)->violations, 0);
        etm_stim_close(s);
        etm_destroy(etm);
    }
    CHECK(ovf[0] > 10);
    CHECK_EQ(ovf[1], 0);
    CHECK_EQ(held[0], 0);
    CHECK(held[1] > 1000);
}

/* The path from FIFOFULL to the core: FIFOFULL at the end of cycle n holds
 * cycle n + latency and no other, for a pseudo-random FIFOFULL; the option's
 * accepted and refused forms. */
static void hold_path_case(void)
{
    static const unsigned lat[] = {1, 2, 3, 7, ETM_HOLD_LATENCY_MAX};
    enum { N = 4000 };
    static uint8_t ff[N];
    uint32_t x = 12345;
    for (unsigned n = 0; n < N; n++) {
        x = x * 1103515245u + 12345u;
        ff[n] = (uint8_t)((x >> 16) % 3 == 0);
    }
    for (unsigned k = 0; k < sizeof lat / sizeof lat[0]; k++) {
        etm_hold_path_t h;
        etm_hold_path_init(&h, lat[k]);
        unsigned wrong = 0;
        for (unsigned n = 0; n < N; n++) {
            int held_next = etm_hold_path_step(&h, ff[n]); /* whether cycle n + 1 is held */
            int want = n + 1 >= lat[k] && ff[n + 1 - lat[k]];
            wrong += held_next != want;
        }
        CHECK_EQ(wrong, 0);
    }
    etm_hold_path_t h;
    etm_hold_path_init(&h, 0); /* below the range: the shortest path */
    CHECK_EQ(etm_hold_path_step(&h, 1), 1);
    static const struct { const char *arg; unsigned latency; } ok[] = {
        {"--hold", 1}, {"--hold=1", 1}, {"--hold=3", 3}, {"--hold=16", 16}, {"--hold=003", 3}, {"--hold=0x3", 3}};
    for (unsigned k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        unsigned l = 99;
        etm_diag_t d;
        CHECK_EQ(etm_hold_option(ok[k].arg, &l, &d), 0);
        CHECK_EQ(l, ok[k].latency);
    }
    static const char *const bad[] = {"--hold=", "--hold=0", "--hold=17", "--hold=-1", "--hold=+3", "--hold=3x",
                                      "--hold= 3", "--hold=0x", "--hold=18446744073709551619", "--holds"};
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        unsigned l = 99;
        etm_diag_t d;
        CHECK_EQ(etm_hold_option(bad[k], &l, &d), -1);
        CHECK_EQ(l, 99);
        CHECK(strstr(d.msg, "from 1 to 16") != NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_stim VECTOR_FILE TMPDIR\n");
        return 2;
    }
    tmpdir = argv[2];
    vectors_case(argv[1]);
    vectors_delay_case(argv[1]);
    gen_case();
    records_case();
    fifofull_case();
    hold_path_case();
    return test_report("test_stim");
}
