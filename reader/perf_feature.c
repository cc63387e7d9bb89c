/* Header features of a perf.data file (feature sections in file mode, HEADER_FEATURE
 * records in pipe mode): strings, cpu counts, EVENT_DESC names, BUILD_ID table, GROUP_DESC,
 * PMU_MAPPINGS, CLOCK_DATA, COMPRESSED, SAMPLE_TIME and the TRACING_DATA blob (event names
 * and ids, kept in a libtraceevent handle). Unknown features are skipped by size. Knows nothing outside reader/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"

/* A bounded reader of a feature's bytes; swap: their byte order is not the host's (the
 * file's, or the tracing data's own). */
struct fcur {
	struct perf_reader *r;
	const uint8_t *p;
	uint64_t size, pos;
	const char *file;
	uint64_t off;
	bool swap;
};

static int need(struct fcur *c, uint64_t n, const char *what)
{
	if (n > c->size - c->pos)
		return perf_reader__fail(c->r, c->file, c->off + c->pos, "%s truncated", what);
	return 0;
}

static int get32(struct fcur *c, uint32_t *v, const char *what)
{
	int err = need(c, 4, what);

	if (err)
		return err;
	memcpy(v, c->p + c->pos, 4);
	*v = c->swap ? __builtin_bswap32(*v) : *v;
	c->pos += 4;
	return 0;
}

static int get64(struct fcur *c, uint64_t *v, const char *what)
{
	int err = need(c, 8, what);

	if (err)
		return err;
	memcpy(v, c->p + c->pos, 8);
	*v = c->swap ? __builtin_bswap64(*v) : *v;
	c->pos += 8;
	return 0;
}

/* str64: u32 len, len bytes, NUL-terminated inside */
static int get_str(struct fcur *c, char **out, const char *what)
{
	uint32_t len;
	int err = get32(c, &len, what);

	if (err)
		return err;
	err = need(c, len, what);
	if (err)
		return err;
	if (out) {
		*out = strndup((const char *)c->p + c->pos, len);
		if (!*out)
			return -ENOMEM;
	}
	c->pos += len;
	return 0;
}

static int set_str(struct fcur *c, int slot, const char **field, const char *what)
{
	char *s;
	int err = get_str(c, &s, what);

	if (err)
		return err;
	free(c->r->strs[slot]);
	c->r->strs[slot] = s;
	*field = s;
	return 0;
}

static int feat_cmdline(struct fcur *c)
{
	struct perf_reader *r = c->r;
	uint32_t nr, i;
	size_t len = 0;
	int err = get32(c, &nr, "CMDLINE");

	if (err)
		return err;
	if (nr > c->size / 4)
		return perf_reader__fail(r, c->file, c->off, "CMDLINE: %u strings", nr);
	free(r->cmdline_buf);
	r->cmdline_buf = NULL;
	r->hdr.cmdline = NULL;
	for (i = 0; i < nr; i++) {
		char *s, *nb;
		size_t n;

		err = get_str(c, &s, "CMDLINE");
		if (err)
			return err;
		n = strlen(s);
		nb = realloc(r->cmdline_buf, len + n + 2);
		if (!nb) {
			free(s);
			return -ENOMEM;
		}
		r->cmdline_buf = nb;
		if (len)
			nb[len++] = ' ';
		memcpy(nb + len, s, n + 1);
		len += n;
		free(s);
	}
	r->hdr.cmdline = r->cmdline_buf;
	return 0;
}

static int feat_event_desc(struct fcur *c)
{
	struct perf_reader *r = c->r;
	uint32_t nr, asz, i;
	int err;

	if ((err = get32(c, &nr, "EVENT_DESC")) || (err = get32(c, &asz, "EVENT_DESC")))
		return err;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > 65536)
		return perf_reader__fail(r, c->file, c->off, "EVENT_DESC: attr size %u invalid", asz);
	for (i = 0; i < nr; i++) {
		uint32_t nr_ids;
		char *name;

		if ((err = need(c, asz, "EVENT_DESC")))
			return err;
		c->pos += asz;
		if ((err = get32(c, &nr_ids, "EVENT_DESC")) ||
		    (err = get_str(c, &name, "EVENT_DESC")))
			return err;
		if ((err = need(c, (uint64_t)nr_ids * 8, "EVENT_DESC"))) {
			free(name);
			return err;
		}
		c->pos += (uint64_t)nr_ids * 8;
		if (i < r->nr_events && name[0] && !r->events[i].info.name_stored) {
			free((char *)r->events[i].info.name);
			r->events[i].info.name = name;
			r->events[i].info.name_stored = true;
		} else {
			free(name);
		}
	}
	return 0;
}

