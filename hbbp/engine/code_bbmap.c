/* Binds the method core's struct hbbp_code_ops to a bbmap_session: records update the
 * address spaces, lookups and blocks go to bbmap. The only file of hbbp/ that calls the
 * session and module APIs for the method (so the core can be tested on test doubles).
 * Depends on bbmap/session.h, bbmap/module.h and the reader's record structs.
 */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "hbbp/engine/code_bbmap.h"
#include "util/hbbp_err.h"

static int cb_record(void *ctx, const struct perf_record *rec)
{
	struct bbmap_session *s = ctx;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return bbmap_session__mmap(s, rec->misc & PERF_RECORD_MISC_CPUMODE_MASK,
					   rec->mmap.pid, rec->mmap.tid, rec->mmap.start,
					   rec->mmap.len, rec->mmap.pgoff, rec->mmap.filename,
					   rec->mmap.build_id_size ? rec->mmap.build_id : NULL,
					   rec->mmap.build_id_size,
					   !(rec->misc & PERF_RECORD_MISC_MMAP_DATA));
	case PERF_RECORD_COMM:
		return bbmap_session__comm(s, rec->comm.pid, rec->comm.tid, rec->comm.comm,
					   rec->comm.exec);
	case PERF_RECORD_FORK:
		return bbmap_session__fork(s, rec->task.pid, rec->task.ppid, rec->task.tid,
					   rec->task.ptid);
	case PERF_RECORD_EXIT:
		return bbmap_session__exit(s, rec->task.pid, rec->task.tid);
	case PERF_RECORD_KSYMBOL:
		return bbmap_session__ksymbol(s, rec->ksymbol.addr, rec->ksymbol.len,
					      rec->ksymbol.name, rec->ksymbol.flags & 1);
	case PERF_RECORD_HEADER_BUILD_ID:
		return bbmap_session__add_build_id(s, (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
						   PERF_RECORD_MISC_KERNEL,
						   rec->build_id.filename, rec->build_id.id,
						   rec->build_id.size);
	default:
		return 0;
	}
}

static int cb_lookup(void *ctx, uint32_t pid, int cpumode, uint64_t addr, struct bbmap_loc *loc)
{
	return bbmap_session__lookup(ctx, pid, cpumode, addr, loc);
}

static int cb_lookup_range(void *ctx, uint32_t pid, int cpumode, uint64_t addr,
			   struct bbmap_loc *loc, uint64_t *lo, uint64_t *hi)
{
	return bbmap_session__lookup_range(ctx, pid, cpumode, addr, loc, lo, hi);
}

static enum bbmap_dso_status cb_dso_module(void *ctx, struct bbmap_dso *d, struct bbmap_module **m)
{
	return bbmap_dso__module(d, m);
}

static int cb_add_leader(void *ctx, struct bbmap_module *m, uint64_t vaddr)
{
	return bbmap_module__add_leader(m, vaddr);
}

static int cb_add_leaders(void *ctx, struct bbmap_module *m, const uint64_t *vaddrs, size_t n,
			  unsigned int threads)
{
	return bbmap_module__add_leaders(m, vaddrs, n, threads);
}

static int cb_block_at(void *ctx, struct bbmap_module *m, uint64_t vaddr,
		       const struct bbmap_block **blk)
{
	return bbmap_module__block_at(m, vaddr, blk);
}

static int cb_fill_blocks(void *ctx, struct bbmap_module *m, const uint64_t *starts, size_t n,
			  unsigned int threads)
{
	return bbmap_module__fill_blocks(m, starts, n, threads);
}

static int cb_block_span(void *ctx, struct bbmap_module *m, uint64_t vaddr,
			 const struct bbmap_block **blk)
{
	return bbmap_module__block_span(m, vaddr, blk);
}

static const struct bbmap_symbol *cb_symbol_at(void *ctx, struct bbmap_module *m, uint64_t vaddr)
{
	return bbmap_module__symbol_at(m, vaddr);
}

static const char *cb_dso_symbol(void *ctx, struct bbmap_dso *d, uint64_t vaddr, uint64_t *start)
{
	return bbmap_dso__symbol_name(d, vaddr, start);
}

static const char *cb_dso_name(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__name(d);
}

static const char *cb_dso_short_name(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__short_name(d);
}

static enum bbmap_dso_kind cb_dso_kind(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__kind(d);
}

static const char *cb_dso_path(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__path(d);
}

static const char *cb_dso_status_detail(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__status_detail(d);
}

static size_t cb_module_build_id(void *ctx, const struct bbmap_module *m, const uint8_t **id)
{
	return bbmap_module__build_id(m, id);
}

static const char *cb_thread_comm(void *ctx, uint32_t pid, uint32_t tid)
{
	return bbmap_session__comm_of(ctx, pid, tid);
}

static void cb_drop_insns(void *ctx)
{
	bbmap_session__drop_insns(ctx);
	bbmap_session__drop_pages(ctx);
}

static void cb_drop_code(void *ctx)
{
	bbmap_session__drop_code(ctx);
#ifdef __GLIBC__
	malloc_trim(0);		/* the blocks were many small arrays: their pages go back */
#endif
}

void hbbp_code_bbmap__init(struct hbbp_code_ops *ops, struct bbmap_session *s)
{
	ops->ctx = s;
	ops->record = cb_record;
	ops->lookup = cb_lookup;
	ops->lookup_range = cb_lookup_range;
	ops->dso_module = cb_dso_module;
	ops->add_leader = cb_add_leader;
	ops->add_leaders = cb_add_leaders;
	ops->block_at = cb_block_at;
	ops->block_span = cb_block_span;
	ops->fill_blocks = cb_fill_blocks;
	ops->threads = 1;
	ops->drop_insns = cb_drop_insns;
	ops->drop_code = cb_drop_code;
	ops->symbol_at = cb_symbol_at;
	ops->dso_symbol = cb_dso_symbol;
	ops->dso_name = cb_dso_name;
	ops->dso_short_name = cb_dso_short_name;
	ops->dso_kind = cb_dso_kind;
	ops->dso_path = cb_dso_path;
	ops->dso_status_detail = cb_dso_status_detail;
	ops->module_build_id = cb_module_build_id;
	ops->thread_comm = cb_thread_comm;
}
