/* libFuzzer target on the model file parser (hbbp/train/model.c): loads the input as a model
 * file and, when it loads, writes it back and loads that again, which must give the same
 * model. Depends only on hbbp/train/model.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/train/model.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hbbp_model m, back;
	char err[512], text[1024];
	const char *path;

	path = fuzz_file(data, size);
	if (!path || hbbp_model__load(path, &m, err, sizeof(err)))
		return 0;
	if (hbbp_model__text(&m, text, sizeof(text)))
		abort();
	path = fuzz_file((const uint8_t *)text, strlen(text));
	if (!path || hbbp_model__load(path, &back, err, sizeof(err)) || back.cutoff != m.cutoff ||
	    back.runs != m.runs || back.blocks != m.blocks || back.lbr_closer != m.lbr_closer) {
		fprintf(stderr, "model written back does not load the same: %s\n%s", err, text);
		abort();
	}
	return 0;
}
