/* Length of an x86 instruction that capstone 4 cannot decode (newer extensions: CET
 * shadow-stack ops such as rdsspq, some EVEX forms). Only the two- and three-byte opcode
 * maps and VEX/EVEX encodings are handled, since everything older is known to capstone;
 * anything else returns 0 and the caller falls back to a 1-byte BAD instruction.
 * Pure function of the bytes; knows nothing of modules or capstone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbmap/module_priv.h"

/* Length of ModRM + SIB + displacement starting at p[0] (32/64-bit addressing). */
static size_t modrm_len(const uint8_t *p, size_t n)
{
	uint8_t mod, rm;
	size_t len = 1;

	if (n < 1)
		return 0;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len <= n ? len : 0;
}

/* map 1 = 0F, 2 = 0F38, 3 = 0F3A */
static bool has_imm8(int map, uint8_t op)
{
	if (map == 3)
		return true;
	if (map != 1)
		return false;
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba ||
	       op == 0xc2 || (op >= 0xc4 && op <= 0xc6);
}

static bool no_modrm_map1(uint8_t op)
{
	return op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 || op == 0x09 ||
	       op == 0x0b || op == 0x30 || op == 0x31 || op == 0x32 || op == 0x33 ||
	       op == 0x34 || op == 0x35 || op == 0x37 || op == 0x77 || op == 0xa0 ||
	       op == 0xa1 || op == 0xa2 || op == 0xa8 || op == 0xa9 || op == 0xaa ||
	       (op >= 0x80 && op <= 0x8f) || (op >= 0xc8 && op <= 0xcf);
}

size_t mod_x86__length(const uint8_t *p, size_t n, bool mode64)
{
	size_t i = 0, ml;
	int map;
	uint8_t op;

	/* Legacy prefixes, then REX. */
	while (i < n && i < 14 && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 || p[i] == 0xf3 ||
				   p[i] == 0xf0 || p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 ||
				   p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65))
		i++;
	if (mode64 && i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= n)
		return 0;
	if (p[i] == 0x0f) {
		if (++i >= n)
			return 0;
		if (p[i] == 0x38 || p[i] == 0x3a) {
			map = p[i] == 0x38 ? 2 : 3;
			i++;
		} else {
			map = 1;
		}
		if (i >= n)
			return 0;
		op = p[i++];
		if (map == 1 && no_modrm_map1(op))
			return 0;	/* capstone knows these; not our case */
	} else if ((p[i] == 0xc4 || p[i] == 0xc5 || p[i] == 0x62) && i + 1 < n &&
		   (mode64 || (p[i + 1] & 0xc0) == 0xc0)) {
		uint8_t esc = p[i];

		if (esc == 0xc5) {
			map = 1;
			i += 2;
		} else if (esc == 0xc4) {
			if (i + 2 >= n)
				return 0;
			map = p[i + 1] & 0x1f;
			i += 3;
		} else {
			if (i + 3 >= n)
				return 0;
			map = p[i + 1] & 0x07;
			i += 4;
		}
		if (map < 1 || map > 3 || i >= n)
			return 0;
		op = p[i++];
	} else {
		return 0;
	}
	ml = modrm_len(p + i, n - i);
	if (!ml)
		return 0;
	i += ml;
	if (has_imm8(map, op))
		i++;
	return i <= n && i <= 15 ? i : 0;
}
