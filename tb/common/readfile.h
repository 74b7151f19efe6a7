/* readfile.h - a whole file into memory, for the test programs: one way to
 * read a trace, a code image or a fuzzer's input, with an error that names the
 * file and says what the system said. */
#ifndef ETM_TB_READFILE_H
#define ETM_TB_READFILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Read the file at path. Returns 0 with *data (malloc'd, exactly *size bytes,
 * so that a sanitizer sees a read past the end; free() it) and *size; or -1
 * with *data NULL and err (errsize bytes, at least 1) holding
 * "PATH: cannot read the file: <strerror>" or "PATH: out of memory". */
int readfile(const char *path, uint8_t **data, size_t *size, char *err, size_t errsize);

#ifdef __cplusplus
}
#endif
#endif
