/* AVX-512 (EVEX, masking, zeroing, zmm16-31, embedded broadcast, mask registers), AVX512-VNNI,
 * AVX-VNNI and AMX instructions for tests/cli/disasm_avx512.sh. Never executed: the test only
 * decodes it (hbbp-convert disasm) and converts a synthetic recording over it. One block from
 * kernel to its ret: 14 instructions. Build: cc -nostdlib -static -Wl,--build-id.
 */
	.intel_syntax noprefix
	.text
	.globl	_start
	.type	_start, @function
_start:
	vaddps	zmm1{k1}{z}, zmm2, zmm3
	vaddps	zmm17, zmm18, DWORD PTR [rax]{1to16}
	vmovdqu64	ZMMWORD PTR [rdi]{k2}, zmm30
	vpcmpub	k1, zmm16, zmm17, 4
	kmovd	k1, eax
	vpdpbusd	zmm0, zmm1, zmm2
	vpdpbusd	ymm20, ymm21, YMMWORD PTR [rax]
	{vex} vpdpbusd	ymm0, ymm1, ymm2
	ldtilecfg	[rdi]
	tileloadd	tmm1, [rsi+rdx*1]
	tdpbssd	tmm0, tmm1, tmm2
	tilestored	[rdi+rdx*1], tmm0
	tilerelease
	ret
	.size	_start, .-_start
