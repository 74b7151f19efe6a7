/* etm_gendefs.c - writes what the definitions in model/defs/include/etm/ (the
 * .def files) give to other languages: the SystemVerilog package of constants, rules,
 * register numbers and field functions, the port macros of the RTL top level,
 * the DPI scoreboard's argument and port macros, and the tables in the docs.
 *
 *   etm-gendefs --write ROOT    write every output under the source tree ROOT
 *   etm-gendefs --check ROOT    exit 1 naming each output that is not current
 *
 * The C model reads the .def files directly (X-macros); these outputs are
 * committed so that the RTL and the docs stand on their own, and the test
 * unit.defs_current runs --check. `cmake --build build --target etm-regen`
 * rewrites them after a .def file changed (docs/architecture.md).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/consts.h"
#include "etm/regmap.h"
#include "etm/signals.h"

/* ---- The definitions as tables --------------------------------------------------- */

typedef struct sig {
    const char *group; /* heading of a group, or NULL */
    const char *field, *name, *ctype, *doc;
    unsigned width, lsb;
    int out;           /* 0 input, 1 output */
    unsigned where;    /* ETM_SIGF_*: an input's part, an output's place */
    int bytes;         /* the ETM_OUT_BYTES pair: name is COUNT, data the DATA port */
    const char *data, *column, *bytes_field;
    unsigned n;
} sig_t;

