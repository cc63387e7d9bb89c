/* Internals shared by the files that implement bbmap/module.h: the module object, its ELF
 * view (elf_load.c), lazy disassembly (disasm_region.c: x86 through disasm_zydis.c, Arm
 * through disasm_capstone.c), instruction classification (insn_attr.c), source lines
 * (srcline.c) and C++ demangling (demangle.c). Not a public
 * interface: nothing outside bbmap/module*.c, elf_*.c, disasm_*.c, insn_attr.c, srcline.c
 * and demangle.c includes it. Knows nothing of perf.data.
 */
#ifndef BBMAP_MODULE_PRIV_H
#define BBMAP_MODULE_PRIV_H

#include <Zydis/Zydis.h>
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stddef.h>

#include "bbmap/module.h"
#include "util/hmap.h"

/* A contiguous range of code bytes present in the file. */
struct mod_code_range {
	uint64_t vaddr, size, file_off;
};

struct mod_fde {
	uint64_t start, end;
	uint64_t max_end;		/* the largest end of this and every earlier FDE */
};

struct mod_load_seg {
	uint64_t vaddr, offset, filesz, memsz;
};

/* Memory for the instructions of a lazy region's blocks, freed with the region. */
struct mod_chunk {
	struct mod_chunk *next;
	size_t used, cap;			/* bytes of data */
	max_align_t data[];
};

/* A decoded region: one function (or window), its instructions and blocks. A lazy region
 * (BBMAP_MODULE_LAZY_INSNS, x86) keeps only where each instruction starts (offs): a
 * block's instructions are decoded in full when the block is first asked for, so that
 * the instructions of blocks nobody asks for take 4 bytes each. */
struct mod_region {
	uint64_t start, end;
	uint64_t soft_end_max;			/* end is a cut at no known boundary: the
						 * last instruction may run on up to here
						 * (0: end is a boundary) */
	struct bbmap_insn *insns;		/* NULL in a lazy region */
	uint32_t *offs;				/* lazy: each instruction's start - start */
	uint32_t nr_insns;
	struct bbmap_block *blocks;		/* lazy: insns NULL until filled */
	uint32_t nr_blocks;
	size_t alloc_blocks;
	char *text;				/* operand strings of insns */
	struct mod_chunk *chunks;		/* lazy: the filled blocks' instructions */
};

/* What decoding a module's code changes, apart from the module, which it only reads: the
 * decoders' state, the scratch every region is decoded into, the strings it interns, the
 * counters of what it decoded. The functions that decode take the module (const) and its
 * decoder (m->dec). */
struct mod_decoder {
	struct hmap *strs;		/* its module's interned strings (mnemonics, iclasses,
					 * file names): bytes -> their one stable copy */
	ZydisDecoder zy_dec;		/* x86: one decoder for the module's mode */
	bool zy_open;
	csh cs[2];			/* Arm: [1] for Thumb */
	bool cs_open[2];
	cs_insn *csi[2];
	const char *bad_mn;		/* "(bad)" interned, once asked for */
	struct bbmap_insn *scr_insns;	/* decoding scratch, reused by every region */
	size_t scr_cap;
	char *scr_text;
	size_t scr_text_cap;
	struct bbmap_module_stats stats;	/* what it decoded (bytes, instructions, bad,
						 * blocks cut) and the module's regions,
						 * leaders, windows */
};

/* The module: its file, symbols and code, its decoded regions, its decoder. */
struct bbmap_module {
	char *path;
	char *debug_file;		/* separate debug info actually used, or NULL */
	int fd, dbg_fd;
	Elf *elf, *dbg_elf;
	const uint8_t *image;		/* whole file: own_map, else elf_rawfile */
	void *own_map;			/* a read-only private map of the file, or NULL */
	size_t image_size;
	GElf_Half e_type, e_machine;
	enum bbmap_arch arch;
	uint8_t build_id[64];
	size_t build_id_size;

	struct mod_load_seg *segs;
	size_t nr_segs;
	struct mod_code_range *code;
	size_t nr_code;

	struct bbmap_symbol *syms;	/* sorted by start, deduplicated */
	uint8_t *sym_state;		/* bit 0: demangle tried, bit 1: name owned, 2: thumb */
	size_t nr_syms;
	struct bbmap_symbol **fde_syms;	/* pseudo symbols from .eh_frame, sorted */
	size_t nr_fde_syms, alloc_fde_syms;
	Dwarf_CFI *cfi;			/* .eh_frame of the main file, may be NULL */
	struct mod_fde *fdes;		/* FDE ranges from .eh_frame_hdr, sorted (elf_fde.c) */
	size_t nr_fdes;
	int fde_state;			/* 0 not read, 1 table, 2 none: libdw's rows */

	Dwarf *dwarf;			/* NULL: no line info */

	struct mod_region **regions;	/* sorted by start, disjoint */
	size_t nr_regions, alloc_regions;

	bool zy_only;			/* the outline without x86_fast.c (its test) */

	void *demangler;		/* dlopen handle of libstdc++, or NULL */
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
	unsigned demangle_flags;	/* BBMAP_MODULE_DEMANGLE_SHORT / _NO_DEMANGLE */
	bool no_operands;		/* BBMAP_MODULE_NO_OPERANDS */
	bool lazy_insns;		/* BBMAP_MODULE_LAZY_INSNS */

