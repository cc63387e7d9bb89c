/* The HTML report (hbbp-convert report): one self-contained page from the report results of
 * one or more recordings (hbbp/pivot/report.h names their tables). Inline CSS, inline SVG
 * charts and a small inline script for sorting tables; no URL of any kind (no network, no
 * external file), so it opens from disk or as a mail attachment; everything but sorting
 * works without JavaScript. Numbers are also in data-* attributes (exact, 17 digits) so that
 * tests and scripts can read them back from the page.
 * Depends only on writers/result.h and libc (writers/outfile.h for the atomic write).
 */
#ifndef WRITERS_HTML_REPORT_H
#define WRITERS_HTML_REPORT_H

#include <stddef.h>

#include "writers/result.h"

/* Writes the page for runs[0..nr) (names[i]: the heading of run i) to path ("-": stdout),
 * atomically as the other writers do. 0 or a negative errno. */
int html_report__write(const char *path, const struct result *const *runs,
		       const char *const *names, size_t nr);

#endif