static const sig_t sigs[] = {
#define ETM_SIG_GROUP(title) { title, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, 0 },
#define ETM_IN(field, name, width, lsb, ctype, part, doc) \
    { NULL, #field, #name, #ctype, doc, width, lsb, 0, part, 0, NULL, NULL, NULL, 0 },
#define ETM_OUT(field, name, width, ctype, where, doc) \
    { NULL, #field, #name, #ctype, doc, width, 0, 1, where, 0, NULL, NULL, NULL, 0 },
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    { NULL, #count, #countname, "uint8_t", doc, 4, 0, 1, ETM_SIGF_PORT, 1, #dataname, #column, #bytes, n },
#include "etm/signals.def"
};
#define NSIGS (sizeof sigs / sizeof sigs[0])

typedef struct konst {
    const char *group;
    const char *cname, *svname, *doc;
    unsigned bits;
    unsigned long value;
} konst_t;

static const konst_t consts[] = {
#define ETM_CONST_GROUP(title) { title, NULL, NULL, NULL, 0, 0 },
#define ETM_CONST(cname, svname, bits, value, doc) { NULL, #cname, #svname, doc, bits, value },
#include "etm/consts.def"
};
#define NCONSTS (sizeof consts / sizeof consts[0])

typedef struct rule {
    const char *name, *text;
} rule_t;

static const rule_t rules[] = {
#define ETM_RULE(name, text) { #name, text },
#include "etm/rules.def"
};
#define NRULES (sizeof rules / sizeof rules[0])

typedef struct layout {
    const char *name, *doc;
} layout_t;

static const layout_t layouts[] = {
#define ETM_LAYOUT(layout, doc) { #layout, doc },
#include "etm/regs.def"
};

typedef struct reg {
    const char *field, *name, *layout, *doc;
    unsigned number, count, first;
    int param;
} reg_t;

static const reg_t regs[] = {
#define ETM_REG(field, name, number, layout, first, doc) { #field, #name, #layout, doc, number, 1, first, 0 },
#define ETM_REG_ARRAY(field, name, number, count, layout, first, doc) \
    { #field, #name, #layout, doc, number, count, first, 0 },
#define ETM_PARAM(field, name, doc) { #field, #name, "PARAM", doc, 0, 1, ETM_V(1, 0), 1 },
#include "etm/regs.def"
};
#define NREGS (sizeof regs / sizeof regs[0])

static const char *const impl_regs[] = {
#define ETM_IMPL(field, name) #name,
#include "etm/regs.def"
};

static int reg_is_impl(const char *name)
{
    for (size_t i = 0; i < sizeof impl_regs / sizeof impl_regs[0]; i++)
        if (strcmp(impl_regs[i], name) == 0)
            return 1;
    return 0;
}

typedef struct source {
    const char *name, *where;
} source_t;

static const source_t sources[] = {
#define ETM_SOURCE(name, where) { #name, where },
#include "etm/regs.def"
};

/* Where register `name` is described (regs.def ETM_SOURCE), or "". */
static const char *source_of(const char *name)
{
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (strcmp(sources[i].name, name) == 0)
            return sources[i].where;
    return "";
}

static const char *access_text(unsigned a) { return a == ETM_ACCESS_R ? "R" : a == ETM_ACCESS_W ? "W" : "RW"; }

/* ---- Text buffers ---------------------------------------------------------------- */

typedef struct buf {
    char *s;
    size_t n, cap;
} buf_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(buf_t *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            fprintf(stderr, "etm-gendefs: formatting failed\n");
            exit(2);
        }
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->n + (size_t)k)
            cap *= 2;
        char *ns = (char *)realloc(b->s, cap);
        if (!ns) {
            fprintf(stderr, "etm-gendefs: out of memory\n");
            exit(2);
        }
        b->s = ns;
        b->cap = cap;
    }
}

/* "CYCLE_ACCURATE" -> "CycleAccurate"; "etmcr" -> "Etmcr". */
static const char *camel(const char *a, const char *b, char *out, size_t size)
{
    size_t n = 0;
    const char *parts[2] = { a, b };
    for (int p = 0; p < 2; p++) {
        int up = 1;
        for (const char *c = parts[p]; c && *c && n + 1 < size; c++) {
            if (*c == '_') {
                up = 1;
                continue;
            }
            out[n++] = (char)(up ? toupper((unsigned char)*c) : tolower((unsigned char)*c));
            up = 0;
        }
    }
    out[n] = '\0';
    return out;
}

static const char *lower(const char *a, const char *b, char *out, size_t size)
{
    snprintf(out, size, "%s%s%s", a, b ? "_" : "", b ? b : "");
    for (char *c = out; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return out;
}

static unsigned data_width(const sig_t *s) { return 8 * s->n; }

/* "logic", "logic [31:1]" for a port of width w at lsb. */
static const char *range(unsigned w, unsigned lsb, char *out, size_t size)
{
    if (w == 1 && lsb == 0)
        snprintf(out, size, "logic");
    else
        snprintf(out, size, "logic [%u:%u]", lsb + w - 1, lsb);
    return out;
}

static const char *dpi_type(unsigned width) { return width > 32 ? "longint unsigned" : "int unsigned"; }

#define HEADER_SV                                                                                       \
    "// GENERATED by etm-gendefs from model/defs/include/etm/*.def: do not edit; change the .def\n"      \
    "// files and run `cmake --build build --target etm-regen` (docs/architecture.md).\n"

/* ---- rtl/etm_defs_pkg.sv --------------------------------------------------------------- */

static void sv_consts(buf_t *b)
{
    put(b, "  // ---- Constants (consts.def) ----------------------------------------------------------\n");
    for (size_t i = 0; i < NCONSTS; i++) {
        const konst_t *k = &consts[i];
        if (k->group) {
            put(b, "\n  // %s\n", k->group);
            continue;
        }
        if (k->bits >= 8)
            put(b, "  localparam logic [%u:0] %s = %u'h%0*lX;  // %s\n", k->bits - 1, k->svname, k->bits,
                (int)(k->bits + 3) / 4, k->value, k->doc);
        else if (k->bits)
            put(b, "  localparam logic [%u:0] %s = %u'd%lu;  // %s\n", k->bits - 1, k->svname, k->bits, k->value,
                k->doc);
        else
            put(b, "  localparam int unsigned %s = %lu;  // %s\n", k->svname, k->value, k->doc);
    }
}

static void sv_rules(buf_t *b)
{
    char nm[96];
    put(b, "\n  // ---- Interface rules (rules.def): bit r of VIOLATIONS is rule r ------------------------\n");
    put(b, "  localparam int unsigned NumRules = %u;\n", (unsigned)NRULES);
    for (size_t i = 0; i < NRULES; i++)
        put(b, "  localparam int unsigned %s = %u;\n", camel("RULE", rules[i].name, nm, sizeof nm), (unsigned)i);
    /* Names and sentences for messages: strings, which synthesis does not read. */
    put(b, "\n`ifndef SYNTHESIS\n  // The rule's name and sentence, for assertion messages (simulation only).\n");
    put(b, "  function automatic string rule_name(int unsigned r);\n    case (r)\n");
    for (size_t i = 0; i < NRULES; i++)
        put(b, "      %u: rule_name = \"%s\";\n", (unsigned)i, rules[i].name);
    put(b, "      default: rule_name = \"?\";\n    endcase\n  endfunction\n");
    put(b, "  function automatic string rule_text(int unsigned r);\n    case (r)\n");
    for (size_t i = 0; i < NRULES; i++)
        put(b, "      %u: rule_text = \"%s\";\n", (unsigned)i, rules[i].text);
    put(b, "      default: rule_text = \"?\";\n    endcase\n  endfunction\n`endif\n");
}

static void sv_registers(buf_t *b)
{
    char nm[96];
    put(b, "\n  // ---- Registers (regs.def): register numbers (byte offset = 4 * number) ---------------\n");
    for (size_t i = 0; i < NREGS; i++) {
        if (regs[i].param)
            continue;
        put(b, "  localparam logic [9:0] %s = 10'h%03X;", camel("REG", regs[i].name, nm, sizeof nm), regs[i].number);
        if (regs[i].count > 1)
            put(b, "  // %s1..%u\n", regs[i].name, regs[i].count);
        else
            put(b, "\n");
    }
    for (size_t i = 0; i < NREGS; i++)
        if (regs[i].count > 1)
            put(b, "  localparam int unsigned %s = %u;\n", camel("COUNT", regs[i].name, nm, sizeof nm), regs[i].count);
    put(b, "\n  // The rest of the programmer's model (regs.def ETM_MGMT): register numbers\n");
    for (int m = 0; m < ETM_MGMT_COUNT; m++) {
        const etm_mgmtdesc_t *g = &etm_mgmt_registers[m];
        put(b, "  localparam logic [9:0] %s = 10'h%03X;", camel("REG", g->name, nm, sizeof nm), g->number);
        if (g->count > 1)
            put(b, "  // %u of them\n", g->count);
        else
            put(b, "\n");
    }
    put(b, "\n  // The first version that has each register (major * 16 + minor)\n");
    for (size_t i = 0; i < NREGS; i++)
        if (!regs[i].param)
            put(b, "  localparam logic [7:0] %s = 8'h%02X;\n", camel("FIRST", regs[i].name, nm, sizeof nm), regs[i].first);
    for (int m = 0; m < ETM_MGMT_COUNT; m++)
        put(b, "  localparam logic [7:0] %s = 8'h%02X;\n", camel("FIRST", etm_mgmt_registers[m].name, nm, sizeof nm),
            etm_mgmt_registers[m].first);
    put(b, "\n  // Fixed values of the programmer's model (etm/regmap.h)\n");
    put(b, "  localparam logic [31:0] LarKey = 32'h%08X;\n", ETM_LAR_KEY);
    put(b, "  localparam logic [31:0] DevtypeValue = 32'h%08X;\n", ETM_DEVTYPE_VALUE);
    put(b, "  localparam logic [31:0] AuthstatusValue = 32'h%08X;\n", ETM_AUTHSTATUS_VALUE);
    put(b, "  localparam logic [31:0] CidrValue = 32'h%08X;\n", ETM_CIDR_VALUE);
    put(b, "  localparam int unsigned ClaimTags = %u;\n", ETM_CLAIM_TAGS);
    put(b, "  localparam logic [31:0] CrReset = 32'h%08X;\n", ETM_CR_RESET);
    put(b, "  localparam logic [31:0] SyncfrReset = 32'h%08X;\n", ETM_SYNCFR_RESET);
    put(b, "  // ETMCR bits the model leaves out (read as zero, writes ignored), ETMv1 and ETMv3\n");
    put(b, "  localparam logic [31:0] CrUnmodelledV1 = 32'h%08X;\n", etm_cr_unmodelled_mask(ETM_V(1, 0)));
    put(b, "  localparam logic [31:0] CrUnmodelledV3 = 32'h%08X;\n", etm_cr_unmodelled_mask(ETM_V(3, 0)));
    put(b, "\n  // The bits of each layout that a version has (version: major * 16 + minor)\n");
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        size_t n;
        const etm_regfield_t *f = etm_layout_fields((unsigned)l, &n);
        lower("MASK", layouts[l].name, nm, sizeof nm);
        put(b, "  function automatic logic [31:0] %s(input logic [7:0] v);\n    %s = 32'h0;\n", nm, nm);
        for (size_t i = 0; i < n; i++, f++) {
            char lo[24] = "", hi[24] = "";
            if (f->vmin > ETM_V(1, 0))
                snprintf(lo, sizeof lo, "v >= 8'h%02X", f->vmin);
            if (f->vmax != ETM_VMAX)
                snprintf(hi, sizeof hi, "v <= 8'h%02X", f->vmax);
            if (lo[0] || hi[0])
                put(b, "    if (%s%s%s) ", lo, lo[0] && hi[0] ? " && " : "", hi);
            else
                put(b, "    ");
            put(b, "%s = %s | 32'h%08X;\n", nm, nm, etm_regfield_mask(f));
        }
        put(b, "  endfunction\n");
    }
}

static void sv_fields(buf_t *b)
{
    char nm[96], fn[96];
    put(b, "\n  // ---- Fields (regs.def): position, width, and a function that reads the field ----------\n");
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        size_t n;
        const etm_regfield_t *f = etm_layout_fields((unsigned)l, &n);
        put(b, "\n  // %s\n", layouts[l].doc);
        for (size_t i = 0; i < n; i++, f++) {
            unsigned w = f->hi - f->lo + 1u;
            camel(layouts[l].name, f->id, nm, sizeof nm);
            lower(layouts[l].name, f->id, fn, sizeof fn);
            put(b, "  localparam int unsigned %sLsb = %u, %sWidth = %u;\n", nm, f->lo, nm, w);
            if (w == 1)
                put(b, "  function automatic logic %s(input logic [31:0] r);\n    %s = r[%u];\n  endfunction\n", fn,
                    fn, f->lo);
            else
                put(b,
                    "  function automatic logic [%u:0] %s(input logic [31:0] r);\n    %s = r[%u:%u];\n"
                    "  endfunction\n",
                    w - 1, fn, fn, f->hi, f->lo);
        }
    }
}

