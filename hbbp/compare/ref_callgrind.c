/* Reads a valgrind callgrind profile recorded with --dump-instr=yes as a reference mix for
 * `compare`: per-(object, instruction address) executed counts (event Ir), named by
 * disassembling the object files with bbmap (hbbp/compare/ref_mix.c).
 *
 * The format (valgrind manual, "Callgrind Format Specification"): header lines "key: value"
 * (positions:, events:, ...); spec lines ob=/fl=/fi=/fe=/fn=/cob=/cfi=/cfl=/cfn=/calls=/
 * jump=/jcnd= with name compression ("(id) name" defines id, "(id)" refers to it; ob/cob,
 * fl/fi/fe/cfi/cfl and fn/cfn share one id space each); cost lines "SUBPOS... COST...", where
 * each subposition is absolute (0x hex or decimal), relative to the same subposition of the
 * previous cost line ("+N", "-N") or the same ("*"), and missing costs are 0. The cost line
 * after calls= (and jump=/jcnd=) is the inclusive cost of the call at the call site, not the
 * instruction's self cost: it moves the position but adds nothing here. The position in a
 * calls= line itself is the call target and does not move the position.
 *
 * Addresses are runtime addresses. Each object's load bias (runtime − ELF vaddr) is found
 * from the profile itself: for every function callgrind names (fn=), the lowest address with
 * cost is its entry; the bias voted for by most functions whose name is an ELF symbol of the
 * object (entry − symbol address, page aligned) is used; objects without a vote (no
 * symbols) get bias 0 (right for non-PIE executables). Costs in object "???" (code callgrind
 * ran before it knew the mapping) are given to the first known object whose code decodes
 * at that address. Depends on hbbp/compare/ref.h, util/hmap.h and libc.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"
#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

#define MAX_POS   8
#define MAX_NAMES (1u << 24)

struct names {			/* one compression id space */
	struct hmap ids;	/* id -> index + 1 */
	char **v;
	size_t nr, cap;
};

struct cg {
	const char *path;
	unsigned long line;
	size_t npos, ipos;	/* number of subpositions, index of "instr" */
	long ir;		/* index of event Ir in cost columns (-1: first event) */
	uint64_t last[MAX_POS];
	struct names obs, fns;
	size_t ob, fn;		/* current object, function (index + 1; 0 none) */
	bool skip_next;		/* the next cost line is a call/jump cost */
	struct hmap cost;	/* {ob, addr} -> double */
	struct hmap entry;	/* {ob, fn} -> lowest address + 1 */
	double total;
};

static int cg_err(const struct cg *c, const char *what, const char *text)
{
	pr_err("%s:%lu: %s%s%s%s", c->path, c->line, what, text ? " '" : "", text ? text : "",
	       text ? "'" : "");
	return -HBBP_EFORMAT;
}

static void names_exit(struct names *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	hmap__exit(&n->ids);
}

static int names_add(struct names *n, const char *s, size_t len, size_t *idx)
{
	size_t i;

	for (i = n->nr; i-- > 0 && n->nr < 64;)	/* small tables: reuse equal names */
		if (strlen(n->v[i]) == len && !memcmp(n->v[i], s, len)) {
			*idx = i;
			return 0;
		}
	if (n->nr >= MAX_NAMES)
		return -HBBP_ELIMIT;
	if (grow_array((void **)&n->v, &n->cap, sizeof(*n->v), n->nr + 1, MAX_NAMES))
		return -ENOMEM;
	if (!(n->v[n->nr] = strndup(s, len)))
		return -ENOMEM;
	*idx = n->nr++;
	return 0;
}

/* "(id) name", "(id)" or "name" -> index in n. */
static int spec_name(struct cg *c, struct names *n, const char *v, size_t *idx)
{
	size_t len;

	while (*v == ' ' || *v == '\t')
		v++;
	if (*v == '(') {
		char *end;
		uint64_t key = strtoull(v + 1, &end, 10), *slot;
		int err;

		if (end == v + 1 || *end != ')')
			return cg_err(c, "bad name compression", v);
		v = end + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		len = strcspn(v, "\r\n");
		if (!len) {
			slot = hmap__find(&n->ids, &key);
			if (!slot)
				return cg_err(c, "name id used before it is defined:", v);
			*idx = (size_t)(*slot - 1);
			return 0;
		}
		if ((err = names_add(n, v, len, idx)))
			return err;
		slot = hmap__get(&n->ids, &key, NULL);
		if (!slot)
			return -ENOMEM;
		*slot = *idx + 1;
		return 0;
	}
	len = strcspn(v, "\r\n");
	return names_add(n, v, len, idx);
}

