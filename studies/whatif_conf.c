/* whatif_conf.c - etm-whatif's configurations and workloads: the small helpers
 * every part uses, a configuration (conf_t: the ETM's register image, the trace
 * port and its clock, FIFOFULL stall, issue width, Cortex-M3 timing) built from
 * the KEY=VALUE settings of a study file or the command line and checked by the
 * ETM itself, the texts and keys that name a configuration, and the workload
 * names (a program, or random stimulus with its seed and length).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/number.h"
#include "whatif.h"

/* ---- Small helpers ------------------------------------------------------------- */

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "etm-whatif: out of memory\n");
        exit(2);
    }
    return p;
}

void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p) {
        fprintf(stderr, "etm-whatif: out of memory\n");
        exit(2);
    }
    return p;
}

void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

/* ---- Configurations ---------------------------------------------------------------- */

static const char *const kPortModes[] = { "full", "half", "quarter", "ddr", "half-ddr", NULL };

int parse_port(const char *s, port_t *p)
{
    memset(p, 0, sizeof *p);
    if (!strcmp(s, "internal"))
        return 1;
    if ((s[0] != '1' && s[0] != '2' && s[0] != '4') || s[1] != ':')
        return 0;
    p->width = (unsigned)(s[0] - '0');
    const char *m = s + 2;
    static const unsigned div[] = { 1, 2, 4, 1, 2 }, ddr[] = { 0, 0, 0, 1, 1 };
    for (int i = 0; kPortModes[i]; i++)
        if (!strcmp(m, kPortModes[i])) {
            p->div = div[i];
            p->ddr = ddr[i];
            return 1;
        }
    return 0;
}

void port_text(const port_t *p, char *buf, size_t size)
{
    if (!p->width) {
        copy(buf, size, "internal");
        return;
    }
    const char *m = p->ddr ? (p->div == 1 ? "ddr" : "half-ddr") : p->div == 1 ? "full" : p->div == 2 ? "half" : "quarter";
    snprintf(buf, size, "%u:%s", p->width, m);
}

/* Bytes the port can move per core cycle. */
double capacity(const conf_t *c)
{
    if (!c->port.width)
        return c->cfg.port_bytes;
    return (double)c->port.width * (c->port.ddr ? 2 : 1) / c->port.div;
}

unsigned version_of(const etm_config_t *cfg)
{
    unsigned v = 0;
    etm_config_version(cfg, &v, NULL);
    return v;
}

void version_text(const etm_config_t *cfg, char *buf, size_t size)
{
    unsigned v = version_of(cfg);
    snprintf(buf, size, "%u.%u", ETM_V_MAJOR(v), ETM_V_MINOR(v));
}

