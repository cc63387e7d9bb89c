/* Reading and writing the hybrid-rule model file (format in hbbp/train/model.h).
 * Depends on util/hbbp_err.h only; never prints, never exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/train/model.h"
#include "util/hbbp_err.h"

#define MODEL_MAX_BYTES	(64 * 1024)
#define MODEL_MAX_LINE	256

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v < 1e9))
		return -1;
	*out = v;
	return 0;
}

int hbbp_model__load(const char *path, struct hbbp_model *m, char *err, size_t errlen)
{
	char line[MODEL_MAX_LINE + 2];
	unsigned long v, lineno = 0;
	size_t total = 0;
	int have_magic = 0, have_cutoff = 0, rc = 0;
	const char *badkey = "";
	FILE *f;

	memset(m, 0, sizeof(*m));
	m->error = m->error_default = -1;
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		char *key, *val, *sp;

		lineno++;
		total += n;
		if (total > MODEL_MAX_BYTES) {
			snprintf(err, errlen, "%s: larger than %d bytes", path, MODEL_MAX_BYTES);
			rc = -HBBP_ELIMIT;
			goto out;
		}
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		else if (!feof(f)) {
			snprintf(err, errlen, "%s:%lu: line longer than %d bytes", path, lineno,
				 MODEL_MAX_LINE);
			rc = -HBBP_EFORMAT;
			goto out;
		}
		if (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		key = line;
		sp = strchr(line, ' ');
		if (!sp)
			goto bad;
		*sp = 0;
		val = sp + 1;
		badkey = key;
		if (!have_magic) {
			if (strcmp(key, "hbbp-model") || strcmp(val, "1")) {
				snprintf(err, errlen, "%s:%lu: not an hbbp-model 1 file", path, lineno);
				rc = -HBBP_EFORMAT;
				goto out;
			}
			have_magic = 1;
		} else if (!strcmp(key, "cutoff")) {
			if (have_cutoff) {	/* which one would apply? neither silently */
				snprintf(err, errlen, "%s:%lu: a second 'cutoff' line", path, lineno);
				rc = -HBBP_EFORMAT;
				goto out;
			}
			if (parse_ulong(val, HBBP_MODEL_MAX_CUTOFF, &v))
				goto bad;
			m->cutoff = (unsigned)v;
			have_cutoff = 1;
		} else if (!strcmp(key, "runs")) {
			if (parse_ulong(val, (unsigned long)-1, &m->runs))
				goto bad;
		} else if (!strcmp(key, "blocks")) {
			if (parse_ulong(val, (unsigned long)-1, &m->blocks))
				goto bad;
		} else if (!strcmp(key, "lbr_closer")) {
			if (parse_ulong(val, (unsigned long)-1, &m->lbr_closer))
				goto bad;
		} else if (!strcmp(key, "error")) {
			if (parse_double(val, &m->error))
				goto bad;
		} else if (!strcmp(key, "error_default")) {
			if (parse_double(val, &m->error_default))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	} else if (!have_magic || !have_cutoff) {
		rc = -HBBP_EFORMAT;
		snprintf(err, errlen, "%s: %s", path,
			 have_magic ? "no 'cutoff' line" : "not an hbbp-model 1 file");
	}
out:
	fclose(f);
	return rc;
bad:
	snprintf(err, errlen, "%s:%lu: bad line '%s'", path, lineno, badkey);
	fclose(f);
	return -HBBP_EFORMAT;
}

int hbbp_model__text(const struct hbbp_model *m, char *buf, size_t size)
{
	char e[400] = "", d[400] = "";	/* any double */
	int n;

	if (m->error >= 0)
		snprintf(e, sizeof(e), "error %.4f\n", m->error);
	if (m->error_default >= 0)
		snprintf(d, sizeof(d), "error_default %.4f\n", m->error_default);
	n = snprintf(buf, size, "# hybrid rule learned by hbbp-convert train: LBR for blocks of "
		     "at most\n# 'cutoff' instructions, else EBS (format: hbbp/train/model.h)\n"
		     "hbbp-model 1\ncutoff %u\nruns %lu\nblocks %lu\nlbr_closer %lu\n%s%s",
		     m->cutoff, m->runs, m->blocks, m->lbr_closer, e, d);
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}
