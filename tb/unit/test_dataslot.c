/* test_dataslot.c - memory view to register view (etm/dataslot.h) on the worked
 * examples of docs/data-trace.md. Every expected value is derived by hand from
 * the bytes in memory: little-endian, the byte at the lowest address is the
 * least significant; big-endian (DASwizzle), the most significant. Lanes that
 * the access does not select carry other bytes, which must not leak in. */
#include "etm/etm.h"
#include "etm/dataslot.h"
#include "test.h"

/* ETMDACTL from the fields that matter here (slot 1, a load). */
static uint32_t ctl(unsigned lanes, unsigned rot, unsigned swz, unsigned unaligned)
{
    return 1u | (lanes & 0xFFu) << 3 | unaligned << 11 | (rot & 3u) << 12 | swz << 14 | 1u << 16 | 1u << 17;
}

static void test_lanes_and_rotation(void)
{
    CHECK_EQ(etm_dslot_lanes(ctl(0x00, 0, 0, 0)), 0);
    CHECK_EQ(etm_dslot_lanes(ctl(0x0F, 0, 0, 0)), 4);
    CHECK_EQ(etm_dslot_lanes(ctl(0x40, 0, 0, 0)), 1);
    CHECK_EQ(etm_dslot_lanes(ctl(0xFF, 0, 0, 0)), 8);
    /* Little-endian: the byte offset in the word. */
    CHECK_EQ(etm_dslot_rotation(0x20001000, 4, 0), 0);
    CHECK_EQ(etm_dslot_rotation(0x20001002, 2, 0), 2);
    CHECK_EQ(etm_dslot_rotation(0x20001007, 1, 0), 3);
    /* Big-endian: after the byte reversal the access's last byte is at lane 0's
     * place minus the offset; the rotation brings it to bits [7:0]. */
    CHECK_EQ(etm_dslot_rotation(0x20001000, 4, 1), 0);
    CHECK_EQ(etm_dslot_rotation(0x20001002, 2, 1), 0);
    CHECK_EQ(etm_dslot_rotation(0x20001000, 2, 1), 2);
    CHECK_EQ(etm_dslot_rotation(0x20001001, 1, 1), 2);
    CHECK_EQ(etm_dslot_rotation(0x20001003, 1, 1), 0);
    CHECK_EQ(etm_dslot_rotation(0x20001003, 1, 0), 3);
}

static void test_little_endian(void)
{
    /* 1. LDR word at 0x20001000: memory 11 22 33 44 at 0x1000..0x1003, the
     * other word of the doubleword holds AA. Register 0x44332211. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x0F, 0, 0, 0), 0xAAAAAAAA44332211ull), 0x44332211);
    /* 2. The same word at 0x20001004: lanes 4-7, ETMDD[63:32]. */
    CHECK_EQ(etm_dslot_register_view(ctl(0xF0, 0, 0, 0), 0x44332211AAAAAAAAull), 0x44332211);
    /* 3. LDRH at 0x20001002: memory EF at 0x1002, BE at 0x1003; lanes 2-3;
     * the word is BE EF 77 88 (lane 3 first): rotate right 2 bytes -> 77 88 BE EF. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x0C, 2, 0, 0), 0x12345678BEEF7788ull), 0xBEEF);
    /* 4. LDRB at 0x20001006: lane 6 = 5A; the upper word is EE 5A DD CC,
     * rotated right 2 bytes: DD CC EE 5A. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x40, 2, 0, 0), 0xEE5ADDCCBBAA9988ull), 0x5A);
    /* 5. LDRB at 0x20001003 (lane 3 = 0x80, rotate 3). Loads are traced before
     * sign extension (IHI 0014 4.9.2): 0x80, not 0xFFFFFF80. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x08, 3, 0, 0), 0x0000000080FFFFFFull), 0x80);
    /* No lane: nothing. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x00, 0, 0, 0), 0xFFFFFFFFFFFFFFFFull), 0);
}

static void test_big_endian(void)
{
    /* 6. LDR word at 0x20001000, memory 12 34 56 78: register 0x12345678. Lane 0
     * holds 12, so the word reads 0x78563412; reversed: 0x12345678. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x0F, 0, 1, 0), 0xFFFFFFFF78563412ull), 0x12345678);
    /* 7. LDRH at 0x20001002, memory AB CD: register 0xABCD. Word CD AB 11 22
     * (lane 3 first) = 0xCDAB1122, reversed 0x2211ABCD, rotation 0. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x0C, 0, 1, 0), 0x00000000CDAB1122ull), 0xABCD);
    /* 8. LDRH at 0x20001000, memory AB CD: word 0x3344CDAB, reversed 0xABCD4433,
     * rotated right 2 bytes: 0x4433ABCD. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x03, 2, 1, 0), 0x000000003344CDABull), 0xABCD);
    /* 9. LDRB at 0x20001001, memory 99: word 0x44339922, reversed 0x22993344,
     * rotated right 2 bytes: 0x33442299. */
    CHECK_EQ(etm_dslot_register_view(ctl(0x02, 2, 1, 0), 0x0000000044339922ull), 0x99);
    /* 10. STR word at 0x20001004 (upper word), memory 0A 0B 0C 0D. */
    CHECK_EQ(etm_dslot_register_view(ctl(0xF0, 0, 1, 0), 0x0D0C0B0A00000000ull), 0x0A0B0C0D);
}

