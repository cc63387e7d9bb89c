/* User instruction taxonomy (see taxonomy.h): parsing of `group: patterns` lines and
 * first-match lookup with fnmatch(3). Knows nothing of ELF, disassembly or perf.data.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/taxonomy.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

#define MAX_FILE (1u << 20)

struct tax_rule {
	char *pattern;
	size_t group;
};

struct bbmap_taxonomy {
	char **groups;
	size_t nr_groups, cap_groups;
	struct tax_rule *rules;
	size_t nr_rules, cap_rules;
};

void bbmap_taxonomy__delete(struct bbmap_taxonomy *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_groups; i++)
		free(t->groups[i]);
	for (i = 0; i < t->nr_rules; i++)
		free(t->rules[i].pattern);
	free(t->groups);
	free(t->rules);
	free(t);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int add_line(struct bbmap_taxonomy *t, char *line, const char *name, unsigned lineno)
{
	char *colon, *group, *tok, *save = NULL;
	size_t g;

	colon = strchr(line, '#');
	if (colon)
		*colon = 0;
	line = trim(line);
	if (!*line)
		return 0;
	colon = strchr(line, ':');
	if (!colon) {
		pr_err("%s:%u: missing ':' after the group name", name, lineno);
		return -HBBP_EFORMAT;
	}
	*colon = 0;
	group = trim(line);
	if (!*group || strpbrk(group, " \t")) {
		pr_err("%s:%u: bad group name '%s'", name, lineno, group);
		return -HBBP_EFORMAT;
	}
	for (g = 0; g < t->nr_groups; g++)
		if (!strcmp(t->groups[g], group))
			break;
	if (g == t->nr_groups) {
		if (grow_one((void **)&t->groups, &t->cap_groups, sizeof(*t->groups), t->nr_groups))
			return -ENOMEM;
		t->groups[g] = strdup(group);
		if (!t->groups[g])
			return -ENOMEM;
		t->nr_groups++;
	}
	for (tok = strtok_r(colon + 1, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		if (grow_one((void **)&t->rules, &t->cap_rules, sizeof(*t->rules), t->nr_rules))
			return -ENOMEM;
		t->rules[t->nr_rules].pattern = strdup(tok);
		if (!t->rules[t->nr_rules].pattern)
			return -ENOMEM;
		t->rules[t->nr_rules].group = g;
		t->nr_rules++;
	}
	return 0;
}

int bbmap_taxonomy__parse(struct bbmap_taxonomy **out, const char *text, const char *name)
{
	struct bbmap_taxonomy *t = calloc(1, sizeof(*t));
	char *copy, *line, *next;
	unsigned lineno = 0;
	int err = 0;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	copy = strdup(text);
	if (!copy) {
		free(t);
		return -ENOMEM;
	}
	for (line = copy; line && !err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		err = add_line(t, line, name, ++lineno);
	}
	free(copy);
	if (err) {
		bbmap_taxonomy__delete(t);
		return err;
	}
	*out = t;
	return 0;
}

int bbmap_taxonomy__load(struct bbmap_taxonomy **out, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int err;

	*out = NULL;
	if (!f) {
		err = -errno;
		pr_err("%s: cannot open: %s", path, strerror(errno));
		return err == -ENOENT ? -HBBP_ENOTFOUND : err;
	}
	buf = malloc(MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, MAX_FILE + 1, f);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!err && n > MAX_FILE) {
		pr_err("%s: taxonomy file larger than %u bytes", path, MAX_FILE);
		err = -HBBP_ELIMIT;
	}
	if (!err && memchr(buf, 0, n)) {
		pr_err("%s: taxonomy file contains a NUL byte", path);
		err = -HBBP_EFORMAT;
	}
	if (!err) {
		buf[n] = 0;
		err = bbmap_taxonomy__parse(out, buf, path);
	}
	free(buf);
	return err;
}

const char *bbmap_taxonomy__group(const struct bbmap_taxonomy *t, const char *mnemonic)
{
	const char *last;
	size_t i;

	if (!t || !mnemonic)
		return "";
	last = strrchr(mnemonic, ' ');
	last = last ? last + 1 : mnemonic;
	for (i = 0; i < t->nr_rules; i++)
		if (!fnmatch(t->rules[i].pattern, mnemonic, FNM_CASEFOLD) ||
		    (last != mnemonic && !fnmatch(t->rules[i].pattern, last, FNM_CASEFOLD)))
			return t->groups[t->rules[i].group];
	return "";
}

size_t bbmap_taxonomy__nr_groups(const struct bbmap_taxonomy *t)
{
	return t ? t->nr_groups : 0;
}

const char *bbmap_taxonomy__group_name(const struct bbmap_taxonomy *t, size_t idx)
{
	return t && idx < t->nr_groups ? t->groups[idx] : NULL;
}
