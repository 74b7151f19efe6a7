/* etm/dataslot.h - the ARM11-style data slot interface (ARM1176 TRM section
 * 15.1, tables 15-5 and 15-7): from the memory view of a transfer that the core
 * presents on ETMDD to the register view that the trace carries.
 *
 * docs/data-trace.md gives the semantics of every field and the worked examples
 * the unit tests check. In short, for one transfer:
 *
 *   1. the 32-bit word of ETMDD that holds the selected byte lanes (lanes 0-3:
 *      ETMDD[31:0], lanes 4-7: ETMDD[63:32]);
 *   2. byte-reversed when DASwizzle is 1 (big-endian data);
 *   3. rotated right by DARot bytes;
 *   4. the low n bytes kept, n being the number of lanes DABLSel selects.
 *
 * The two halves of an unaligned access give one register value: the first
 * half's bytes are the low-address ones, the low-order bytes of the register
 * when little-endian, the high-order ones when big-endian.
 */
#ifndef ETM_DATASLOT_H
#define ETM_DATASLOT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of byte lanes DABLSel selects (0 to 8). */
unsigned etm_dslot_lanes(uint32_t dactl);

/* The DARot a transfer of n bytes at address da must carry so that step 3
 * brings its bytes to the bottom of the register: little-endian da[1:0];
 * big-endian (swizzle) (4 - da[1:0] - n) mod 4. */
unsigned etm_dslot_rotation(uint32_t da, unsigned n, int swizzle);

/* Register view of a transfer: ETMDACTL (its DABLSel, DARot, DASwizzle) and the
 * ETMDD value that came for it. 0 when no lane is selected. */
uint32_t etm_dslot_register_view(uint32_t dactl, uint64_t dd);

/* Register view of an unaligned access from its two halves. The second half's
 * DARot and DASwizzle are not valid (table 15-5): the swizzle is the first
 * half's, and the rotation the one that brings the second half's bytes, which
 * start at a word boundary, to the bottom. */
uint32_t etm_dslot_register_view2(uint32_t dactl1, uint64_t dd1, uint32_t dactl2, uint64_t dd2);

#ifdef __cplusplus
}
#endif
#endif
