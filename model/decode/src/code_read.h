/* code_read.h - what both readers of code images (image.c, decode_v1_insn.c)
 * do once they have found the region that holds an address (internal). */
#ifndef ETM_CODE_READ_H
#define ETM_CODE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copy up to n bytes from offset off of a region of size bytes (off < size);
 * returns how many. A decoder's fetch of four bytes is one copy of a word, so
 * that the classifier's halfword loads find the bytes in one store. */
static inline int code_read(uint8_t *buf, const uint8_t *bytes, size_t size, size_t off, unsigned n)
{
    if (n == 4 && size - off >= 4) {
        memcpy(buf, bytes + off, 4);
        return 4;
    }
    size_t k = size - off < n ? size - off : n;
    memcpy(buf, bytes + off, k);
    return (int)k;
}

#endif
