/* The code over a bbmap_session (see hbbp/engine/code_bbmap.h): records update the address
 * spaces, locations and blocks go to bbmap. Once the leaders are added the pages of the
 * binaries go back: the attribution reads no code byte after, the mix only those of the
 * blocks with counts. The blocks the method asks for need no instructions
 * (bbmap_module__block_span: decoded lazily).
 * Depends on bbmap/session.h, bbmap/module.h and the reader's record structs.
 */
#include <errno.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "hbbp/engine/code_bbmap.h"
#include "util/hbbp_err.h"

int hbbp_code_bbmap__record(struct bbmap_session *s, const struct perf_record *rec)
{
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

/* ---- struct hbbp_code ---- */

static struct bbmap_module *code_module(void *ctx, struct bbmap_dso *d)
{
	struct bbmap_module *m = NULL;

	return bbmap_dso__module(d, &m) == DSO_OK ? m : NULL;
}

/* Every list in order (a leader that is no instruction start is skipped). */
static int code_add_leaders(void *ctx, const struct hbbp_leaders *l)
{
	size_t i, k;
	int err = 0;

	for (i = 0; i < l->nr; i++)
		for (k = 0; k < l->lists[i].nr; k++)
			if (bbmap_module__add_leader(l->lists[i].mod, l->lists[i].vaddrs[k]) ==
			    -ENOMEM)
				err = -ENOMEM;
	bbmap_session__drop(ctx, bbmap_module__drop_pages);
	return err;
}

static int code_block(void *ctx, struct bbmap_module *m, uint64_t vaddr,
		      const struct bbmap_block **blk)
{
	return bbmap_module__block_span(m, vaddr, blk);
}

static const struct bbmap_symbol *code_symbol(void *ctx, struct bbmap_module *m, uint64_t vaddr)
{
	return bbmap_module__symbol_at(m, vaddr);
}

static const char *code_dso_symbol(void *ctx, struct bbmap_dso *d, uint64_t vaddr,
				   uint64_t *start)
{
	return bbmap_dso__symbol_name(d, vaddr, start);
}

static const char *dso_name(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__name(d);
}

static const char *code_comm(void *ctx, uint32_t pid, uint32_t key, uint32_t *tid)
{
	return bbmap_session__comm_of(ctx, pid, key, tid);
}

/* ---- struct hbbp_code_ops ---- */

static enum bbmap_dso_status ops_dso_module(void *ctx, struct bbmap_dso *d,
					    struct bbmap_module **m)
{
	return bbmap_dso__module(d, m);
}

static int ops_block_at(void *ctx, struct bbmap_module *m, uint64_t vaddr,
			const struct bbmap_block **blk)
{
	return bbmap_module__block_at(m, vaddr, blk);
}

static const char *ops_dso_short_name(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__short_name(d);
}

static enum bbmap_dso_kind ops_dso_kind(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__kind(d);
}

static const char *ops_dso_path(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__path(d);
}

static const char *ops_dso_status_detail(void *ctx, const struct bbmap_dso *d)
{
	return bbmap_dso__status_detail(d);
}

static size_t ops_module_build_id(void *ctx, const struct bbmap_module *m, const uint8_t **id)
{
	return bbmap_module__build_id(m, id);
}

static void ops_drop_insns(void *ctx)
{
	bbmap_session__drop(ctx, bbmap_module__drop_insns);
	bbmap_session__drop(ctx, bbmap_module__drop_pages);
}

static void ops_drop_code(void *ctx)
{
	bbmap_session__drop(ctx, bbmap_module__drop_code);
#ifdef __GLIBC__
	malloc_trim(0);		/* the blocks were many small arrays: their pages go back */
#endif
}

void hbbp_code_bbmap__init(struct hbbp_code *code, struct hbbp_code_ops *ops,
			   struct bbmap_session *s)
{
	*code = (struct hbbp_code){
		.ctx = s, .module = code_module,
		.add_leaders = code_add_leaders, .block = code_block, .symbol = code_symbol,
		.dso_symbol = code_dso_symbol, .dso_name = dso_name, .comm = code_comm,
	};
	*ops = (struct hbbp_code_ops){
		.ctx = s, .dso_module = ops_dso_module, .block_at = ops_block_at, .dso_name = dso_name,
		.dso_short_name = ops_dso_short_name, .dso_kind = ops_dso_kind,
		.dso_path = ops_dso_path, .dso_status_detail = ops_dso_status_detail,
		.module_build_id = ops_module_build_id, .drop_insns = ops_drop_insns,
		.drop_code = ops_drop_code,
	};
}