static int parse_positions(struct cg *c, const char *v)
{
	char buf[256], *save = NULL, *t;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	c->ipos = MAX_POS;
	for (t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == MAX_POS)
			return cg_err(c, "too many positions", v);
		if (!strcmp(t, "instr"))
			c->ipos = n;
		n++;
	}
	if (c->ipos == MAX_POS)
		return cg_err(c, "no instruction addresses (record with callgrind "
			      "--dump-instr=yes): positions are", v);
	c->npos = n;
	return 0;
}

static int parse_events(struct cg *c, const char *v)
{
	char buf[1024], *save = NULL, *t;
	long n = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	c->ir = -1;
	for (t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save), n++)
		if (!strcmp(t, "Ir"))
			c->ir = n;
	if (c->ir < 0)
		return cg_err(c, "no Ir event in", v);
	return 0;
}

/* One subposition token at *p into *val (relative to last). */
static int subpos(struct cg *c, const char **p, uint64_t last, uint64_t *val)
{
	const char *s = *p;
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '*') {
		*val = last;
		end = (char *)s + 1;
	} else if (*s == '+' || *s == '-') {
		v = strtoull(s + 1, &end, 0);
		if (end == s + 1)
			return cg_err(c, "bad relative position", s);
		*val = *s == '+' ? last + v : last - v;
	} else {
		v = strtoull(s, &end, 0);
		if (end == s)
			return cg_err(c, "bad position", s);
		*val = v;
	}
	if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n'))
		return cg_err(c, "bad position", s);
	while (*end == ' ' || *end == '\t')
		end++;
	*p = end;
	return 0;
}

