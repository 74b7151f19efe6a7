/* fuzz_cli.c - the command line as a user types it: the tool's own main
 * (model/tool/etm.c, as etm_tool_main) run in-process on arguments the fuzzer
 * picks, with the file they name holding the fuzzer's bytes.
 *
 * The input: a byte picking the subcommand; a byte giving how many arguments
 * (0 to 11); per argument a byte: below 0xA0 one of the tool's options or
 * file names (the table below), else a token of the next (byte % 12) input
 * bytes, NUL and '/' replaced (numbers, names, rates, NAME=0xV: anything a
 * user could type, kept inside the scratch folder); the rest of the input is
 * the file in.dat. Every run happens in one scratch folder, emptied first (an
 * input is the whole of what a run sees: a finding replays), stdout and
 * stderr thrown away.
 *
 * Invariants: the exit status is 0, 1 or 2; a command that fails (2)
 * leaves in.dat as it was (an error writes no file, and none over an input);
 * no temporary of a finished command is left (outputs are renamed into place
 * or removed). Numbers that would make a command run long (more than 4
 * digits) are cut to 4, etm gen's --cycles to 3 and without --cycles it
 * makes 1000 cycles, not its default 100000 (the generator took three
 * quarters of the time): the refusal of large numbers is unit.number's and
 * cli.numbers', and the model's harnesses take the cycles; here the time
 * goes to the command line and the files. */
#include "fuzz.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int etm_tool_main(int argc, char **argv);

static const char *const cmds[] = { "run", "check", "convert", "config", "snapshot", "decode", "verify", "gen",
                                    "swo" };

/* Options with and without values, the files the folder holds, and values. */
static const char *const words[] = {
    "in.dat", "in.dat", "in.dat", "out.vec", "out.vcd", "out.bin", "out.fst", "snapdir", "-", "--help",
    "--json", "--quiet", "--warn", "--strict", "--trace", "--out", "--vcd", "--config", "--set", "--preset",
    "--at-reset", "--hold", "--hold=3", "--tpiu", "--max-report", "--cycles", "--seed", "--format", "vcd", "vec",
    "--clock", "--period", "--offset", "--coresight", "--swo", "--manchester", "--id", "--baud", "--channel",
    "--image", "--snapshot", "--snapshot-outside", "--packets", "--no-elements", "--stats", "--max-lag", "--events",
    "--issue-width", "--irq-period", "--data", "--data-mix", "--triggers", "--atb-stall", "--atb-burst",
    "--reprogram", "--sleep", "--list", "--binary", "--explain", "--presets", "--rules", "--allow-missing",
    "--scope", "--map", "--reset", "--program", "--overflow-at-end", "etm-m3", "etmv1.3", "etmv3.5",
    "cm3-ca-whatif", "ETMCR=0x810", "ETMCR=0x1810", "FIFO_DEPTH=0x18", "ETMTRACEIDR=0x10", "nrz:0", "manchester:2",
    "4:2", "etb:64", "0x10", "0", "1", "3", "100", "auto", "8M", "0x0:in.dat", "SWO", "clk", "top",
};

static int is_digit_run(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] < '0' || s[n] > '9')
            return 0;
    return n > 0;
}

/* Whether name is a temporary's: ".NAME.etm-XXXXXX" or "DIR.etm-XXXXXX", six
 * letters or digits at the end (a name the fuzzer types is at most 11
 * characters: it cannot be one). */
static int temporary_name(const char *name)
{
    size_t n = strlen(name);
    if (n < 11 || strncmp(name + n - 11, ".etm-", 5))
        return 0;
    for (size_t i = n - 6; i < n; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= 'A' && name[i] <= 'Z')))
            return 0;
    return 1;
}