static void gen_pkg(buf_t *b)
{
    put(b, HEADER_SV);
    put(b, "//\n// etm_defs_pkg.sv - the C model's definitions for the RTL: the protocol's constants and the\n"
           "// sizes both share (etm/consts.def), the interface rules (etm/rules.def), the register\n"
           "// numbers and one function per register field (etm/regs.def). Written in the subset of\n"
           "// SystemVerilog that Verilator and Yosys read (functions return by assigning their name).\n");
    put(b, "package etm_defs_pkg;\n\n");
    sv_consts(b);
    sv_rules(b);
    sv_registers(b);
    sv_fields(b);
    put(b, "\nendpackage\n");
}

/* ---- Port lists ---------------------------------------------------------------------------- */

/* A signal that is an input port of etm_top (not a group, not an output). */
static int is_in_port(const sig_t *s) { return !s->group && !s->out; }

/* Each port as `dir TYPE NAME,` on a line of its own macro body. */
static void ports_in(buf_t *b, const char *macro, const char *dir)
{
    char r[48];
    put(b, "`define %s%s \\\n", macro, dir ? "" : "(dir)");
    for (size_t i = 0; i < NSIGS; i++)
        if (is_in_port(&sigs[i]))
            put(b, "  %s %-13s %s, \\\n", dir ? dir : "dir", range(sigs[i].width, sigs[i].lsb, r, sizeof r),
                sigs[i].name);
    put(b, "\n");
}

