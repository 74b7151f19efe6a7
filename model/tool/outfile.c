/* outfile.c - writing a file whole or not at all, never over an input (outfile.h). */
#define _XOPEN_SOURCE 700
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etm/vcd.h"

static int is_input(const char *path, const char *const *inputs, const char **which)
{
    struct stat out, in;
    if (!inputs || stat(path, &out) != 0)
        return 0; /* nothing there yet: no input can be it */
    for (const char *const *p = inputs; *p; p++)
        if (strcmp(*p, "-") && stat(*p, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
            if (which)
                *which = *p;
            return 1;
        }
    return 0;
}

int outfile_refuse(const char *cmd, const char *path, const char *const *inputs)
{
    const char *in = NULL;
    if (strcmp(path, "-") && is_input(path, inputs, &in)) {
        fprintf(stderr, "etm %s: %s: that is the input %s: refusing to write over it (name another output)\n",
                cmd, path, in);
        return 2;
    }
    return 0;
}

int outfile_open(outfile_t *o, const char *cmd, const char *path, const char *const *inputs)
{
    memset(o, 0, sizeof *o);
    o->shown = path;
    if (!strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    size_t len = strlen(path);
    if (len == 0 || path[len - 1] == '/') { /* no name to rename the temporary to */
        fprintf(stderr, "etm %s: '%s': %s\n", cmd, path, len ? "names a folder, not a file" : "an empty file name");
        return 2;
    }
    if (outfile_refuse(cmd, path, inputs))
        return 2;
    /* A symbolic link is written where it points; a dangling one as named. */
    struct stat st;
    char *real = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
    const char *dest = real ? real : path;
    if (strlen(dest) >= sizeof o->dest) {
        fprintf(stderr, "etm %s: %s: the path is too long\n", cmd, path);
        free(real);
        return 2;
    }
    strcpy(o->dest, dest);
    free(real);
    int exists = stat(o->dest, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "etm %s: %s: is a directory\n", cmd, path);
        return 2;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, a FIFO, a socket (/dev/null, a pipe): written as it comes, as
         * standard output is; renaming a file over it would replace the node. */
        if (etm_is_fst_path(path)) {
            fprintf(stderr, "etm %s: %s: is not a regular file (an FST is written whole, into a file)\n", cmd, path);
            return 2;
        }
        o->f = fopen(o->dest, "wb");
        if (!o->f) {
            fprintf(stderr, "etm %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
            return 2;
        }
        o->special = 1;
        return 0;
    }
    const char *slash = strrchr(o->dest, '/');
    int dirlen = slash ? (int)(slash - o->dest + 1) : 0;
    snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.etm-XXXXXX", dirlen, o->dest, o->dest + dirlen);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "etm %s: %s: cannot create a file beside it: %s\n", cmd, path, strerror(errno));
        o->tmp[0] = 0;
        return 2;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) { /* as a new file gets: mkstemp made it 0600 */
        /* not fatal: the file stays the user's own */
    }
    o->fst = etm_is_fst_path(path);
    if (o->fst) {
        close(fd); /* the FST is converted into it at the end */
        o->f = tmpfile();
    } else {
        o->f = fdopen(fd, "wb");
        if (!o->f)
            close(fd);
    }
    if (!o->f) {
        fprintf(stderr, "etm %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
        unlink(o->tmp);
        o->tmp[0] = 0;
        return 2;
    }
    return 0;
}

void outfile_discard(outfile_t *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f); /* a device or FIFO has had what was written */
    if (o->tmp[0])
        unlink(o->tmp);
    o->f = NULL;
    o->tmp[0] = 0;
}

int outfile_commit(outfile_t *o, const char *cmd)
{
    if (!o->f)
        return 2;
    if (o->f == stdout) {
        o->f = NULL;
        if (fflush(stdout) != 0) {
            fprintf(stderr, "etm %s: cannot write standard output: %s\n", cmd, strerror(errno));
            return 2;
        }
        return 0;
    }
    int ok = fflush(o->f) == 0 && !ferror(o->f);
    int err = errno;
    if (ok && o->fst) {
        etm_diag_t d;
        etm_diag_clear(&d);
        rewind(o->f);
        if (etm_vcd_to_fst(o->f, o->tmp, &d) != ETM_OK) {
            fprintf(stderr, "etm %s: %s\n", cmd, d.msg);
            outfile_discard(o);
            return 2;
        }
    }
    ok &= fclose(o->f) == 0;
    if (!ok)
        err = errno;
    o->f = NULL;
    if (ok && !o->special && rename(o->tmp, o->dest) != 0) { /* a device or FIFO was written in place */
        ok = 0;
        err = errno;
    }
    if (!ok) {
        fprintf(stderr, "etm %s: %s: cannot write: %s%s\n", cmd, o->shown, strerror(err),
                o->special ? "" : " (the old file, if any, is left)");
        if (o->tmp[0])
            unlink(o->tmp);
        o->tmp[0] = 0;
        return 2;
    }
    o->tmp[0] = 0;
    return 0;
}

int outfile_finish(outfile_t *o, int ok, const char *cmd)
{
    if (!o->f)
        return 0;
    if (ok)
        return outfile_commit(o, cmd);
    outfile_discard(o);
    return 0;
}
