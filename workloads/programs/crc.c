/* crc.c - CRC-32 (IEEE 802.3, reflected) bit by bit and with a 256-entry table
 * built at run time, and CRC-16/CCITT-FALSE with a table; checked against the
 * standard check values of "123456789" and against each other on a 1 KiB buffer. */
#include "workload.h"

static uint32_t t32[256];
static uint16_t t16[256];
static uint8_t buf[1024];

static uint32_t crc32_bits(const uint8_t *p, unsigned n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}

static uint32_t crc32_table(const uint8_t *p, unsigned n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--)
        c = t32[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

static uint16_t crc16_table(const uint8_t *p, unsigned n)
{
    uint16_t c = 0xFFFF;
    while (n--)
        c = (uint16_t)(t16[((c >> 8) ^ *p++) & 0xFF] ^ (c << 8));
    return c;
}

int wl_crc(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        t32[i] = c;
        uint16_t d = (uint16_t)(i << 8);
        for (int k = 0; k < 8; k++)
            d = (uint16_t)((d & 0x8000) ? (d << 1) ^ 0x1021 : d << 1);
        t16[i] = d;
    }
    static const uint8_t check[9] = { '1', '2', '3', '4', '5', '6', '7', '8', '9' };
    if (crc32_bits(check, 9) != 0xCBF43926u || crc32_table(check, 9) != 0xCBF43926u)
        return 1;
    if (crc16_table(check, 9) != 0x29B1)
        return 1;
    uint32_t seed = 0xC0FFEEu;
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)wl_rand(&seed);
    uint32_t x = crc32_bits(buf, sizeof buf);
    for (int r = 0; r < 4; r++)
        if (crc32_table(buf, sizeof buf) != x)
            return 1;
    uint16_t y = crc16_table(buf, sizeof buf);
    WL_OPAQUE(y);
    return 0;
}