static int feat_build_id(struct fcur *c)
{
	bool ancient = false;
	uint64_t pos;

	/* perf re-reads the whole table in the ancient layout (no pid field) when an entry's
	 * name, read at the current layout's offset, is "nel.kallsyms]" */
	for (pos = 0; c->size - pos >= 8; ) {
		uint16_t sz = rd16(c->r, c->p + pos + 6);

		if (sz < 8 || sz > c->size - pos)
			break;
		if (sz >= 36 + 13 && !memcmp(c->p + pos + 36, "nel.kallsyms]", 13))
			ancient = true;
		pos += sz;
	}
	while (c->size - c->pos >= 8) {
		uint16_t sz = rd16(c->r, c->p + c->pos + 6);
		int err;

		if (sz < 8 || sz > c->size - c->pos)
			return perf_reader__fail(c->r, c->file, c->off + c->pos,
						 "build-id entry size %u invalid", sz);
		err = perf_reader__add_build_id(c->r, c->p + c->pos, sz, ancient, c->file,
						c->off + c->pos);
		if (err)
			return err;
		c->pos += sz;
	}
	return 0;
}

static int feat_group_desc(struct fcur *c)
{
	struct perf_reader *r = c->r;
	uint32_t nr, i;
	int err = get32(c, &nr, "GROUP_DESC");

	if (err)
		return err;
	for (i = 0; i < nr; i++) {
		uint32_t leader, members, j;

		if ((err = get_str(c, NULL, "GROUP_DESC")) ||
		    (err = get32(c, &leader, "GROUP_DESC")) ||
		    (err = get32(c, &members, "GROUP_DESC")))
			return err;
		for (j = 0; j < members && leader < r->nr_events &&
			    j < r->nr_events - leader; j++)
			r->events[leader + j].group_leader = (int)leader;
	}
	return 0;
}

static int feat_pmu_mappings(struct fcur *c)
{
	struct perf_reader *r = c->r;
	uint32_t nr, i;
	int err = get32(c, &nr, "PMU_MAPPINGS");

	if (err)
		return err;
	if (nr > c->size / 8)
		return perf_reader__fail(r, c->file, c->off, "PMU_MAPPINGS: %u entries", nr);
	for (i = 0; i < r->nr_pmus; i++)
		free(r->pmu_names[i]);
	free(r->pmu_names);
	free(r->pmu_types);
	r->nr_pmus = 0;
	r->pmu_names = calloc(nr ? nr : 1, sizeof(char *));
	r->pmu_types = calloc(nr ? nr : 1, sizeof(uint32_t));
	if (!r->pmu_names || !r->pmu_types)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		uint32_t type;
		char *name;

		if ((err = get32(c, &type, "PMU_MAPPINGS")) ||
		    (err = get_str(c, &name, "PMU_MAPPINGS")))
			return err;
		r->pmu_types[i] = type;
		r->pmu_names[i] = name;
		r->nr_pmus++;
	}
	return 0;
}

/* ---- TRACING_DATA ---- */

/* A NUL-terminated string; NULL when the bytes left hold no NUL. */
static const char *get_cstr(struct fcur *c)
{
	const char *s = (const char *)c->p + c->pos;
	size_t n = strnlen(s, c->size - c->pos);

	if (n == c->size - c->pos)
		return NULL;
	c->pos += n + 1;
	return s;
}

/* The value of the line "KEY: value" of format text p[0, len): a run of [A-Za-z0-9_] (of
 * digits when digits) copied to out (size cap); false when absent, empty or too long. */
