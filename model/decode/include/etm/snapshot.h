/* etm/snapshot.h - what a decoder needs besides the trace: the code image
 * (memory regions loaded from files) and OpenCSD snapshot folders
 * (snapshot.ini, trace.ini and one .ini file per device: the trace buffer, the
 * register image of each ETM, the cores' memory dumps), as trc_pkt_lister and
 * `etm snapshot` read and write them.
 *
 *     etm_image_t im = {0};
 *     etm_config_t cfg;
 *     char trace[4096];
 *     int formatted;
 *     etm_snapshot_load(dir, 0x10, &cfg, &im, trace, sizeof trace, &formatted, &diag);
 *     etm_v3dec_set_image(dec, etm_image_read, &im);
 *     ...
 *     etm_image_free(&im);
 */
#ifndef ETM_SNAPSHOT_H
#define ETM_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"
#include "etm/regmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETM_IMAGE_MAX_REGIONS 32

typedef struct etm_mem_region {
    uint32_t addr;   /* address of bytes[0] */
    uint8_t *bytes;  /* malloc'ed */
    size_t size;
} etm_mem_region_t;

/* A code image: up to ETM_IMAGE_MAX_REGIONS regions; zero-initialise it. */
typedef struct etm_image {
    etm_mem_region_t r[ETM_IMAGE_MAX_REGIONS];
    unsigned n;
} etm_image_t;

/* Load the file at path as a region at addr (at most max_len bytes; 0: all).
 * Returns ETM_OK, ETM_ERR_IO, ETM_ERR_NOMEM or ETM_ERR_ARG (the image is full). */
etm_err_t etm_image_load(etm_image_t *im, uint32_t addr, const char *path, uint64_t max_len, etm_diag_t *diag);

/* The loadable segments (PT_LOAD with contents) of a 32-bit little-endian ARM
 * ELF file, each at the address the core runs it at (p_vaddr). Returns ETM_OK,
 * ETM_ERR_IO, ETM_ERR_NOMEM, ETM_ERR_SYNTAX (not ELF, or a header or segment
 * outside the file: diag names the byte), ETM_ERR_UNSUPPORTED (64-bit,
 * big-endian or not ARM) or ETM_ERR_ARG (more regions than the image holds). */
etm_err_t etm_image_load_elf(etm_image_t *im, const char *path, etm_diag_t *diag);

/* A code image as the tool's --image gives it: "FILE", an ELF file placed by
 * its program headers, or "ADDR:FILE" (ADDR in hex), a raw binary at ADDR.
 * A raw binary without an address and an ELF file with one are refused
 * (ETM_ERR_ARG), with the reason. */
etm_err_t etm_image_load_arg(etm_image_t *im, const char *arg, etm_diag_t *diag);

/* One loadable segment of an ELF file. */
typedef struct etm_elf_segment {
    uint32_t vaddr, paddr;   /* where it runs; where it is loaded */
    uint32_t offset, filesz; /* its bytes in the file */
    uint32_t memsz, flags;   /* p_memsz, p_flags (PF_X = 1: executable) */
} etm_elf_segment_t;

/* 1 when data starts with the ELF magic number. */
int etm_is_elf(const uint8_t *data, size_t size);

/* The PT_LOAD segments with contents of the ELF file in data (size bytes),
 * at most max into seg (*nseg of them), and its entry point (entry may be
 * NULL); name is for messages. Returns ETM_OK or the errors of
 * etm_image_load_elf. */
etm_err_t etm_elf_parse(const uint8_t *data, size_t size, const char *name, etm_elf_segment_t *seg, unsigned max,
                        unsigned *nseg, uint32_t *entry, etm_diag_t *diag);

/* Up to n bytes from addr, as etm_v3_read_fn and the ETMv1 decoder's windows
 * expect; returns how many (0 outside every region). */
int etm_image_read(void *image, uint32_t addr, uint8_t *buf, unsigned n);

/* Free the regions' bytes; the image is empty again. */
void etm_image_free(etm_image_t *im);

/* Read the snapshot folder dir: the register image of the ETMv3 device whose
 * ETMTRACEIDR is id (0: the folder's only ETMv3 device) goes to cfg (registers the model does not know, such as
 * ETMSR, are skipped), the trace buffer's file to trace_path, whether it holds
 * CoreSight formatter frames (any format but "source_data") to *formatted, and
 * every core's memory dump into image. Returns ETM_OK, ETM_ERR_IO (a file
 * cannot be read), ETM_ERR_SYNTAX (a register line is malformed; diag names the
 * file and line), ETM_ERR_UNKNOWN_NAME (no ETM with that trace ID, or no trace
 * buffer named), ETM_ERR_ARG (id 0 and several ETMs: diag lists their IDs),
 * ETM_ERR_NOMEM. Of several trace buffers, the first is read. */
etm_err_t etm_snapshot_load(const char *dir, unsigned id, etm_config_t *cfg, etm_image_t *image, char *trace_path,
                            size_t trace_path_size, int *formatted, etm_diag_t *diag);

/* The files an .ini names (devices, the trace buffer, memory dumps) stay
 * inside dir: an absolute path, a ".." or a symbolic link resolving outside is
 * ETM_ERR_IO naming the file and line. With this flag they are read anyway. */
#define ETM_SNAPSHOT_ALLOW_OUTSIDE 1u

/* etm_snapshot_load with flags (ETM_SNAPSHOT_*; etm_snapshot_load is 0). */
etm_err_t etm_snapshot_load_flags(const char *dir, unsigned id, unsigned flags, etm_config_t *cfg, etm_image_t *image,
                                  char *trace_path, size_t trace_path_size, int *formatted, etm_diag_t *diag);

#ifdef __cplusplus
}
#endif
#endif
