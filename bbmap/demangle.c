/* C++ symbol demangling without linking C++: libstdc++'s __cxa_demangle is looked up with
 * dlopen/dlsym when the module is opened. Where libstdc++ is not installed, names stay
 * mangled. Knows nothing of ELF or perf.data.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"

void mod_demangle__init(struct bbmap_module *m)
{
	m->demangler = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!m->demangler)
		return;
	*(void **)&m->cxa_demangle = dlsym(m->demangler, "__cxa_demangle");
	if (!m->cxa_demangle) {
		dlclose(m->demangler);
		m->demangler = NULL;
	}
}

void mod_demangle__exit(struct bbmap_module *m)
{
	if (m->demangler)
		dlclose(m->demangler);
	m->demangler = NULL;
	m->cxa_demangle = NULL;
}

/* Ends d at the first " [clone " (GCC's clone suffixes: ".isra.0", ".constprop.0", ...). */
static size_t short__no_clones(char *d)
{
	char *c = strstr(d, " [clone ");

	if (c)
		*c = 0;
	return strlen(d);
}

/* A template function's name carries its return type first ("void ns::f<int>"): what
 * stands before the last blank outside <>, () and {} goes. Only template names (ending in
 * '>') encode a return type; "operator" names are left whole. */
static void short__no_return_type(char *d, size_t n)
{
	size_t i, cut = 0;
	int depth = 0;

	if (!n || d[n - 1] != '>' || strstr(d, "operator"))
		return;
	for (i = 0; i < n; i++) {
		if (d[i] == '<' || d[i] == '(' || d[i] == '{')
			depth++;
		else if (d[i] == '>' || d[i] == ')' || d[i] == '}')
			depth--;
		else if (d[i] == ' ' && depth == 0)
			cut = i + 1;
	}
	if (cut)
		memmove(d, d + cut, n - cut + 1);
}

/* As perf report prints a demangled name (libiberty without DMGL_PARAMS): "void
 * ns::f<int>(unsigned int) const [clone .isra.0]" -> "ns::f<int>": clone suffixes, the
 * qualifiers after the parameter list, the list (matched back from its last ')') and a
 * template's return type go; "operator()" stays. */
static void mod_demangle__short(char *d)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	size_t n = short__no_clones(d), i;
	bool again = true;
	int depth = 0;

	while (again) {
		again = false;
		for (i = 0; i < sizeof(quals) / sizeof(quals[0]); i++) {
			size_t q = strlen(quals[i]);

			if (n > q && !strcmp(d + n - q, quals[i])) {
				n -= q;
				d[n] = 0;
				again = true;
			}
		}
	}
	if (!n || d[n - 1] != ')')
		return;
	for (i = n; i-- > 0;) {
		if (d[i] == ')')
			depth++;
		else if (d[i] == '(' && --depth == 0) {
			if (i) {	/* "(anonymous namespace)" alone stays */
				d[i] = 0;
				short__no_return_type(d, i);
			}
			return;
		}
	}
}

char *mod_demangle(struct bbmap_module *m, const char *name)
{
	int status = -1;
	char *d;

	if (!m->cxa_demangle)
		return NULL;
	d = m->cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	if (m->demangle_flags & BBMAP_MODULE_DEMANGLE_SHORT)
		mod_demangle__short(d);
	return d;
}