static void ports_out(buf_t *b, const char *macro, const char *dir)
{
    char r[48];
    put(b, "`define %s%s \\\n", macro, dir ? "" : "(dir)");
    for (size_t i = 0; i < NSIGS; i++) {
        const sig_t *s = &sigs[i];
        if (s->group || !s->out)
            continue;
        put(b, "  %s %-13s %s, \\\n", dir ? dir : "dir", range(s->width, 0, r, sizeof r), s->name);
        if (s->bytes)
            put(b, "  %s %-13s %s, \\\n", dir ? dir : "dir", range(data_width(s), 0, r, sizeof r), s->data);
    }
    put(b, "\n");
}

/* The inputs taken into flip-flops NAME_q at clk's rising edge, declared and
 * assigned (a harness wrapper whose design reads its inputs a cycle later:
 * tb/cosim/etm_top_tick.sv), and the design's input ports connected to them. */
static void flops_in(buf_t *b)
{
    char r[48];
    put(b, "`define ETM_IN_FLOPS(clk) \\\n");
    for (size_t i = 0; i < NSIGS; i++)
        if (is_in_port(&sigs[i]))
            put(b, "  %-13s %s_q; \\\n", range(sigs[i].width, sigs[i].lsb, r, sizeof r), sigs[i].name);
    put(b, "  always_ff @(posedge clk) begin \\\n");
    for (size_t i = 0; i < NSIGS; i++)
        if (is_in_port(&sigs[i]))
            put(b, "    %s_q <= %s; \\\n", sigs[i].name, sigs[i].name);
    put(b, "  end\n\n");
    put(b, "`define ETM_IN_CONNECT_Q \\\n");
    for (size_t i = 0; i < NSIGS; i++)
        if (is_in_port(&sigs[i]))
            put(b, "  .%s(%s_q), \\\n", sigs[i].name, sigs[i].name);
    put(b, "\n");
}

