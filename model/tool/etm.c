/* etm.c - the command-line tool: one subcommand per job.
 *
 * Exit status: 0 success; 1 the job ran and found something (rule violations,
 * differences); 2 bad usage or malformed input (the message names file and line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/etm.h"
#include "source.h"
#include "subcommands.h"

static const struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommands[] = {
    { "run", cmd_run, "run the model on a stimulus file: trace bytes, per-cycle outputs, summary" },
    { "check", cmd_check, "check interface signals against the ETM interface rules" },
    { "convert", cmd_convert, "convert between vector files and VCD or FST waveforms" },
    { "config", cmd_config, "validate, explain or print a register image" },
    { "snapshot", cmd_snapshot, "run the model and write an OpenCSD snapshot folder of its trace" },
    { "decode", cmd_decode, "decode an ETMv3 trace (raw or CoreSight frames) into packets and instructions" },
    { "verify", cmd_verify, "check a design's ETMv3 trace against what the core did (protocol scoreboard)" },
    { "gen", cmd_gen, "generate legal random interface activity from a random program" },
    { "swo", cmd_swo, "decode a logic analyzer's capture of an SWO pin (sigrok .sr) into its UART bytes" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: etm <subcommand> [options] ...\n\nSubcommands:\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(f, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(f, "\n'etm <subcommand> --help' describes each. 'etm --version' prints the version.\n"
               "Exit status: 0 success, 1 violations or differences found, 2 bad usage or input.\n");
}

/* Declared: the command-line fuzz harness builds this file with main renamed
 * (tb/fuzz/fuzz_cli.c). */
int main(int argc, char **argv);

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("etm %s\n", etm_version_string());
        return 0;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "etm: unknown subcommand '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
