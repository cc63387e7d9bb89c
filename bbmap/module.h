/* One binary module (ELF executable, shared object, vmlinux, kernel module, kcore image,
 * perf-inject JIT ELF): its build-id, load segments, symbols, and, lazily and only where
 * asked, its disassembly cut into basic blocks (method.md §3) with per-instruction
 * attributes and source lines. Addresses are module virtual addresses (ELF p_vaddr space).
 * Knows nothing of perf.data.
 */
#ifndef BBMAP_MODULE_H
#define BBMAP_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbmap/insn_attr.h"

struct bbmap_module;	/* opaque */

enum bbmap_arch { BBMAP_ARCH_UNKNOWN, BBMAP_ARCH_X86_64, BBMAP_ARCH_X86_32, BBMAP_ARCH_AARCH64,
		  BBMAP_ARCH_ARM };

struct bbmap_symbol {
	uint64_t start, size;
	const char *name;		/* demangled where possible */
	bool from_eh_frame;		/* range from .eh_frame; name is "sub_<addr>" */
};

struct bbmap_insn {
	uint64_t addr;
	uint64_t target;		/* direct branch target when BBMAP_INSN_HAS_TARGET */
	const char *mnemonic;		/* lowercase, objdump's spelling ("vaddps", "jne",
					 * "lock cmpxchg", "rep stosq"); "(bad)" undecodable */
	const char *iclass;		/* XED's iclass ("VADDPS", "JNZ", "RET_NEAR",
					 * "REP_STOSQ", "ADD_LOCK"); "INVALID" undecodable */
	const char *operands;		/* operand text (x86: Intel syntax), for listings */
	const char *srcfile;		/* NULL when no line info */
	uint32_t line;
	uint16_t flags;			/* BBMAP_INSN_* */
	uint16_t width;			/* widest vector register operand in bits, 0 none */
	uint8_t len;			/* bytes */
	uint8_t isa;			/* enum bbmap_isa (x86: XED's ISA extension) */
	uint8_t isa_set;		/* enum bbmap_isa_set (x86: XED's ISA set) */
	uint8_t category;		/* enum bbmap_category (XED's categories) */
	uint8_t packing;		/* enum bbmap_packing */
	uint8_t elem;			/* enum bbmap_elem */
	uint8_t nr_ops;
	uint8_t op_kinds[4];		/* 'r' register, 'm' memory, 'i' immediate */
};

struct bbmap_block {
	uint64_t start, end;		/* [start, end) */
	uint32_t nr_insns;		/* the block's length in the method's sense */
	uint16_t end_flags;		/* the BBMAP_INSN_TRANSFER_MASK flags of its last
					 * instruction when that is a control transfer (only the
					 * last one can be), else 0 */
	bool may_be_bad;		/* may hold an undecodable unit (BBMAP_INSN_BAD): true
					 * when it does */
	const struct bbmap_insn *insns;	/* nr_insns entries (NULL from block_span) */
	const struct bbmap_symbol *sym;	/* NULL when no symbol covers it */
};

/* Opens an ELF file. debug_path, if not NULL, is a separate debug-info file for symbols
 * and lines (otherwise /usr/lib/debug/.build-id/xx/rest.debug, then .gnu_debuglink next to
 * the file, in its .debug/ and under /usr/lib/debug/<dir>, are tried; a debug file with
 * another build-id is ignored). -HBBP_ENOTFOUND: no such file; -HBBP_EFORMAT: not ELF or
 * corrupt (tables or segments outside the file). Behaviour worth knowing:
 *  - Code: executable sections; files without sections (kcore) use PF_X PT_LOAD segments.
 *  - Relocatable objects (.ko): addresses are file offsets (sections start at 0 in ELF);
 *    offset_to_vaddr is the identity there, and they have no source lines.
 *  - Symbols: STT_FUNC/IFUNC (and global NOTYPE) in executable sections of .symtab,
 *    .dynsym and the debug file; one name per address (the one perf shows); C++ names are
 *    demangled through libstdc++'s __cxa_demangle (dlopen'ed; mangled if unavailable).
 *  - Where no symbol covers an address, the .eh_frame FDE containing it becomes the
 *    function "sub_<hex start>" (from_eh_frame); with neither, up to 64 KiB around the
 *    address (from the previous symbol's end or the section start) are decoded.
 *  - x86 and x86-64 are decoded by Zydis (every extension through AVX-512, AMX and CET),
 *    AArch64 and ARM by capstone. Undecodable bytes become "(bad)" instructions of one unit
 *    (1 byte on x86, 4 on Arm, 2 in Thumb; BBMAP_INSN_BAD), counted in stats (nr_bad).
 * Not thread-safe: one module is used by one thread at a time.
 * flags: BBMAP_MODULE_*, 0 for none. BBMAP_MODULE_NO_LINES: no debug info is read for source
 * lines (srcfile stays NULL, has_lines is false); symbols still come from the debug file. */
