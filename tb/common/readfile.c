/* readfile.c - a whole file into memory (readfile.h). */
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int readfile(const char *path, uint8_t **data, size_t *size, char *err, size_t errsize)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsize, "%s: cannot read the file: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *b = (uint8_t *)malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = (uint8_t *)realloc(b, cap * 2);
            if (!bigger) {
                free(b);
                b = NULL;
                break;
            }
            b = bigger;
            cap *= 2;
        }
    }
    int failed = b && ferror(f), saved = errno;
    fclose(f);
    if (failed) {
        free(b);
        snprintf(err, errsize, "%s: cannot read the file: %s", path, strerror(saved));
        return -1;
    }
    uint8_t *exact = b ? (uint8_t *)realloc(b, n ? n : 1) : NULL;
    if (!exact) {
        free(b);
        snprintf(err, errsize, "%s: out of memory", path);
        return -1;
    }
    *data = exact;
    *size = n;
    return 0;
}