/* Empty the folder open as fd (what an earlier run left). */
static void empty_folder(int fd)
{
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        fuzz_fail("cannot read the scratch folder");
    }
    rewinddir(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (unlinkat(fd, e->d_name, 0) == 0)
            continue;
        int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (sub >= 0) {
            empty_folder(sub);
            close(sub);
        }
        if (unlinkat(fd, e->d_name, AT_REMOVEDIR) != 0)
            fuzz_fail("cannot empty the scratch folder");
    }
    closedir(d);
}

/* The scratch folder's entries that are temporaries. */
static int temporaries(void)
{
    DIR *d = opendir(".");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += temporary_name(e->d_name);
    if (d)
        closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready, quiet = -1, out_fd = -1, err_fd = -1, home = -1, scratch = -1;
    if (!ready) {
        char dir[] = "/tmp/etm-fuzz-cli-XXXXXX";
        home = open(".", O_RDONLY | O_DIRECTORY); /* the fuzzer's own paths are relative to it */
        if (!mkdtemp(dir) || (scratch = open(dir, O_RDONLY | O_DIRECTORY)) < 0 || home < 0)
            fuzz_fail("no scratch folder");
        quiet = open("/dev/null", O_WRONLY);
        out_fd = dup(1);
        err_fd = dup(2);
        if (quiet < 0 || out_fd < 0 || err_fd < 0)
            fuzz_fail("cannot quiet the tool");
        ready = 1;
    }
    fuzz_in_t in = { data, size };
    static char tok[12][16];
    char *argv[18];
    int argc = 0;
    argv[argc++] = (char *)"etm";
    argv[argc++] = (char *)cmds[fuzz_u8(&in) % (sizeof cmds / sizeof cmds[0])];
    int gen = !strcmp(argv[1], "gen");
    unsigned nargs = fuzz_u8(&in) % 12;
    for (unsigned k = 0; k < nargs; k++) {
        unsigned b = fuzz_u8(&in);
        if (b < 0xA0) {
            argv[argc++] = (char *)words[b % (sizeof words / sizeof words[0])];
            continue;
        }
        size_t len = b % 12, j = 0;
        for (; j < len && in.n; j++) {
            char c = (char)fuzz_u8(&in);
            tok[k][j] = c == 0 || c == '/' ? '_' : c;
        }
        tok[k][j] = 0;
        if (is_digit_run(tok[k]) && j > 4)
            tok[k][4] = 0;
        if (is_digit_run(tok[k]) && j > 3 && gen && !strcmp(argv[argc - 1], "--cycles"))
            tok[k][3] = 0; /* at most 999 cycles */
        argv[argc++] = tok[k];
    }
    int has_cycles = 0;
    for (int k = 2; k < argc; k++)
        has_cycles |= !strcmp(argv[k], "--cycles");
    if (gen && !has_cycles) {
        argv[argc++] = (char *)"--cycles";
        argv[argc++] = (char *)"1000";
    }
    argv[argc] = NULL;
    if (fchdir(scratch) != 0)
        fuzz_fail("cannot enter the scratch folder");
    empty_folder(scratch);
    FILE *f = fopen("in.dat", "wb");
    if (!f || (in.n && fwrite(in.p, 1, in.n, f) != in.n) || fclose(f) != 0)
        fuzz_fail("cannot write in.dat");
    /* The tool's output thrown away, the harness's own kept. */
    fflush(stdout);
    fflush(stderr);
    dup2(quiet, 1);
    dup2(quiet, 2);
    int rc = etm_tool_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (rc < 0 || rc > 2)
        fuzz_fail("an exit status other than 0, 1 or 2");
    /* in.dat as it was written */
    f = fopen("in.dat", "rb");
    int same = f != NULL;
    for (size_t i = 0; same && i < in.n; i++)
        same = fgetc(f) == in.p[i];
    if (same)
        same = fgetc(f) == EOF;
    if (f)
        fclose(f);
    if (!same && rc == 2)
        fuzz_fail("a command that failed changed a file");
    if (temporaries())
        fuzz_fail("a finished command left a temporary");
    if (fchdir(home) != 0)
        fuzz_fail("cannot leave the scratch folder");
    return 0;
}