/* The implementation: the read-only registers (ETM_IMPL) and the model parameters. */
static int reg_is_impl_or_param(const reg_t *r) { return r->param || reg_is_impl(r->name); }

static void ports_impl(buf_t *b, const char *macro, const char *dir)
{
    put(b, "`define %s%s \\\n", macro, dir ? "" : "(dir)");
    for (size_t i = 0; i < NREGS; i++)
        if (reg_is_impl_or_param(&regs[i]))
            put(b, "  %s logic [31:0] impl_%s_i, \\\n", dir ? dir : "dir", regs[i].field);
    put(b, "\n");
}

static void vars_impl(buf_t *b)
{
    put(b, "`define ETM_IMPL_VARS \\\n");
    for (size_t i = 0; i < NREGS; i++)
        if (reg_is_impl_or_param(&regs[i]))
            put(b, "  logic [31:0] impl_%s_i; \\\n", regs[i].field);
    put(b, "\n");
}

static void gen_ports(buf_t *b)
{
    put(b, HEADER_SV);
    put(b, "//\n// etm_ports.svh - the ports of etm_top, as macros, each port followed by a comma:\n"
           "//   ETM_IN_PORTS(dir)   the interface inputs (etm/signals.def)\n"
           "//   ETM_IMPL_PORTS(dir) the implementation, impl_<register>_i: the read-only registers\n"
           "//                       and model parameters of etm/regs.def (fixed in a real part)\n"
           "//   ETM_OUT_PORTS(dir)  the outputs (etm/signals.def)\n"
           "//   ETM_IMPL_VARS       the implementation ports as variables, for a wrapper that ties them\n"
           "//   ETM_IN_FLOPS(clk)   the inputs taken into flip-flops <NAME>_q at clk's rising edge\n"
           "//   ETM_IN_CONNECT_Q    the input ports connected to those flip-flops, for a harness\n"
           "//                       wrapper that evaluates once a cycle (tb/cosim/etm_top_tick.sv)\n");
    put(b, "`ifndef ETM_PORTS_SVH\n`define ETM_PORTS_SVH\n\n");
    ports_in(b, "ETM_IN_PORTS", NULL);
    ports_impl(b, "ETM_IMPL_PORTS", NULL);
    ports_out(b, "ETM_OUT_PORTS", NULL);
    vars_impl(b);
    flops_in(b);
    put(b, "`endif\n");
}

/* ---- tb/dpi/etm_dpi_defs.svh ----------------------------------------------------------------- */

/* The DPI arguments of the inputs (or outputs), joined by ", ". */
static void dpi_args(buf_t *b, const char *macro, int out)
{
    char nm[64];
    int first = 1;
    put(b, "`define %s(dir)", macro);
    for (size_t i = 0; i < NSIGS; i++) {
        const sig_t *s = &sigs[i];
        if (s->group || s->out != out)
            continue;
        put(b, "%s \\\n  dir %s %s", first ? "" : ",", dpi_type(s->width), lower(s->field, NULL, nm, sizeof nm));
        first = 0;
        if (s->bytes)
            put(b, ", \\\n  dir %s %s", dpi_type(data_width(s)), s->bytes_field);
    }
    put(b, "\n\n");
}

/* A port's value as a DPI argument: 32'(X) below 32 bits. */
static void dpi_value(buf_t *b, const char *name, unsigned width, int first)
{
    if (width < 32)
        put(b, "%s \\\n  32'(%s)", first ? "" : ",", name);
    else
        put(b, "%s \\\n  %s", first ? "" : ",", name);
}

static void dpi_values(buf_t *b, const char *macro, int out)
{
    int first = 1;
    put(b, "`define %s", macro);
    for (size_t i = 0; i < NSIGS; i++) {
        const sig_t *s = &sigs[i];
        if (s->group || s->out != out)
            continue;
        dpi_value(b, s->name, s->width, first);
        first = 0;
        if (s->bytes)
            dpi_value(b, s->data, data_width(s), 0);
    }
    put(b, "\n\n");
}

/* {$isunknown(last), ..., $isunknown(first)}: bit i for argument i. */
static void dpi_unknown(buf_t *b, const char *macro, int out)
{
    const char *names[64];
    unsigned n = 0;
    for (size_t i = 0; i < NSIGS && n < 62; i++) {
        const sig_t *s = &sigs[i];
        if (s->group || s->out != out)
            continue;
        names[n++] = s->name;
        if (s->bytes)
            names[n++] = s->data;
    }
    put(b, "`define %s {", macro);
    for (unsigned i = n; i-- > 0;)
        put(b, "%s\\\n  $isunknown(%s)", i + 1 == n ? " " : ", ", names[i]);
    put(b, "}\n\n");
}