static bool fmt_field(const char *p, uint64_t len, const char *key, bool digits, char *out,
		      size_t cap)
{
	size_t klen = strlen(key);
	uint64_t i = 0, n = 0;

	while (i < len) {
		const char *line = p + i;
		uint64_t left = len - i;
		const char *nl = memchr(line, '\n', left);
		uint64_t llen = nl ? (uint64_t)(nl - line) : left;

		if (llen > klen && !memcmp(line, key, klen)) {
			uint64_t j = klen;

			while (j < llen && line[j] == ' ')
				j++;
			for (; j < llen && n + 1 < cap; j++, n++) {
				char ch = line[j];

				if (!(ch >= '0' && ch <= '9') && (digits ||
				    !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')))
					break;
				out[n] = ch;
			}
			out[n] = 0;
			return n > 0 && (j == llen || line[j] == '\r' || line[j] == ' ');
		}
		i += llen + 1;
	}
	return false;
}

/* Each event format names an event (name and ID lines) for tracepoint attrs. Only those two
 * are taken, checked, and handed to libtraceevent as a minimal format: it is not given the
 * file's text, whose malformed forms crash it (NULL dereference, leaks). */
static int t_events(struct fcur *c, struct tep_handle *tep, const char *sys, uint32_t n)
{
	uint32_t i;
	int err;

	for (i = 0; i < n; i++) {
		char name[128], id[24], text[200];
		uint64_t len;
		int k;

		if ((err = get64(c, &len, "tracing data")) || (err = need(c, len, "tracing data")))
			return err;
		/* a format without a usable name or ID is skipped, as perf does */
		if (fmt_field((const char *)c->p + c->pos, len, "name:", false, name, sizeof(name)) &&
		    fmt_field((const char *)c->p + c->pos, len, "ID:", true, id, sizeof(id)) &&
		    strlen(id) < 10) {
			k = snprintf(text, sizeof(text), "name: %s\nID: %s\nformat:\n\nprint fmt: \"\"\n",
				     name, id);
			tep_parse_event(tep, text, (unsigned long)k, sys);
		}
		c->pos += len;
	}
	return 0;
}

static int feature__tracing(struct fcur *c)
{
	struct perf_reader *r = c->r;
	const uint8_t *p = c->p;
	struct tep_handle *tep;
	uint32_t n, i, page_size;
	uint64_t len;
	uint8_t long_size;
	bool big;
	int err;

	if (c->size < 10 || memcmp(p, "\027\010\104tracing", 10))
		return perf_reader__fail(r, c->file, c->off, "tracing data: bad magic");
	c->pos = 10;
	if (!get_cstr(c))
		goto bad;
	if ((err = need(c, 2, "tracing data")))
		return err;
	big = p[c->pos];
	long_size = p[c->pos + 1];
	c->pos += 2;
	c->swap = big == perf_reader__host_le();
	if ((err = get32(c, &page_size, "tracing data")))
		return err;
	if (r->tep)
		return 0;	/* first blob wins */
	tep = tep_alloc();
	if (!tep)
		return -ENOMEM;
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, perf_reader__host_le() ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)page_size);
	r->tep = tep;
	r->hdr.tep = tep;
	/* the page and event header layouts are not needed for event names */
	for (i = 0; i < 2; i++) {
		const char *tag = i ? "header_event" : "header_page";
		size_t k = strlen(tag) + 1;

		if ((err = need(c, k, "tracing data")))
			return err;
		if (memcmp(p + c->pos, tag, k))
			goto bad;
		c->pos += k;
		if ((err = get64(c, &len, "tracing data")) || (err = need(c, len, "tracing data")))
			return err;
		c->pos += len;
	}
	if ((err = get32(c, &n, "tracing data")) || (err = t_events(c, tep, "ftrace", n)) ||
	    (err = get32(c, &n, "tracing data")))
		return err;
	for (i = 0; i < n; i++) {
		uint32_t ne;
		const char *sys = get_cstr(c);

		if (!sys)
			goto bad;
		if ((err = get32(c, &ne, "tracing data")) || (err = t_events(c, tep, sys, ne)))
			return err;
	}
	/* kallsyms, printk formats and saved cmdlines are not needed */
	return 0;
bad:
	return perf_reader__fail(r, c->file, c->off + c->pos,
				 "tracing data truncated or malformed");
}

