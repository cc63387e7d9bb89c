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
#include <pthread.h>
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

#define BBMAP_MAX_THREADS	16	/* threads decoding one module (module_threads.c) */

struct mod_zydis_cache;

/* What a module's decoders share and change, each under its rule: the interned strings
 * (mnemonics, iclasses, file names: one stable copy each, bytes -> copy; a worker adds
 * under lock) and the bytes decoded in full (added atomically: past a threshold each
 * decoder keeps a decode cache, disasm_zydis.c). */
struct mod_shared {
	struct hmap strs;
	pthread_mutex_t lock;
	uint64_t decoded;
};

/* What one thread needs to decode a module's code, and nothing another thread reads: the
 * decoders' state, the scratch every region is decoded into, the x86 decode cache, the
 * counters of what it decoded. A module has its own (dec) for the calling thread;
 * module_threads.c gives each of its workers one of the module's `workers`, kept between
 * runs (their caches stay warm). The functions that decode take the module (read only)
 * and the decoder. */
struct mod_decoder {
	struct mod_shared *sh;		/* its module's */
	bool worker;			/* on a worker thread: interns under sh->lock, fills no
					 * source lines (libdw is used by one thread) */
	ZydisDecoder zy_dec;		/* x86: one decoder for the module's mode */
	bool zy_open;
	csh cs, cs_thumb;		/* Arm */
	bool cs_open, cs_thumb_open;
	cs_insn *csi, *csi_thumb;
	const char *bad_mn;		/* "(bad)" interned, once asked for */
	struct bbmap_insn *scr_insns;	/* decoding scratch, reused by every region */
	size_t scr_cap;
	char *scr_text;
	size_t scr_text_cap;
	/* x86-64 without operand text: the instructions decoded before, by their bytes
	 * (disasm_zydis.c), once the module has decoded bytes enough; NULL before */
	struct mod_zydis_cache *zc;
	struct bbmap_module_stats stats;	/* what it decoded (bytes, instructions, bad,
						 * blocks cut) */
};

/* The module: its file, symbols and code (read only while workers decode it), its
 * decoded regions (changed by the calling thread only), its decoders. */
struct bbmap_module {
	int refcnt;
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
	/* the region and block found last (locate): lookups of nearby addresses start there;
	 * valid while layout_gen, which counts the changes of regions and blocks, is hint_gen */
	struct mod_region *hint_r;
	size_t hint_bi;
	uint64_t layout_gen, hint_gen;

	bool zy_only;			/* the outline without x86_fast.c (its test) */
	bool zc_off;			/* no decode cache (its test) */

	void *demangler;		/* dlopen handle of libstdc++, or NULL */
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
	unsigned demangle_flags;	/* BBMAP_MODULE_DEMANGLE_SHORT / _NO_DEMANGLE */
	bool no_operands;		/* BBMAP_MODULE_NO_OPERANDS */
	bool lazy_insns;		/* BBMAP_MODULE_LAZY_INSNS */

	struct mod_shared shared;
	struct mod_decoder dec;		/* the calling thread's */
	struct mod_decoder *workers;	/* BBMAP_MAX_THREADS, made at the first threaded run */
	struct bbmap_module_stats stats;	/* regions, leaders, windows; the decoders' apart */
};

/* Sets up m's shared part and its own decoder (0 or -ENOMEM); __exit frees them and the
 * workers' decoders. */
int mod_module__init(struct bbmap_module *m);
void mod_module__exit(struct bbmap_module *m);
/* A decoder of m: a worker's, or the module's own. */
void mod_decoder__init(struct mod_decoder *d, struct bbmap_module *m, bool worker);
void mod_decoder__exit(struct mod_decoder *d);
/* Frees d's scratch (made again when it next decodes). */
void mod_decoder__drop_scratch(struct mod_decoder *d);
/* a += b */
void mod_stats__add(struct bbmap_module_stats *a, const struct bbmap_module_stats *b);

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
 * offsets into *text, which is the decoder's scratch text). */
int mod_disasm__scratch(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
			struct mod_text_buf *text);
/* Whether the region can be decoded lazily (x86), and its outline: the instructions'
 * addr, len, flags (BBMAP_INSN_BRANCH, _HAS_TARGET, _BAD ...) and target into the
 * scratch instructions, the other fields unset; the same starts and counters as
 * mod_disasm__region. */