static void dpi_fields(buf_t *b)
{
    char nm[64];
    unsigned k = 0;
    put(b, "`define ETM_DPI_FIELD_PARAMS \\\n");
    for (size_t i = 0; i < NSIGS; i++) {
        const sig_t *s = &sigs[i];
        if (s->group || !s->out)
            continue;
        put(b, "  localparam int %s = %u; \\\n", camel("FIELD", s->name, nm, sizeof nm), k++);
        if (s->bytes)
            put(b, "  localparam int %s = %u; \\\n", camel("FIELD", s->data, nm, sizeof nm), k++);
    }
    put(b, "  localparam int FieldViolations = %u;\n\n", k);
}

static void dpi_check_config(buf_t *b)
{
    put(b, "`define ETM_SB_CHECK_CONFIG \\\n");
    for (size_t i = 0; i < NREGS; i++)
        if (reg_is_impl_or_param(&regs[i]))
            put(b, "  check_reg(\"%s\", impl_%s_i); \\\n", regs[i].name, regs[i].field);
    put(b, "\n");
}

/* For testbenches: the inputs as variables, the DPI stimulus outputs onto them, and the
 * configuration ports from a handle's register image. */
static void dpi_tb_helpers(buf_t *b)
{
    char r[48], nm[64];
    put(b, "`define ETM_TB_IN_VARS \\\n");
    for (size_t i = 0; i < NSIGS; i++)
        if (!sigs[i].group && !sigs[i].out)
            put(b, "  %s %s; \\\n", range(sigs[i].width, sigs[i].lsb, r, sizeof r), sigs[i].name);
    put(b, "\n`define ETM_TB_OUT_VARS \\\n");
    for (size_t i = 0; i < NSIGS; i++) {
        const sig_t *s = &sigs[i];
        if (s->group || !s->out)
            continue;
        put(b, "  %s %s; \\\n", range(s->width, 0, r, sizeof r), s->name);
        if (s->bytes)
            put(b, "  %s %s; \\\n", range(data_width(s), 0, r, sizeof r), s->data);
    }
    put(b, "\n`define ETM_TB_STIM_LOCALS \\\n");
    for (size_t i = 0; i < NSIGS; i++)
        if (!sigs[i].group && !sigs[i].out)
            put(b, "  %s %s; \\\n", dpi_type(sigs[i].width), lower(sigs[i].field, NULL, nm, sizeof nm));
    put(b, "\n`define ETM_TB_STIM_REFS");
    int first = 1;
    for (size_t i = 0; i < NSIGS; i++)
        if (!sigs[i].group && !sigs[i].out) {
            put(b, "%s \\\n  %s", first ? "" : ",", lower(sigs[i].field, NULL, nm, sizeof nm));
            first = 0;
        }
    put(b, "\n\n`define ETM_TB_STIM_DRIVE \\\n");
    for (size_t i = 0; i < NSIGS; i++)
        if (!sigs[i].group && !sigs[i].out)
            put(b, "  %s = %s[%u:0]; \\\n", sigs[i].name, lower(sigs[i].field, NULL, nm, sizeof nm),
                sigs[i].width - 1);
    put(b, "\n`define ETM_TB_PROGRAM(img) \\\n");
    for (size_t i = 0; i < NREGS; i++)
        if (reg_is_impl_or_param(&regs[i]))
            put(b, "  impl_%s_i = reg_value(img, \"%s\"); \\\n", regs[i].field, regs[i].name);
    put(b, "\n");
}

