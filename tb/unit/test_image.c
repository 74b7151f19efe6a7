#define _POSIX_C_SOURCE 200809L
/* test_image.c - code images (etm/snapshot.h): ELF files read by their program
 * headers, raw binaries at an address, and the refusals of --image. The ELF
 * files are built here byte by byte after the ELF specification's layouts
 * (Elf32_Ehdr 52 bytes, Elf32_Phdr 32 bytes), not by the code under test. */
#include <stdlib.h>
#include <unistd.h>

#include "etm/snapshot.h"
#include "test.h"

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* An ARM executable: header, three program headers at 52 (a PT_LOAD of code
 * at 0x8000, loaded at 0x0; a PT_NOTE; a PT_LOAD of data at 0x20000000 with
 * 8 bytes in the file and 64 in memory; a PT_LOAD with nothing in the file),
 * then the bytes: code at 0x100, data at 0x200. */
static size_t make_elf(uint8_t *b)
{
    memset(b, 0, 0x300);
    memcpy(b, "\177ELF", 4);
    b[4] = 1; /* ELFCLASS32 */
    b[5] = 1; /* ELFDATA2LSB */
    b[6] = 1; /* EV_CURRENT */
    put16(b + 16, 2);  /* ET_EXEC */
    put16(b + 18, 40); /* EM_ARM */
    put32(b + 20, 1);
    put32(b + 24, 0x8001); /* entry, Thumb */
    put32(b + 28, 52);     /* e_phoff */
    put16(b + 40, 52);     /* e_ehsize */
    put16(b + 42, 32);     /* e_phentsize */
    put16(b + 44, 4);      /* e_phnum */
    const uint32_t ph[4][8] = {
        /* type, offset, vaddr, paddr, filesz, memsz, flags, align */
        { 1, 0x100, 0x8000, 0x0000, 16, 16, 5, 4 },
        { 4, 0x280, 0, 0, 8, 8, 4, 4 },
        { 1, 0x200, 0x20000000, 0x10, 8, 64, 6, 4 },
        { 1, 0x2F0, 0x20001000, 0x20001000, 0, 32, 6, 4 },
    };
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++)
            put32(b + 52 + 32 * i + 4 * k, ph[i][k]);
    for (int k = 0; k < 16; k++)
        b[0x100 + k] = (uint8_t)(0xA0 + k);
    for (int k = 0; k < 8; k++)
        b[0x200 + k] = (uint8_t)(0xD0 + k);
    return 0x300;
}

static const char *write_tmp(const char *name, const uint8_t *b, size_t n)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ & 3];
    snprintf(p, sizeof path[0], "%s/etm-test-image-%ld-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid(), name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(b, 1, n, f) == n);
        fclose(f);
    }
    return p;
}

static void test_parse(void)
{
    uint8_t b[0x300];
    size_t n = make_elf(b);
    etm_elf_segment_t seg[8];
    unsigned ns = 0;
    uint32_t entry = 0;
    etm_diag_t d;
    CHECK(etm_is_elf(b, n));
    CHECK(etm_elf_parse(b, n, "t.elf", seg, 8, &ns, &entry, &d) == ETM_OK);
    CHECK_EQ(entry, 0x8001);
    CHECK_EQ(ns, 2); /* the note and the empty segment are not loaded */
    CHECK_EQ(seg[0].vaddr, 0x8000);
    CHECK_EQ(seg[0].paddr, 0);
    CHECK_EQ(seg[0].offset, 0x100);
    CHECK_EQ(seg[0].filesz, 16);
    CHECK_EQ(seg[0].flags, 5);
    CHECK_EQ(seg[1].vaddr, 0x20000000);
    CHECK_EQ(seg[1].memsz, 64);

    /* Each broken header is named with its byte. */
    uint8_t x[0x300];
    memcpy(x, b, n);
    x[1] = 'X';
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "t.elf: byte 0: not an ELF file");
    CHECK(etm_elf_parse(b, 40, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "the ELF header (52 bytes) is cut short");
    memcpy(x, b, n);
    x[4] = 2;
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(d.msg, "byte 4: ELF class 2, not 32-bit");
    memcpy(x, b, n);
    x[5] = 2;
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(d.msg, "byte 5: data encoding 2, not little-endian");
    memcpy(x, b, n);
    put16(x + 18, 62);
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(d.msg, "byte 18: machine 62, not ARM (40)");
    memcpy(x, b, n);
    put32(x + 28, 0x2F0); /* the program headers past the end */
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "byte 752: program header 0 lies past the end of the file (768 bytes)");
    memcpy(x, b, n);
    put32(x + 52 + 64 + 16, 0x200); /* the data segment's bytes past the end */
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "byte 116: segment 2 (512 bytes at file offset 512) runs past the end");
    memcpy(x, b, n);
    put32(x + 52, 4);
    put32(x + 52 + 64, 4); /* no PT_LOAD with contents left */
    CHECK(etm_elf_parse(x, n, "t.elf", seg, 8, &ns, NULL, &d) == ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "no loadable segment with contents");
    CHECK(etm_elf_parse(b, n, "t.elf", seg, 1, &ns, NULL, &d) == ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "more than 1 loadable segments");
}