static void test_unaligned(void)
{
    /* 11. Little-endian LDR at 0x20001001, memory 11 22 33 | 44 at
     * 0x1001..0x1004: register 0x44332211. First half lanes 1-3 (word
     * 0x33221199, rotate 1 -> 0x99332211, 3 bytes 0x332211); second half lane 4
     * (upper word 0x77665544, 1 byte 0x44). */
    uint32_t c1 = ctl(0x0E, 1, 0, 1), c2 = ctl(0x10, 0, 0, 0) & ~(1u << 17);
    CHECK_EQ(etm_dslot_register_view2(c1, 0x0000000033221199ull, c2, 0x7766554400000000ull), 0x44332211);
    /* 12. Little-endian LDR at 0x20001003, memory 01 | 02 03 04 at
     * 0x1003..0x1006: register 0x04030201. */
    c1 = ctl(0x08, 3, 0, 1);
    c2 = ctl(0x70, 0, 0, 0);
    CHECK_EQ(etm_dslot_register_view2(c1, 0x01EEEEEEull, c2, 0xFF04030200000000ull), 0x04030201);
    /* 13. Big-endian LDR at 0x20001003, memory A1 | B2 C3 D4: register
     * 0xA1B2C3D4. First half: lane 3 = A1, word 0xA1112233, reversed
     * 0x332211A1, rotation 0, 1 byte: A1 (the most significant). Second half:
     * lanes 4-6, upper word EE D4 C3 B2, reversed 0xB2C3D4EE, rotated right 1
     * byte: 0xEEB2C3D4, 3 bytes: B2C3D4. The second half's own DARot and
     * DASwizzle fields are not valid and are ignored (here they say 3 and 0). */
    c1 = ctl(0x08, 0, 1, 1);
    c2 = ctl(0x70, 3, 0, 0);
    CHECK_EQ(etm_dslot_register_view2(c1, 0x00000000A1112233ull, c2, 0xEED4C3B200000000ull), 0xA1B2C3D4);
    /* 14. Big-endian LDR at 0x20001006, memory 01 02 | 03 04: register
     * 0x01020304. First half lanes 6-7 (upper word 0x0201EEEE, reversed
     * 0xEEEE0102, rotation (4-2-2)=0: 0x0102), second half lanes 0-1 of the next
     * doubleword (word 0xEEEE0403, reversed 0x0304EEEE, rotated right 2 bytes:
     * 0xEEEE0304). */
    c1 = ctl(0xC0, 0, 1, 1);
    c2 = ctl(0x03, 0, 0, 0);
    CHECK_EQ(etm_dslot_register_view2(c1, 0x0201EEEE00000000ull, c2, 0xEEEE0403ull), 0x01020304);
    /* 15. Little-endian unaligned halfword at 0x20001007: memory 5A | A5, lane
     * 7 then lane 0 of the next doubleword: register 0xA55A. */
    c1 = ctl(0x80, 3, 0, 1);
    c2 = ctl(0x01, 0, 0, 0);
    CHECK_EQ(etm_dslot_register_view2(c1, 0x5A00000000000000ull, c2, 0x00000000000000A5ull), 0xA55A);
    /* Two whole words are not a pair: the first is returned. */
    CHECK_EQ(etm_dslot_register_view2(ctl(0x0F, 0, 0, 0), 0x12345678ull, ctl(0xF0, 0, 0, 0), 0), 0x12345678);
}

int main(void)
{
    test_lanes_and_rotation();
    test_little_endian();
    test_big_endian();
    test_unaligned();
    return test_report("test_dataslot");
}