static void gen_dpi(buf_t *b)
{
    put(b, HEADER_SV);
    put(b, "//\n// etm_dpi_defs.svh - the signals and registers of etm/signals.def and etm/regs.def as the\n"
           "// DPI package, the scoreboard and testbenches use them (docs/dpi.md):\n"
           "//   ETM_DPI_IN_ARGS(dir), ETM_DPI_OUT_ARGS(dir)   etm_dpi_step's and etm_dpi_compare's arguments\n"
           "//   ETM_DPI_FIELD_PARAMS                          Field* bit positions of the compare mask\n"
           "//   ETM_SB_IN_PORTS, ETM_SB_IMPL_PORTS, ETM_SB_OUT_PORTS  the scoreboard's ports (all inputs)\n"
           "//   ETM_SB_IN_VALUES, ETM_SB_OUT_VALUES           the ports as DPI arguments\n"
           "//   ETM_SB_IN_UNKNOWN, ETM_SB_OUT_UNKNOWN         their $isunknown bits\n"
           "//   ETM_SB_CHECK_CONFIG                           check_reg() of every implementation register\n"
           "//   ETM_TB_*                                      variables and helpers for a testbench\n");
    put(b, "`ifndef ETM_DPI_DEFS_SVH\n`define ETM_DPI_DEFS_SVH\n\n");
    dpi_args(b, "ETM_DPI_IN_ARGS", 0);
    dpi_args(b, "ETM_DPI_OUT_ARGS", 1);
    dpi_fields(b);
    ports_in(b, "ETM_SB_IN_PORTS", "input");
    ports_impl(b, "ETM_SB_IMPL_PORTS", "input");
    ports_out(b, "ETM_SB_OUT_PORTS", "input");
    dpi_values(b, "ETM_SB_IN_VALUES", 0);
    dpi_values(b, "ETM_SB_OUT_VALUES", 1);
    dpi_unknown(b, "ETM_SB_IN_UNKNOWN", 0);
    dpi_unknown(b, "ETM_SB_OUT_UNKNOWN", 1);
    dpi_check_config(b);
    dpi_tb_helpers(b);
    put(b, "`endif\n");
}

/* ---- Tables in the docs ----------------------------------------------------------------------- */

#define DOC_NOTE "<!-- generated by etm-gendefs from model/defs/include/etm/*.def: edit those, not this table -->\n"

static void doc_signals(buf_t *b)
{
    char r[48];
    put(b, DOC_NOTE);
    put(b, "| Signal | Bits | `etm_in_t` / `etm_out_t` | Meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < NSIGS; i++) {
        const sig_t *s = &sigs[i];
        if (s->group) {
            put(b, "| **%s** | | | |\n", s->group);
            continue;
        }
        snprintf(r, sizeof r, s->width == 1 && s->lsb == 0 ? "1" : "[%u:%u]", s->lsb + s->width - 1, s->lsb);
        if (s->bytes) {
            put(b, "| %s, %s | [3:0], [%u:0] | `%s`, `%s[%u]` | %s; files: one column %s |\n", s->name, s->data,
                data_width(s) - 1, s->field, s->bytes_field, s->n, s->doc, s->column);
            continue;
        }
        char q[96] = "", qtext[128] = "";
        int in = s->out ? -1 : etm_signal_find(etm_in_signals, etm_in_signal_count, s->name);
        if (in >= 0 && *etm_in_qualifiers((size_t)in, q, sizeof q))
            snprintf(qtext, sizeof qtext, "; may be X or Z while %s is 0", q);
        put(b, "| %s | %s | `%s` | %s%s%s |\n", s->name, r, s->field, s->doc,
            s->out && s->where == ETM_SIGF_PORT    ? " (a port, not a file column)"
            : !s->out && s->where != ETM_SIGF_CORE ? " (may be absent from a VCD: reads 0)"
                                                   : "",
            qtext);
    }
}

static void version_text(unsigned v, char *out, size_t size)
{
    snprintf(out, size, "v%u.%u", ETM_V_MAJOR(v), ETM_V_MINOR(v));
}

static void doc_registers(buf_t *b)
{
    char v[16], w[48];
    put(b, DOC_NOTE);
    put(b, "| Register | Number | Offset | From | Fields | Meaning (access) | Described in |\n"
           "|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < NREGS; i++) {
        const reg_t *r = &regs[i];
        if (r->param) {
            put(b, "| %s | - | - | - | | %s | model parameter |\n", r->name, r->doc);
            continue;
        }
        version_text(r->first, v, sizeof v);
        const char *acc = reg_is_impl(r->name) ? "R" : "RW";
        if (r->count > 1)
            put(b, "| %s1..%u | 0x%03X.. | 0x%03X.. | %s | %s | %s (%s) | %s |\n", r->name, r->count, r->number,
                4 * r->number, v, r->layout, r->doc, acc, source_of(r->name));
        else
            put(b, "| %s | 0x%03X | 0x%03X | %s | %s | %s (%s) | %s |\n", r->name, r->number, 4 * r->number, v,
                r->layout, r->doc, acc, source_of(r->name));
    }
    for (int m = 0; m < ETM_MGMT_COUNT; m++) {
        const etm_mgmtdesc_t *g = &etm_mgmt_registers[m];
        version_text(g->first, v, sizeof v);
        if (g->count > 1)
            put(b, "| %s (%u) | 0x%03X.. | 0x%03X.. | %s | - | %s (%s) | %s |\n", g->name, g->count, g->number,
                4 * g->number, v, g->doc, access_text(g->access), source_of(g->name));
        else
            put(b, "| %s | 0x%03X | 0x%03X | %s | - | %s (%s) | %s |\n", g->name, g->number, 4 * g->number, v,
                g->doc, access_text(g->access), source_of(g->name));
    }
    put(b, "\n| Layout | Bits | Field | C name | Versions |\n|---|---|---|---|---|\n");
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        size_t n;
        const etm_regfield_t *f = etm_layout_fields((unsigned)l, &n);
        for (size_t i = 0; i < n; i++, f++) {
            char bits[16];
            etm_regfield_bits(f, bits, sizeof bits);
            version_text(f->vmin, v, sizeof v);
            if (f->vmax == ETM_VMAX)
                snprintf(w, sizeof w, "%s on", v);
            else {
                char hi[16];
                version_text(f->vmax, hi, sizeof hi);
                snprintf(w, sizeof w, "%s-%s", v, hi);
            }
            put(b, "| %s | %s | %s | `ETM_%s_%s` | %s |\n", i ? "" : layouts[l].name, bits, f->name,
                layouts[l].name, f->id, w);
        }
    }
}