bool mod_disasm__can_outline(const struct bbmap_module *m);
int mod_disasm__outline(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r);
/* Appends s and returns its offset, or (size_t)-1 on allocation failure. */
size_t mod_text__add(struct mod_text_buf *t, const char *s);
/* Room for n bytes at the end (NULL on allocation failure); __commit keeps the first n of
 * them (a string and its NUL) and returns their offset. */
char *mod_text__room(struct mod_text_buf *t, size_t n);
size_t mod_text__commit(struct mod_text_buf *t, size_t n);
/* Room for at least need scratch instructions (util/grow.h): 0 or -ENOMEM. */
int mod_disasm__grow(struct mod_decoder *d, size_t need);

/* disasm_zydis.c: x86. __init fills the process-wide name tables once and returns how many
 * of Zydis's ISA extension, ISA set and category names insn_attr.h lacks (0 expected). */
unsigned mod_zydis__init(void);
int mod_zydis__open(const struct bbmap_module *m, struct mod_decoder *d);
int mod_zydis__region(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
		      const uint8_t *code, struct mod_text_buf *text);
int mod_zydis__outline(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
		       const uint8_t *code);
int mod_zydis__attrs(const struct bbmap_module *m, struct mod_decoder *d,
		     const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
		     uint64_t addr, struct bbmap_insn *in);
/* objdump's spelling of a Zydis mnemonic (condition codes: jnz -> jne, cmovnbe -> cmova). */
void mod_zydis__od_spelling(const char *zydis_mnemonic, char *out, size_t n);
/* Frees d's decode cache; its hits and misses added to *hits and *misses when not NULL. */
void mod_zydis__cache_free(struct mod_decoder *d, uint64_t *hits, uint64_t *misses);

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
/* Cuts a demangled name to its short form in place (exposed for tests). */
void mod_demangle__short(char *d);

/* module.c */
/* A copy of s kept as long as the module, the same pointer for equal strings; NULL when
 * out of memory. */
const char *mod_str__intern(struct mod_decoder *d, const char *s);
/* The regions (struct mod_region), for module_leaders.c: */
struct mod_region *mod_region__of(const struct bbmap_module *m, uint64_t vaddr);
/* [start, end) to decode for vaddr (never overlapping a region of m); *soft_max: see
 * struct mod_region (0 when end is a boundary). -HBBP_ENOTFOUND when vaddr is in no code. */
int mod_region__bounds(struct bbmap_module *m, uint64_t vaddr, uint64_t *start, uint64_t *end,
		       uint64_t *soft_max);
/* A region with the bounds of vaddr, not decoded (NULL: *err says why). */
struct mod_region *mod_region__new(struct bbmap_module *m, uint64_t vaddr, int *err);
/* Whether regions are outlined (BBMAP_MODULE_LAZY_INSNS on x86). */
bool mod_region__lazy(const struct bbmap_module *m);
/* Outlines a new lazy region and cuts it into blocks, their symbols not set; m is only
 * read: workers outline regions, each with its decoder. */
int mod_region__outline(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r);
/* Sets the symbol of each block of a new region (demangles names, makes .eh_frame
 * pseudo symbols: one thread at a time). */
void mod_region__attach_syms(struct bbmap_module *m, struct mod_region *r);
/* Into m's sorted regions (counted), or out of them again; 0 or -ENOMEM. */
int mod_region__insert(struct bbmap_module *m, struct mod_region *r);
void mod_region__remove(struct bbmap_module *m, struct mod_region *r);
void mod_region__free(struct mod_region *r);
/* Decodes a new region, sets its symbols and inserts it: 0, or an error (r freed). */
int mod_region__complete(struct bbmap_module *m, struct mod_region *r);
/* new and complete: the region of vaddr (0 or an error). */
int mod_region__decode(struct bbmap_module *m, uint64_t vaddr, struct mod_region **out);
/* The block holding vaddr (decoding its region on demand) and its region, or NULL. */
struct bbmap_block *mod_region__block(struct bbmap_module *m, uint64_t vaddr,
				      struct mod_region **r);
/* Decodes a lazy region's block in full if it is not (the counters as they were: the
 * outline counted these instructions already), with its source lines unless d is a
 * worker's: 0 or an error. m is only read. */
int mod_region__fill(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
		     struct bbmap_block *b);
/* Splits the block of r containing the instruction at vaddr so that one starts there.
 * 0 when split or already a leader, -HBBP_ENOTFOUND when vaddr is no instruction start. */
int mod_region__split(struct bbmap_module *m, struct mod_region *r, uint64_t vaddr);

#endif