/* The timing parameters that differ from the defaults, "default" if none. */
void timing_text(const etm_cm3_params_t *p, char *buf, size_t size)
{
    etm_cm3_params_t d;
    etm_cm3_params_default(&d);
    size_t n = 0;
    buf[0] = 0;
    const char *name, *doc;
    unsigned v, dv;
    for (unsigned i = 0; etm_cm3_param_get(p, i, &name, &doc, &v); i++) {
        etm_cm3_param_get(&d, i, &name, &doc, &dv);
        if (v != dv && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%u", n ? ";" : "", name, v);
    }
    if (!buf[0])
        copy(buf, size, "default");
}

void tpiu_text(const conf_t *c, char *buf, size_t size)
{
    const etm_tpiu_params_t *p = &c->tpiu_p;
    if (!c->tpiu)
        snprintf(buf, size, "none");
    else if (p->protocol == ETM_TPIU_PARALLEL)
        snprintf(buf, size, "%u:%u", p->port_bits, p->clk_div);
    else
        snprintf(buf, size, "%s:%u%s", p->protocol == ETM_TPIU_NRZ ? "nrz" : "manchester", p->acpr,
                 p->ffcr & ETM_TPIU_FFCR_ENFCONT ? "" : " bypassed");
}

/* A key that is equal for two configurations exactly when they run the same. */
void conf_key(const conf_t *c, char *buf, size_t size)
{
    char t[256], pt[32];
    timing_text(&c->params, t, sizeof t);
    port_text(&c->port, pt, sizeof pt);
    size_t n = (size_t)snprintf(buf, size, "%s|%u|%u|%s|%u:%u:%u:%u:%u:%x|%u:%u|", pt, c->stall, c->issue, t,
                                c->tpiu ? c->tpiu_p.port_bits : 0, c->tpiu_p.clk_div, c->tpiu_p.protocol, c->tpiu_p.acpr, c->tpiu_p.queue_bytes,
                                c->tpiu_p.ffcr, c->atb_stall, c->atb_burst);
    for (size_t r = 0; r < etm_register_count && n < size; r++)
        for (unsigned k = 0; k < etm_registers[r].count && n < size; k++)
            n += (size_t)snprintf(buf + n, size - n, "%x,", etm_register_get(&c->cfg, &etm_registers[r], k));
}

/* Apply one KEY=VALUE setting of a study file or the command line. Returns 0, or
 * -1 with a sentence in err. */
int apply_setting(conf_t *c, const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        snprintf(err, errlen, "'%s' is not KEY=VALUE", kv);
        return -1;
    }
    char key[64];
    size_t kl = (size_t)(eq - kv);
    if (kl >= sizeof key) {
        snprintf(err, errlen, "key too long in '%s'", kv);
        return -1;
    }
    memcpy(key, kv, kl);
    key[kl] = 0;
    const char *val = eq + 1;
    char *end = NULL;
    unsigned long num = strtoul(val, &end, 0);
    int is_num = *val && end && !*end;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (!strcmp(key, "preset")) {
        if (etm_config_preset(&c->cfg, val) != ETM_OK) {
            snprintf(err, errlen, "unknown preset '%s'", val);
            return -1;
        }
    } else if (!strcmp(key, "ca") || !strcmp(key, "bb")) {
        uint32_t bit = key[0] == 'c' ? ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE) : ETM_FIELD_MASK(ETM_CR_BRANCH_OUTPUT);
        if (!is_num || num > 1) {
            snprintf(err, errlen, "%s wants 0 or 1", key);
            return -1;
        }
        c->cfg.etmcr = num ? c->cfg.etmcr | bit : c->cfg.etmcr & ~bit;
    } else if (!strcmp(key, "port")) {
        if (!parse_port(val, &c->port)) {
            snprintf(err, errlen, "port=%s: want internal or WIDTH:MODE (WIDTH 1, 2, 4; MODE full, half, quarter, "
                     "ddr, half-ddr)", val);
            return -1;
        }
    } else if (!strcmp(key, "stall")) {
        if (!is_num || num > 255) {
            snprintf(err, errlen, "stall wants an ETMFFLR of 1 to 255, or 0 for none");
            return -1;
        }
        c->stall = (unsigned)num;
    } else if (!strcmp(key, "tpiu")) {
        etm_tpiu_params_t tp;
        if (!strcmp(val, "none")) {
            c->tpiu = 0;
            etm_tpiu_params_default(&c->tpiu_p);
        } else if (etm_tpiu_params_parse(&tp, val, 0, &d) != ETM_OK) {
            snprintf(err, errlen, "tpiu=%s: none, or %s", val, d.msg);
            return -1;
        } else {
            c->tpiu = 1;
            c->tpiu_p = tp;
        }
    } else if (!strcmp(key, "atb_stall")) {
        unsigned pct = 0, burst = 1;
        char extra;
        int k = sscanf(val, "%u:%u%c", &pct, &burst, &extra);
        if (k < 1 || k > 2 || pct > 99 || !burst) {
            snprintf(err, errlen, "atb_stall=%s: want PCT[:BURST], PCT 0 to 99, BURST at least 1", val);
            return -1;
        }
        c->atb_stall = pct;
        c->atb_burst = burst;
    } else if (!strcmp(key, "issue")) {
        if (!is_num || num < 1 || num > 2) {
            snprintf(err, errlen, "issue wants 1 or 2");
            return -1;
        }
        c->issue = (unsigned)num;
    } else if (!strncmp(key, "param.", 6)) {
        if (!is_num || etm_cm3_param_set(&c->params, key + 6, (unsigned)num, &d) != ETM_OK) {
            snprintf(err, errlen, "%s: %s", kv, d.msg[0] ? d.msg : "wants a number");
            return -1;
        }
    } else {
        /* A register or model parameter: decimal or 0x hex. */
        char line[128];
        if (is_num)
            snprintf(line, sizeof line, "%s=0x%lx", key, num);
        else
            copy(line, sizeof line, kv);
        if (etm_config_parse_line(&c->cfg, line, NULL, NULL, &d) != ETM_OK) {
            snprintf(err, errlen, "%s: %s", kv, d.msg);
            return -1;
        }
    }
    return 0;
}