#define BBMAP_MODULE_NO_LINES	1u
/* C++ symbol names: demangled in full by default ("f(unsigned int) const"),
 * BBMAP_MODULE_DEMANGLE_SHORT without the parameter list (as perf report shows them),
 * BBMAP_MODULE_NO_DEMANGLE as mangled in the file. */
#define BBMAP_MODULE_DEMANGLE_SHORT	2u
#define BBMAP_MODULE_NO_DEMANGLE	4u
/* BBMAP_MODULE_NO_OPERANDS: no operand text (operands ""): for a caller that lists no
 * instructions (the conversion), the decoding costs less time and memory. */
#define BBMAP_MODULE_NO_OPERANDS	8u
/* BBMAP_MODULE_LAZY_INSNS: x86 functions are first decoded only as far as the blocks need
 * (where instructions start, branches and their targets); a block's instructions are
 * decoded in full when block_at, blocks_from or insn_at first returns them. For a caller
 * that looks at few of the blocks it decodes (the conversion): the same blocks and
 * instructions in less memory. */
#define BBMAP_MODULE_LAZY_INSNS	16u
int bbmap_module__open_flags(struct bbmap_module **out, const char *path, const char *debug_path,
			     unsigned flags);
void bbmap_module__delete(struct bbmap_module *m);

enum bbmap_arch bbmap_module__arch(const struct bbmap_module *m);
/* Build-id from the NT_GNU_BUILD_ID note; returns its size, 0 when there is none. */
size_t bbmap_module__build_id(const struct bbmap_module *m, const uint8_t **id);
bool bbmap_module__has_symbols(const struct bbmap_module *m);
bool bbmap_module__has_lines(const struct bbmap_module *m);

/* The one place where the load bias is applied: file offset (as in mmap pgoff + addr -
 * start) to module vaddr through the PT_LOAD headers. -HBBP_ENOTFOUND if no segment. */
int bbmap_module__offset_to_vaddr(const struct bbmap_module *m, uint64_t off, uint64_t *vaddr);
/* The same, and the file offsets [*lo, *hi) around off that translate by the same amount
 * (vaddr - off): for a caller that resolves many addresses of one segment. */
int bbmap_module__offset_range(const struct bbmap_module *m, uint64_t off, uint64_t *vaddr,
			       uint64_t *lo, uint64_t *hi);
/* Its inverse: module vaddr to file offset (bytes in the file only). -HBBP_ENOTFOUND if in no
 * segment's file bytes. */
int bbmap_module__vaddr_to_offset(const struct bbmap_module *m, uint64_t vaddr, uint64_t *off);
/* Vaddr of the symbol name (for kernel relocation: "_text", "_stext"), or an error. Any
 * defined symbol of the symbol tables is found, aliases and data symbols included, by its
 * ELF (mangled) name; demangled names are found among the kept function symbols. */
int bbmap_module__symbol_addr(const struct bbmap_module *m, const char *name, uint64_t *addr);

const struct bbmap_symbol *bbmap_module__symbol_at(struct bbmap_module *m, uint64_t vaddr);

/* Adds a block leader (e.g. an LBR branch target) at vaddr. Blocks already built are split;
 * a function not decoded yet is decoded now. -HBBP_ENOTFOUND (and counted as misaligned)
 * when vaddr is not an instruction start of the decoded code or not in any code. */
int bbmap_module__add_leader(struct bbmap_module *m, uint64_t vaddr);

/* Sets the global state of the libraries modules use (libelf's version, capstone's
 * architecture tables, the name tables of Zydis's enums): call once before modules are used on several threads, each module
 * by one thread at a time. */
void bbmap_module__threads_init(void);

/* The block containing vaddr, disassembling the enclosing function (or code region) on first
 * use. -HBBP_ENOTFOUND when vaddr is in no executable section or not at an instruction
 * boundary of the decoded region. The pointer is valid until the next add_leader. */
int bbmap_module__block_at(struct bbmap_module *m, uint64_t vaddr,
			   const struct bbmap_block **blk);