static int feature__parse(struct perf_reader *r, unsigned feat, const uint8_t *p,
			  uint64_t size, const char *file, uint64_t off)
{
	struct fcur c = { r, p, size, 0, file, off, r->swap };
	struct perf_header_info *h = &r->hdr;
	uint32_t a, b;
	uint64_t x, y;
	int err = 0;

	switch (feat) {
	case HEADER_TRACING_DATA:
		return feature__tracing(&c);
	case HEADER_BUILD_ID:
		if (!size)
			r->stats.empty_build_ids = true;
		return feat_build_id(&c);
	case HEADER_HOSTNAME:
		return set_str(&c, 2, &h->hostname, "HOSTNAME");
	case HEADER_OSRELEASE:
		return set_str(&c, 3, &h->osrelease, "OSRELEASE");
	case HEADER_VERSION:
		return set_str(&c, 4, &h->version, "VERSION");
	case HEADER_ARCH:
		return set_str(&c, 5, &h->arch, "ARCH");
	case HEADER_CPUDESC:
		return set_str(&c, 6, &h->cpudesc, "CPUDESC");
	case HEADER_CPUID:
		return set_str(&c, 7, &h->cpuid, "CPUID");
	case HEADER_NRCPUS:
		if ((err = get32(&c, &a, "NRCPUS")) || (err = get32(&c, &b, "NRCPUS")))
			return err;
		h->nr_cpus_avail = a;
		h->nr_cpus_online = b;
		return 0;
	case HEADER_TOTAL_MEM:
		if ((err = get64(&c, &x, "TOTAL_MEM")))
			return err;
		h->total_mem_kb = x;
		return 0;
	case HEADER_CMDLINE:
		return feat_cmdline(&c);
	case HEADER_EVENT_DESC:
		return feat_event_desc(&c);
	case HEADER_BRANCH_STACK:
		h->has_branch_stack = true;
		return 0;
	case HEADER_PMU_MAPPINGS:
		return feat_pmu_mappings(&c);
	case HEADER_GROUP_DESC:
		return feat_group_desc(&c);
	case HEADER_SAMPLE_TIME:
		if ((err = get64(&c, &x, "SAMPLE_TIME")) || (err = get64(&c, &y, "SAMPLE_TIME")))
			return err;
		h->first_sample_time = x;
		h->last_sample_time = y;
		return 0;
	case HEADER_DIR_FORMAT:
		if ((err = get64(&c, &x, "DIR_FORMAT")))
			return err;
		r->dir_format = x;
		return 0;
	case HEADER_COMPRESSED:
		if ((err = get32(&c, &a, "COMPRESSED")) || (err = get32(&c, &b, "COMPRESSED")))
			return err;
		h->comp_type = b;
		if ((err = get32(&c, &a, "COMPRESSED")))
			return err;
		h->comp_level = a;
		if (b)
			h->compressed = true;
		return 0;
	case HEADER_CLOCK_DATA:
		if ((err = get32(&c, &a, "CLOCK_DATA")) || (err = get32(&c, &b, "CLOCK_DATA")) ||
		    (err = get64(&c, &x, "CLOCK_DATA")) || (err = get64(&c, &y, "CLOCK_DATA")))
			return err;
		h->clock_id = b;
		h->clock_tod_ns = x;
		h->clock_ref_ns = y;
		return 0;
	default:
		return 0;	/* skipped by size */
	}
}

int perf_feature__process(struct perf_reader *r, unsigned feat, const uint8_t *p,
			  uint64_t size, const char *file, uint64_t off)
{
	int err = feature__parse(r, feat, p, size, file, off);

	if (err != -HBBP_EFORMAT)
		return err;
	pr_debug("%s (feature %u skipped)", r->errbuf, feat);
	r->err = 0;
	r->errbuf[0] = 0;
	r->stats.nr_bad_features++;
	if (feat < 64)
		r->stats.bad_features |= 1ULL << feat;
	return 0;
}

void perf_feature__free(struct perf_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_pmus; i++)
		free(r->pmu_names[i]);
	free(r->pmu_names);
	free(r->pmu_types);
	free(r->cmdline_buf);
	if (r->tep)
		tep_free(r->tep);
}

const char *perf_feature__name(unsigned feat, char *buf, size_t len)
{
	static const char *const names[] = {
		[HEADER_TRACING_DATA] = "TRACING_DATA", [HEADER_BUILD_ID] = "BUILD_ID",
		[HEADER_HOSTNAME] = "HOSTNAME", [HEADER_OSRELEASE] = "OSRELEASE",
		[HEADER_VERSION] = "VERSION", [HEADER_ARCH] = "ARCH", [HEADER_NRCPUS] = "NRCPUS",
		[HEADER_CPUDESC] = "CPUDESC", [HEADER_CPUID] = "CPUID",
		[HEADER_TOTAL_MEM] = "TOTAL_MEM", [HEADER_CMDLINE] = "CMDLINE",
		[HEADER_EVENT_DESC] = "EVENT_DESC",
	};

	if (feat < sizeof(names) / sizeof(names[0]) && names[feat])
		return names[feat];
	snprintf(buf, len, "FEATURE_%u", feat);
	return buf;
}