static void test_load(void)
{
    uint8_t b[0x300];
    size_t n = make_elf(b);
    const char *elf = write_tmp("a.elf", b, n);
    const char *raw = write_tmp("a.bin", b + 0x100, 16);
    etm_image_t im;
    memset(&im, 0, sizeof im);
    etm_diag_t d;
    uint8_t r[4];

    /* The ELF at its virtual addresses: code where it runs, data too. */
    CHECK(etm_image_load_arg(&im, elf, &d) == ETM_OK);
    CHECK_EQ(im.n, 2);
    CHECK(etm_image_read(&im, 0x8002, r, 4) == 4 && r[0] == 0xA2 && r[3] == 0xA5);
    CHECK(etm_image_read(&im, 0x800E, r, 4) == 2 && r[1] == 0xAF); /* the segment ends */
    CHECK(etm_image_read(&im, 0x0, r, 4) == 0);                    /* not at its load address */
    CHECK(etm_image_read(&im, 0x20000004, r, 4) == 4 && r[0] == 0xD4);
    CHECK(etm_image_read(&im, 0x20000008, r, 4) == 0); /* memsz beyond filesz is not in the image */
    etm_image_free(&im);

    /* A raw binary at the address given; 0x may be written. */
    CHECK(etm_image_load_arg(&im, "", &d) != ETM_OK);
    char arg[600];
    snprintf(arg, sizeof arg, "0x400:%s", raw);
    CHECK(etm_image_load_arg(&im, arg, &d) == ETM_OK);
    CHECK(etm_image_read(&im, 0x401, r, 1) == 1 && r[0] == 0xA1);
    etm_image_free(&im);

    /* The refusals, with the reason. */
    CHECK(etm_image_load_arg(&im, raw, &d) == ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "not an ELF file; a raw binary needs the address it is loaded at: ADDR:");
    snprintf(arg, sizeof arg, "8000:%s", elf);
    CHECK(etm_image_load_arg(&im, arg, &d) == ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "an ELF file places itself by its program headers");
    snprintf(arg, sizeof arg, "12345678Z:%s", raw);
    CHECK(etm_image_load_arg(&im, arg, &d) == ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "is not a 32-bit hex address");
    snprintf(arg, sizeof arg, "100000000:%s", raw);
    CHECK(etm_image_load_arg(&im, arg, &d) == ETM_ERR_ARG);
    CHECK(etm_image_load_arg(&im, "/nonexistent/x.elf", &d) == ETM_ERR_IO);
    CHECK_STR_CONTAINS(d.msg, "cannot open the code image");
    CHECK_EQ(im.n, 0);
    unlink(elf);
    unlink(raw);
}

int main(void)
{
    test_parse();
    test_load();
    return test_report("test_image");
}