/* The same block without its instructions: insns may be NULL (not yet decoded in full in
 * a BBMAP_MODULE_LAZY_INSNS module). For a caller that needs only the bounds, length,
 * symbol and end_flags (the attribution). */
int bbmap_module__block_span(struct bbmap_module *m, uint64_t vaddr,
			     const struct bbmap_block **blk);

/* Statistics for the summary: bytes disassembled, instructions decoded, decode failures. */
struct bbmap_module_stats {
	uint64_t bytes_decoded, nr_insns, nr_bad, nr_blocks, nr_regions;
	uint64_t nr_leaders;		/* leaders that split a block (add_leader, branch targets) */
	uint64_t nr_leaders_misaligned;	/* leaders not at an instruction start: ignored */
	uint64_t nr_fde_syms;		/* sub_<hex> pseudo symbols made from .eh_frame */
	uint64_t nr_windows;		/* regions decoded without a symbol or FDE range */
	uint64_t bytes_bad;		/* bytes in BBMAP_INSN_BAD instructions */
	uint64_t bytes_cut;		/* of bytes_bad: the start of an instruction cut off by
					 * the end of its function or region (padding or data
					 * before the next function), not an unknown opcode */
};
void bbmap_module__stats(const struct bbmap_module *m, struct bbmap_module_stats *st);

/* --- Extensions --- */

/* The text of the instruction starting at vaddr, as listings show it: "mnemonic operands"
 * (x86: Intel syntax, as `objdump -d -M intel` with Zydis's spelling of operands), decoding
 * its function on demand; "(bad)" for an undecodable byte. -HBBP_ENOTFOUND when vaddr is no
 * instruction start of the decoded code. Truncated to n - 1 bytes. */
int bbmap_module__insn_text(struct bbmap_module *m, uint64_t vaddr, char *buf, size_t n);
/* The instruction starting at vaddr (decoding its function on demand), or -HBBP_ENOTFOUND.
 * Valid until the next add_leader. */
int bbmap_module__insn_at(struct bbmap_module *m, uint64_t vaddr, const struct bbmap_insn **in);

/* The module's code: executable sections (PF_X segments for files without sections), as
 * [start, end) ranges of bytes present in the file, sorted by start. */
size_t bbmap_module__nr_code_ranges(const struct bbmap_module *m);
int bbmap_module__code_range(const struct bbmap_module *m, size_t idx, uint64_t *start,
			     uint64_t *end);
/* The blocks of the decoded function (or region) holding vaddr, from the block containing
 * vaddr to the region's end, decoding on demand: a listing walks *n blocks without a lookup
 * each. Same errors and pointer validity as block_at. */
int bbmap_module__blocks_from(struct bbmap_module *m, uint64_t vaddr,
			      const struct bbmap_block **blks, size_t *n);
/* Frees the decoded regions (instructions, blocks, leaders added) but the last one: for
 * walking a whole binary in address order in bounded memory. The last region is kept because
 * the next region starts where it ends (a region never overlaps a decoded one): the walk
 * decodes the same with or without forgetting. Pointers from block_at/insn_at into the freed
 * regions become invalid; statistics stay. */
void bbmap_module__forget_code(struct bbmap_module *m);
/* Frees every decoded region (instructions, blocks, the leaders added) and the decoder's
 * scratch: for a caller that reads no block again. A block asked for afterwards is decoded
 * again without the leaders added before, so its bounds may differ; statistics stay. */
void bbmap_module__drop_code(struct bbmap_module *m);

/* BBMAP_MODULE_LAZY_INSNS: frees the instructions of every block decoded in full so far
 * (decoded again when asked for): for a caller that walks many blocks once each. Every
 * insns pointer from block_at, blocks_from and insn_at becomes invalid. */
void bbmap_module__drop_insns(struct bbmap_module *m);

/* Hands the memory pages of the file's bytes back to the kernel (they are read from the file
 * again if touched): for a caller done decoding, before it builds its results. Decoded
 * blocks and instructions stay. */
void bbmap_module__drop_pages(struct bbmap_module *m);

/* Symbols sorted by start (aliases removed: one name per address; zero-size symbols
 * extend to the next symbol). Names are demangled on access. Pseudo symbols from
 * .eh_frame are not listed here (symbol_at makes them when asked). */
size_t bbmap_module__nr_symbols(const struct bbmap_module *m);
const struct bbmap_symbol *bbmap_module__symbol(struct bbmap_module *m, size_t idx);

#endif