static int cost_line(struct cg *c, const char *s)
{
	uint64_t pos[MAX_POS];
	unsigned long long v = 0;
	size_t i;
	long e;
	int err;

	if (!c->npos)
		return cg_err(c, "cost line before a positions: header", NULL);
	for (i = 0; i < c->npos; i++) {
		if (!*s || *s == '\r' || *s == '\n')
			return cg_err(c, "cost line with too few positions", NULL);
		if ((err = subpos(c, &s, c->last[i], &pos[i])))
			return err;
	}
	for (e = 0; *s && *s != '\r' && *s != '\n'; e++) {
		char *end;
		unsigned long long x;

		errno = 0;
		x = strtoull(s, &end, 10);
		if (end == s || errno || *s == '-' ||
		    (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n'))
			return cg_err(c, "bad cost", s);
		if (e == c->ir)
			v = x;
		s = end;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	memcpy(c->last, pos, sizeof(pos[0]) * c->npos);
	if (c->skip_next) {
		c->skip_next = false;
		return 0;
	}
	if (!c->ob)
		return cg_err(c, "cost line before any ob=/fn=", NULL);
	if (v) {
		uint64_t key[2] = { c->ob - 1, pos[c->ipos] };
		double *d = hmap__get(&c->cost, key, NULL);
		uint64_t ek[2] = { c->ob - 1, c->fn };
		uint64_t *en = hmap__get(&c->entry, ek, NULL);

		if (!d || !en)
			return -ENOMEM;
		*d += (double)v;
		c->total += (double)v;
		if (!*en || pos[c->ipos] + 1 < *en)
			*en = pos[c->ipos] + 1;
	}
	return 0;
}

static int spec_line(struct cg *c, const char *s)
{
	size_t idx, klen = strcspn(s, "=");
	const char *v = s + klen + 1;
	int err = 0;

#define IS(k) (klen == strlen(k) && !strncmp(s, k, klen))
	if (IS("ob")) {
		if (!(err = spec_name(c, &c->obs, v, &idx)))
			c->ob = idx + 1;
	} else if (IS("cob")) {
		err = spec_name(c, &c->obs, v, &idx);
	} else if (IS("fn")) {
		if (!(err = spec_name(c, &c->fns, v, &idx)))
			c->fn = idx + 1;
	} else if (IS("cfn") || IS("cfi") || IS("cfl") || IS("fl") || IS("fi") || IS("fe")) {
		/* files are not needed; functions named by cfn= share fn's ids */
		if (IS("cfn"))
			err = spec_name(c, &c->fns, v, &idx);
	} else if (IS("calls") || IS("jump") || IS("jcnd")) {
		c->skip_next = true;	/* the next cost line is the call's (jump's) cost */
	}
	/* other keys (unknown extensions) are ignored */
#undef IS
	return err;
}

static int cg_parse(struct cg *c, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		const char *s = line;

		c->line++;
		if (n > 1 << 20) {
			err = cg_err(c, "line too long", NULL);
			break;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n' || *s == '\r' || *s == '#')
			continue;
		if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*') {
			err = cost_line(c, s);
			continue;
		}
		if (!strncmp(s, "positions:", 10)) {
			err = parse_positions(c, s + 10);
			continue;
		}
		if (!strncmp(s, "events:", 7)) {
			err = parse_events(c, s + 7);
			continue;
		}
		if (isalpha((unsigned char)*s)) {
			size_t k = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");

			if (s[k] == '=') {
				err = spec_line(c, s);
				continue;
			}
			if (s[k] == ':')	/* other header lines: version, creator, ... */
				continue;
		}
		err = cg_err(c, "not a callgrind line:", s);
	}
	free(line);
	return err;
}

struct vote { uint64_t bias; size_t n; };

/* The load bias of object ob (see the top of the file); *votes how many functions agree. */
static uint64_t object_bias(struct cg *c, size_t ob, size_t *votes)
{
	struct vote v[64];
	size_t nv = 0, i, best = 0;
	const uint64_t *k;
	uint64_t *val;

	*votes = 0;
	hmap__for_each(&c->entry, i, k, val) {
		const char *name;
		uint64_t sym, entry, b;
		size_t j;

		if (k[0] != ob || !k[1] || k[1] > c->fns.nr)
			continue;
		name = c->fns.v[k[1] - 1];
		entry = *(uint64_t *)val - 1;
		if (!strncmp(name, "0x", 2) ||
		    ref_decode__symbol_addr(c->obs.v[ob], name, &sym) || entry < sym)
			continue;
		b = entry - sym;
		if (b & 0xfff)
			continue;
		for (j = 0; j < nv && v[j].bias != b; j++)
			;
		if (j == nv) {
			if (nv == 64)
				continue;
			v[nv].bias = b;
			v[nv++].n = 0;
		}
		v[j].n++;
	}
	for (i = 0; i < nv; i++)
		if (v[i].n > v[best].n)
			best = i;
	if (!nv)
		return 0;
	*votes = v[best].n;
	return v[best].bias;
}

static bool unknown_object(const char *name)
{
	return !*name || !strcmp(name, "???") || name[0] != '/';
}

static int cg_build(struct cg *c, struct ref_mix *m)
{
	uint64_t *bias = calloc(c->obs.nr + 1, sizeof(uint64_t)), *val;
	const uint64_t *k;
	size_t i, votes;
	char note[1024];
	size_t nl = 0;
	int err = 0;

	if (!bias)
		return -ENOMEM;
	note[0] = 0;
	for (i = 0; i < c->obs.nr; i++) {
		if (unknown_object(c->obs.v[i]))
			continue;
		bias[i] = object_bias(c, i, &votes);
		if (nl < sizeof(note) - 1)
			nl += (size_t)snprintf(note + nl, sizeof(note) - nl,
					       "%s%s bias 0x%" PRIx64 " (%zu functions agree)",
					       nl ? "; " : "load biases: ",
					       hbbp_basename(c->obs.v[i], false), bias[i], votes);
	}
	hmap__for_each(&c->cost, i, k, val) {
		const char *obj;
		uint64_t addr;
		size_t j;

		if (err)
			break;
		obj = c->obs.v[k[0]];
		addr = k[1] - bias[k[0]];
		if (unknown_object(obj)) {
			/* give it to the first known object whose code decodes there */
			for (j = 0; j < c->obs.nr; j++)
				if (!unknown_object(c->obs.v[j]) &&
				    ref_decode__insn_ok(c->obs.v[j], k[1] - bias[j]))
					break;
			if (j < c->obs.nr) {
				obj = c->obs.v[j];
				addr = k[1] - bias[j];
			}
		}
		err = ref_mix__add_ip(m, obj, addr, *(double *)val, NULL);
	}
	if (!err && nl)
		err = ref_mix__set_note(m, note);
	free(bias);
	return err;
}

int ref_callgrind__read(const char *path, struct ref_mix **out)
{
	static const char *const none[1] = { NULL };
	struct cg c = { .path = path, .ir = 0 };
	struct ref_mix *m = NULL;
	FILE *f;
	int err = ref_mix__fopen(path, "r", &f);

	if (err)
		return err;
	hmap__init(&c.obs.ids, 1, sizeof(uint64_t));
	hmap__init(&c.fns.ids, 1, sizeof(uint64_t));
	hmap__init(&c.cost, 2, sizeof(double));
	hmap__init(&c.entry, 2, sizeof(uint64_t));
	err = cg_parse(&c, f);
	fclose(f);
	if (!err && !c.npos)
		err = cg_err(&c, "no positions: line: not a callgrind profile", NULL);
	if (!err)
		err = ref_mix__new(path, "callgrind", none, 0, &m);
	if (!err)
		err = cg_build(&c, m);
	names_exit(&c.obs);
	names_exit(&c.fns);
	hmap__exit(&c.cost);
	hmap__exit(&c.entry);
	return ref_mix__finish(m, err, out);
}