/* ---- Files ------------------------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf_t b = { NULL, 0, 0 };
    char chunk[8192];
    size_t n;
    put(&b, "%s", "");
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(&b, "%.*s", (int)n, chunk);
    fclose(f);
    *len = b.n;
    return b.s;
}

static int check_mode;
static int stale;

/* Write (or compare) the whole file root/rel. */
static void emit(const char *root, const char *rel, const buf_t *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    size_t len = 0;
    char *old = slurp(path, &len);
    int same = old && len == b->n && memcmp(old, b->s, len) == 0;
    free(old);
    if (same)
        return;
    if (check_mode) {
        fprintf(stderr, "etm-gendefs: %s is not what the .def files give\n", rel);
        stale = 1;
        return;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->s, 1, b->n, f) != b->n || fclose(f) != 0) {
        fprintf(stderr, "etm-gendefs: %s: cannot write\n", path);
        exit(2);
    }
    printf("etm-gendefs: wrote %s\n", rel);
}

/* Replace the lines between "<!-- BEGIN etm-gendefs NAME -->" and
 * "<!-- END etm-gendefs NAME -->" in the markdown file root/rel by b. */
static void emit_block(const char *root, const char *rel, const char *name, const buf_t *b)
{
    char path[4096], begin[128], end[128];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(begin, sizeof begin, "<!-- BEGIN etm-gendefs %s -->\n", name);
    snprintf(end, sizeof end, "<!-- END etm-gendefs %s -->", name);
    size_t len = 0;
    char *old = slurp(path, &len);
    char *a = old ? strstr(old, begin) : NULL;
    char *z = a ? strstr(a, end) : NULL;
    if (!a || !z) {
        fprintf(stderr, "etm-gendefs: %s: no block '%s' ... '%s'\n", rel, begin, end);
        free(old);
        exit(2);
    }
    buf_t nb = { NULL, 0, 0 };
    put(&nb, "%.*s%s%.*s", (int)(a - old) + (int)strlen(begin), old, b->s, (int)(len - (size_t)(z - old)), z);
    free(old);
    emit(root, rel, &nb);
    free(nb.s);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--write") != 0 && strcmp(argv[1], "--check") != 0)) {
        fprintf(stderr, "usage: etm-gendefs --write|--check SOURCE_ROOT\n");
        return 2;
    }
    check_mode = !strcmp(argv[1], "--check");
    const char *root = argv[2];
    buf_t pkg = { NULL, 0, 0 }, ports = { NULL, 0, 0 }, dpi = { NULL, 0, 0 };
    buf_t dsig = { NULL, 0, 0 }, dreg = { NULL, 0, 0 };
    gen_pkg(&pkg);
    gen_ports(&ports);
    gen_dpi(&dpi);
    doc_signals(&dsig);
    doc_registers(&dreg);
    emit(root, "rtl/etm_defs_pkg.sv", &pkg);
    emit(root, "rtl/etm_ports.svh", &ports);
    emit(root, "tb/dpi/etm_dpi_defs.svh", &dpi);
    emit_block(root, "docs/interface.md", "signals", &dsig);
    emit_block(root, "docs/registers.md", "registers", &dreg);
    free(pkg.s);
    free(ports.s);
    free(dpi.s);
    free(dsig.s);
    free(dreg.s);
    if (stale)
        fprintf(stderr, "etm-gendefs: run `cmake --build build --target etm-regen` and commit the result\n");
    return stale;
}
