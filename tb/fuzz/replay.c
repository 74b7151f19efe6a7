/* replay.c - a harness without libFuzzer: runs LLVMFuzzerTestOneInput once on
 * every file named, or in a folder named, on the command line. The fuzz label's
 * replay tests build each harness with this main (any compiler, any build type)
 * and run its seed corpus and its regression inputs; a broken invariant aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "readfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long runs;

static int replay_file(const char *path)
{
    uint8_t *buf;
    size_t n;
    char err[4400];
    if (readfile(path, &buf, &n, err, sizeof err) != 0) {
        fprintf(stderr, "replay: %s\n", err);
        return 1;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    runs++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: cannot open the folder\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger) {
                bad = 1;
                break;
            }
            names = bigger;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            bad = 1;
            break;
        }
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!bad && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            bad |= replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            bad |= replay_dir(argv[i]);
        } else {
            bad |= replay_file(argv[i]);
        }
    }
    printf("replayed %lu inputs\n", runs);
    return bad;
}
