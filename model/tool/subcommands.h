/* subcommands.h - entry points of the tool's subcommands; each gets argv with
 * argv[0] = the subcommand's name and returns the exit status. */
#ifndef ETM_TOOL_SUBCOMMANDS_H
#define ETM_TOOL_SUBCOMMANDS_H

int cmd_check(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_swo(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#include "etm/config.h"
#include "etm/model.h"
#include "json.h"
#include "etm/tpiu.h"
#include "source.h"

/* What a model run writes (any may be NULL). */
typedef struct run_outputs {
    const char *trace; /* ETMv3 bytes */
    const char *out;   /* per-cycle outputs as a vector file */
    const char *vcd;   /* inputs and outputs as VCD */
    int strict;        /* stop at the first interface violation */
    int quiet;         /* no summary */
    int json;          /* the summary as one JSON object (docs/json.md) */
    const char *json_command;       /* its "command" (NULL: "run") */
    void (*json_more)(void *user, struct json *j); /* members the caller adds (may be NULL) */
    int program;       /* from reset, programmed through the debug APB before the stimulus */
    int at_reset;      /* from reset, unprogrammed: the stimulus programs it */
    unsigned hold;     /* the closed loop: FIFOFULL holds the core, delaying the stimulus; the
                        * cycles from FIFOFULL to the held cycle (0: no loop) */
    /* The ETM's ATB into a TPIU (ATREADY from it); the trace file then holds the
     * TPIU's pins, CoreSight-formatted. NULL: the ETM's bytes as they leave. */
    const etm_tpiu_params_t *tpiu;
    /* Called at the end of a successful run with the instance (e.g. to read its
     * registers back); returns an exit status. May be NULL. */
    int (*at_end)(void *user, const etm_ctx_t *etm);
    void *user;
} run_outputs_t;

/* A model run's statistics as the member "stats" of the current JSON object. */
void json_run_stats(json_t *j, const etm_stats_t *s);

/* The SWO line as --swo reads it from *f (opened on path): the line's bytes
 * as they are, or, when f is a logic analyzer's capture (a sigrok session, a
 * zip archive), the pin decoded as `etm swo` decodes it (channel NULL: "SWO";
 * baud 0: measured; manchester: the pin in Manchester mode), *f then closed
 * and replaced by a temporary file of its bytes, rewound. Returns 0, or 2
 * (printed; *f closed). */
int swo_open_trace(FILE **f, const char *path, const char *channel, uint64_t baud, int manchester);

/* "PINS[:DIV]" into a TPIU's parameters; returns 0, or -1 with a message. */
int tpiu_opt_parse(const char *cmd, const char *v, etm_tpiu_params_t *p);
/* --hold or --hold=N: *latency 1, or N (1 to ETM_HOLD_LATENCY_MAX); -1 printed. */
int hold_opt_parse(const char *cmd, const char *a, unsigned *latency);

/* Run the model over a stimulus file with optional register overrides; the
 * configuration used goes to *cfg_out (may be NULL). Returns an exit status. */
int run_stimulus(const char *path, const source_opts_t *so, const char *const *sets, int nsets,
                 const run_outputs_t *o, etm_config_t *cfg_out);

/* `etm decode` when the configuration is an ETMv1 (ETMCCR[31] = 0): the input is the
 * port, per cycle, from an expected-output vector file or a VCD (cmd_decode_v1.c). */
#include "etm/decode_v1.h"

typedef struct decode_v1_args {
    const char *path;                 /* vector file or VCD */
    const etm_config_t *cfg;          /* the ETMv1 configuration */
    const source_opts_t *so;          /* VCD options */
    const etm_v1_window_t *windows;   /* code image */
    unsigned nwindows;
    int elements;                     /* print instructions and other elements */
    int strict;                       /* ETM_V1DEC_STRICT */
    int stats;
    int json;                         /* the statistics as one JSON object */
    int keep_going;
} decode_v1_args_t;

/* Returns the exit status: 0 decoded, 2 bad input or malformed trace. */
int decode_v1_run(const decode_v1_args_t *a);

#endif
