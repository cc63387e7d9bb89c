/* C++ symbol demangling without linking C++: libstdc++'s __cxa_demangle is looked up with
 * dlopen/dlsym when the module is opened. Where libstdc++ is not installed, names stay
 * mangled. Knows nothing of ELF or perf.data.
 */
#include <dlfcn.h>
#include <stdlib.h>

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
	return d;
}
