/* libFuzzer target on the taxonomy parser (bbmap/taxonomy.c): parses the input as taxonomy
 * text and classifies a fixed set of mnemonics, plain, prefixed and of odd case, with it.
 * Depends only on bbmap/taxonomy.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/taxonomy.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const mn[] = {
		"add", "lock xadd", "rep movsb", "VADDPS", "divsd", "sqrtss", "jne", "", "ret",
		"vfmadd231pd", "lock cmpxchg16b", "*", "[", "notrap movsb",
	};
	struct bbmap_taxonomy *t;
	char *text = malloc(size + 1);
	size_t i, sink = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (!bbmap_taxonomy__parse(&t, text, "fuzz.tax")) {
		for (i = 0; i < sizeof(mn) / sizeof(mn[0]); i++)
			sink += strlen(bbmap_taxonomy__group(t, mn[i]));
		for (i = 0; i < bbmap_taxonomy__nr_groups(t); i++)
			sink += strlen(bbmap_taxonomy__group_name(t, i));
		bbmap_taxonomy__delete(t);
	}
	free(text);
	fuzz_sink += (uint64_t)sink;
	return 0;
}