	struct hmap strs;		/* interned strings (see struct mod_decoder) */
	struct mod_decoder dec;
};

/* Sets up m's strings and its decoder; __exit frees them. */
void mod_module__init(struct bbmap_module *m);
void mod_module__exit(struct bbmap_module *m);
/* Closes d's decoders and frees its scratch. */
void mod_decoder__exit(struct mod_decoder *d);
/* Frees d's scratch (made again when it next decodes). */
void mod_decoder__drop_scratch(struct mod_decoder *d);

/* elf_plt.c: "<name>@plt" pseudo symbols for PLT stubs (entries: malloc'd, names interned). */
struct mod_plt_entry {
	uint64_t addr, size;
	const char *name;
};
struct mod_plt {
	struct mod_plt_entry *e;
	size_t nr, cap;
};
void mod_elf__plt(struct bbmap_module *m, struct mod_plt *p);

/* elf_load.c */
int mod_elf__load(struct bbmap_module *m, const char *debug_path);
void mod_elf__unload(struct bbmap_module *m);
int mod_elf__symbol_addr(const struct bbmap_module *m, const char *name, uint64_t *addr);
const struct mod_code_range *mod_elf__code_range(const struct bbmap_module *m, uint64_t vaddr);
/* The section of that name in the main file, *sh its header: NULL when there is none, or
 * when it is NOBITS or does not lie inside the file. */
Elf_Scn *mod_elf__section(const struct bbmap_module *m, const char *name, GElf_Shdr *sh);

/* elf_fde.c: [start, end) of the FDE holding vaddr; -ENOENT none; -EOPNOTSUPP when the
 * file has no .eh_frame_hdr table in the usual encodings (use libdw's rows then). */
int mod_elf__fde_range(struct bbmap_module *m, uint64_t vaddr, uint64_t *start, uint64_t *end);
/* Narrows [*s, *e) around vaddr (in no FDE) to the gap between the FDEs before and after. */
void mod_elf__fde_gap(struct bbmap_module *m, uint64_t vaddr, uint64_t *s, uint64_t *e);

struct mod_text_buf {
	char *p;
	size_t len, cap;
};

/* disasm_region.c: decodes [start, end) into r->insns (x86 through Zydis, Arm through
 * capstone), into the module's scratch buffers, then keeps exact copies. */
int mod_disasm__region(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r);
/* The same into the decoder's scratch buffers only (d->scr_insns, r->nr_insns; operand
 * offsets into *text, which is the decoder's scratch text). With text NULL, where
 * can_outline (x86), the region's outline: the instructions' addr, len, flags
 * (BBMAP_INSN_BRANCH, _HAS_TARGET, _BAD ...) and target, the other fields unset; the same
 * starts and counters. */
int mod_disasm__scratch(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
			struct mod_text_buf *text);
bool mod_disasm__can_outline(const struct bbmap_module *m);
/* Appends s and returns its offset, or (size_t)-1 on allocation failure. */
size_t mod_text__add(struct mod_text_buf *t, const char *s);
/* Room for at least need scratch instructions (util/grow.h): 0 or -ENOMEM. */
int mod_disasm__grow(struct mod_decoder *d, size_t need);

/* disasm_zydis.c: x86. __init fills the process-wide name tables once and returns how many
 * of Zydis's ISA extension, ISA set and category names insn_attr.h lacks (0 expected). */
unsigned mod_zydis__init(void);
int mod_zydis__open(const struct bbmap_module *m, struct mod_decoder *d);
/* __region with text NULL decodes the outline (see mod_disasm__scratch). */
int mod_zydis__region(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
		      const uint8_t *code, struct mod_text_buf *text);
int mod_zydis__attrs(const struct bbmap_module *m, struct mod_decoder *d,
		     const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
		     uint64_t addr, struct bbmap_insn *in);

/* disasm_capstone.c: Arm. */
int mod_capstone__region(const struct bbmap_module *m, struct mod_decoder *d,
			 struct mod_region *r, const uint8_t *code, struct mod_text_buf *text);
void mod_capstone__close(struct mod_decoder *d);

/* insn_attr.c: fills every attribute of out from a capstone Arm instruction with detail;
 * writes the iclass name into iclass (NUL-terminated). */
void insn_attr__arm64(csh h, const cs_insn *ci, struct bbmap_insn *out, char *iclass, size_t n);
void insn_attr__arm(csh h, const cs_insn *ci, struct bbmap_insn *out, char *iclass, size_t n);

/* srcline.c */
int mod_srcline__open(struct bbmap_module *m);
/* Sets the source file and line of n instructions (their file names interned through d,
 * a decoder of the calling thread). */
void mod_srcline__fill(const struct bbmap_module *m, struct mod_decoder *d,
		       struct bbmap_insn *insns, uint32_t n);

/* demangle.c: returns a malloc'd demangled name or NULL. */
void mod_demangle__init(struct bbmap_module *m);
void mod_demangle__exit(struct bbmap_module *m);
char *mod_demangle(struct bbmap_module *m, const char *name);

/* module.c */
/* A copy of s kept as long as the module, the same pointer for equal strings; NULL when
 * out of memory. */
const char *mod_str__intern(struct mod_decoder *d, const char *s);

#endif