void conf_tpiu_params(const conf_t *c, etm_tpiu_params_t *p)
{
    *p = c->tpiu_p;
    p->src_bytes[0] = c->cfg.port_bytes;
}

void conf_default(conf_t *c)
{
    memset(c, 0, sizeof *c);
    etm_config_default(&c->cfg);
    etm_cm3_params_default(&c->params);
    c->issue = 1;
    etm_tpiu_params_default(&c->tpiu_p);
    c->atb_burst = 1;
}

/* The configuration as the model runs it: an external port means PORT_BYTES=0,
 * a stall sets ETMCR[7] and ETMFFLR, dual issue sets ISSUE_WIDTH. */
int conf_finish(conf_t *c, char *err, size_t errlen)
{
    if (c->port.width)
        c->cfg.port_bytes = 0;
    if (c->stall) {
        c->cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_STALL);
        c->cfg.etmfflr = c->stall;
    }
    if (c->issue == 2)
        c->cfg.issue_width = 2;
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_ctx_t *ctx;
    if (etm_create(&ctx, &c->cfg, &d) != ETM_OK) {
        snprintf(err, errlen, "the ETM refuses this configuration: %s", d.msg);
        return -1;
    }
    etm_destroy(ctx);
    if (c->port.width && ETM_V_MAJOR(version_of(&c->cfg)) != 3) {
        snprintf(err, errlen, "an external port (port=%u:...) needs ETMv3; ETMv1's port runs at the core clock",
                 c->port.width);
        return -1;
    }
    if ((c->tpiu || c->atb_stall) && (ETM_V_MAJOR(version_of(&c->cfg)) != 3 || c->port.width)) {
        snprintf(err, errlen, "a TPIU or ATB back-pressure needs an ETMv3 with its own ATB (port=internal)");
        return -1;
    }
    if (c->tpiu) {
        etm_tpiu_params_t tp;
        conf_tpiu_params(c, &tp);
        etm_tpiu_t *t;
        if (etm_tpiu_create(&t, &tp, &d) != ETM_OK) {
            char tt[48];
            tpiu_text(c, tt, sizeof tt);
            snprintf(err, errlen, "tpiu=%s: %s", tt, d.msg);
            return -1;
        }
        etm_tpiu_destroy(t);
    }
    return 0;
}

/* ---- Workloads ------------------------------------------------------------------------ */

/* "random" or "random:SEED:CYCLES"; anything else is a program. */
int parse_workload(const char *s, workload_t *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    copy(w->name, sizeof w->name, s);
    if (strncmp(s, "random", 6) != 0 || (s[6] && s[6] != ':'))
        return 0;
    w->random = 1;
    w->seed = 1;
    w->cycles = 1000000;
    copy(w->name, sizeof w->name, "random");
    if (!s[6])
        return 0;
    const char *colon = strchr(s + 7, ':');
    char seed[32];
    etm_diag_t d;
    uint64_t v = 0;
    if (!colon || (size_t)(colon - (s + 7)) >= sizeof seed) {
        snprintf(err, errlen, "'%s': want random or random:SEED:CYCLES", s);
        return -1;
    }
    memcpy(seed, s + 7, (size_t)(colon - (s + 7)));
    seed[colon - (s + 7)] = 0;
    if (etm_number_parse(seed, 0, UINT64_MAX, &v, &d) != ETM_OK) {
        snprintf(err, errlen, "'%s': SEED %s", s, d.msg);
        return -1;
    }
    w->seed = v;
    if (etm_number_parse(colon + 1, 1, UINT64_MAX, &v, &d) != ETM_OK) {
        snprintf(err, errlen, "'%s': CYCLES %s", s, d.msg);
        return -1;
    }
    w->cycles = v;
    return 0;
}
