/* The self-contained HTML report (see writers/html_report.h). The page (its size bounded by
 * the report's tables, not by the recording) is written through the writers' buffered
 * output (writers/wbuf.c) into the atomic output file of writers/outfile.h. Text from the
 * recording is escaped for HTML, and a '/' after '/' or ':' is written as &#47;, so that no
 * URL (nor "//") can appear in the page whatever the recording holds.
 * Depends only on writers/result.h, writers/writer_int.h, writers/outfile.h and libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writers/html_report.h"
#include "writers/outfile.h"
#include "writers/writer_int.h"
#include "util/grow.h"

/* ---- cells ---- */

/* the cell of column col in row, NULL when t has no such column */
static const struct result_cell *cell(const struct result_table *t, size_t row, const char *col)
{
	int c = t ? result_table__col(t, col) : -1;

	return c < 0 ? NULL : &result_table__row(t, row)[c];
}

static double num(const struct result_table *t, size_t row, const char *col)
{
	return result_cell__num(cell(t, row, col));
}

static const char *text(const struct result_table *t, size_t row, const char *col)
{
	const struct result_cell *v = cell(t, row, col);

	return v && v->type == RES_TEXT ? v->s : NULL;
}

/* a key cell as text (width and pid are integers) */
static const char *key_text(const struct result_table *t, size_t row, const char *col,
			    char *buf, size_t size)
{
	const struct result_cell *v = cell(t, row, col);

	buf[0] = 0;
	if (v && v->type == RES_TEXT)
		return v->s;
	if (v && v->type == RES_INT)
		snprintf(buf, size, "%" PRId64, v->i);
	return buf;
}

static const struct result_kv *meta(const struct result *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nr_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return &r->meta[i];
	return NULL;
}

/* ---- output ---- */

static void esc(struct wbuf *f, const char *s)
{
	char prev = 0;

	for (; s && *s; prev = *s++) {
		switch (*s) {
		case '&': wbuf__puts(f, "&amp;"); break;
		case '<': wbuf__puts(f, "&lt;"); break;
		case '>': wbuf__puts(f, "&gt;"); break;
		case '"': wbuf__puts(f, "&quot;"); break;
		case '\'': wbuf__puts(f, "&#39;"); break;
		case '/':
			if (prev == '/' || prev == ':')
				wbuf__puts(f, "&#47;");
			else
				wbuf__putc(f, '/');
			break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
				wbuf__putc(f, '?');
			else
				wbuf__putc(f, *s);
		}
	}
}

/* an exact number for a data-* attribute; "" for NaN */
static void dnum(struct wbuf *f, const char *name, double v)
{
	if (isfinite(v))
		wbuf__printf(f, " data-%s=\"%.17g\"", name, v);
	else
		wbuf__printf(f, " data-%s=\"\"", name);
}

static void fmt_count(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else if (fabs(v) >= 1e9)
		snprintf(buf, size, "%.3fG", v / 1e9);
	else if (fabs(v) >= 1e6)
		snprintf(buf, size, "%.3fM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
}

static const char *const palette[] = { "#3366cc", "#dc7633", "#2e9e5b", "#8e44ad", "#c0392b",
				       "#16a085" };
#define NR_PALETTE (sizeof(palette) / sizeof(palette[0]))

static const char style[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1200px}"
"h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;margin-top:2em}"
"h3{margin-top:1.5em}table{border-collapse:collapse;margin:.5em 0}"
"td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}"
"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
"th{background:#f4f4f4}table.sortable th{cursor:pointer}"
"th[data-sort=asc]:after{content:' \\25b2'}th[data-sort=desc]:after{content:' \\25bc'}"
"table.kv th{font-weight:normal;color:#555;background:none}"
".warn{color:#a04000}.note{color:#666;font-size:.9em}"
".charts{display:flex;flex-wrap:wrap;gap:1em}.chart{border:1px solid #ddd;padding:.5em}"
".chart h4{margin:.2em 0}svg text{font:11px sans-serif;fill:#222}"
"svg .whisker{stroke:#000;stroke-width:1}svg text.cycles{font-size:9px;fill:#a04000}"
"table.asm{font:12px/1.3 ui-monospace,monospace}table.asm td{border:0;padding:0 6px}"
"table.asm tr.blk td{border-top:1px solid #99b;color:#336;padding-top:4px}"
"table.asm tr.src td{color:#2a5db0}details{margin:.4em 0}summary{cursor:pointer}"
"code{font:12px ui-monospace,monospace}";

/* Sorting by a click on a column heading: numbers by their data-v, text otherwise; then
 * marks <html> with data-js="ready" and data-load-ms (milliseconds from the start of the
 * navigation to the end of the page's parsing: how long the page takes to open). Written
 * without comments and without any "//". */
static const char script[] =
"(function(){"
"function val(td){var v=td.getAttribute('data-v');return v===null?td.textContent:parseFloat(v);}"
"var ts=document.querySelectorAll('table.sortable');"
"for(var i=0;i<ts.length;i++)(function(t){"
"if(!t.tHead)return;var hs=t.tHead.rows[0].cells;"
"for(var j=0;j<hs.length;j++)(function(h,j){"
"h.addEventListener('click',function(){"
"var asc=h.getAttribute('data-sort')!=='asc';"
"for(var k=0;k<hs.length;k++)hs[k].removeAttribute('data-sort');"
"h.setAttribute('data-sort',asc?'asc':'desc');"
"var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);"
"rs.sort(function(x,y){var a=val(x.cells[j]),c=val(y.cells[j]);"
"var r=(typeof a==='number'&&typeof c==='number')?(isNaN(a)?-1:isNaN(c)?1:a-c):"
"String(a).localeCompare(String(c));return asc?r:-r;});"
"for(var k=0;k<rs.length;k++)b.appendChild(rs[k]);});"
"})(hs[j],j);"
"})(ts[i]);"
"var de=document.documentElement;de.setAttribute('data-js','ready');"
"if(window.performance)de.setAttribute('data-load-ms',String(Math.round(performance.now())));"
"})();";

/* ---- charts ---- */

#define BAR_H		16
#define LABEL_W		150
#define PLOT_W		260
#define VALUE_W		70
#define CYC_H		10	/* the cycles bar and its gap, with cycles */

/* The unit of a run's counts (its metadata's count_unit): instructions, or ns, cycles, ... */
static const char *count_unit(const struct result *r)
{
	const struct result_kv *u = meta(r, "count_unit");

	return u && u->val.type == RES_TEXT && u->val.s ? u->val.s : "instructions";
}

/* Whether table t has cycles (docs/METHOD-cycles.md): some row's cycles share. */
static bool has_cycles(const struct result_table *t)
{
	size_t i;

	for (i = 0; t && i < t->nr_rows; i++)
		if (isfinite(num(t, i, "cycles_share")))
			return true;
	return false;
}

/* A horizontal bar chart of table t (key column key): bar = share, whisker = interval; the
 * counts in unit. With cycles, a thin bar under each: its share of the cycles (same scale). */
static void bar_chart(struct wbuf *f, const char *title, const char *chart, const struct result_table *t,
		      const char *key, double total, const char *unit)
{
	size_t i, n = t ? t->nr_rows : 0, row_h = BAR_H + 4 + (has_cycles(t) ? CYC_H : 0);
	double max = 0;

	for (i = 0; i < n; i++) {
		double hi = num(t, i, "count_hi"), c = num(t, i, "count");
		double cy = num(t, i, "cycles_share") * total;

		if (isfinite(c) && c > max)
			max = c;
		if (isfinite(hi) && hi > max)
			max = hi;
		if (isfinite(cy) && cy > max)
			max = cy;
	}
	wbuf__printf(f, "<div class=\"chart\"><h4>");
	esc(f, title);
	wbuf__printf(f, "</h4>\n<svg width=\"%d\" height=\"%zu\" role=\"img\" data-chart=\"%s\">\n",
		LABEL_W + PLOT_W + VALUE_W, n * row_h + 4, chart);
	for (i = 0; i < n; i++) {
		double c = num(t, i, "count"), lo = num(t, i, "count_lo"), hi = num(t, i, "count_hi");
		double share = total > 0 ? c / total : 0, cs_share = num(t, i, "cycles_share");
		double w = max > 0 ? PLOT_W * c / max : 0;
		size_t y = i * row_h + 2;
		char kb[32], cs[32];
		const char *k = key_text(t, i, key, kb, sizeof(kb));

		wbuf__printf(f, "<g class=\"bar\" data-chart=\"%s\" data-key=\"", chart);
		esc(f, k);
		wbuf__putc(f, '"');
		dnum(f, "count", c);
		dnum(f, "lo", lo);
		dnum(f, "hi", hi);
		dnum(f, "share", share);
		if (row_h > BAR_H + 4)
			dnum(f, "cycles-share", cs_share);
		wbuf__printf(f, "><title>");
		esc(f, *k ? k : "(none)");
		fmt_count(cs, sizeof(cs), c);
		wbuf__printf(f, ": %s %s, %.2f%%", cs, unit, 100 * share);
		if (isfinite(lo) && isfinite(hi))
			wbuf__printf(f, ", 95%% interval [%.0f, %.0f]", lo, hi);
		if (isfinite(cs_share))
			wbuf__printf(f, "; %.2f%% of the cycles, IPC %.2f", 100 * cs_share,
				     num(t, i, "ipc"));
		wbuf__printf(f, "</title><text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", LABEL_W - 4,
			y + BAR_H - 4);
		esc(f, *k ? k : "(none)");
		wbuf__printf(f, "</text><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			LABEL_W, y, w, BAR_H, palette[0]);
		if (isfinite(lo) && isfinite(hi) && max > 0) {
			double x1 = LABEL_W + PLOT_W * lo / max, x2 = LABEL_W + PLOT_W * hi / max;
			size_t ym = y + BAR_H / 2;

			wbuf__printf(f, "<path class=\"whisker\" d=\"M%.1f %zuH%.1fM%.1f %zuV%zuM%.1f %zuV%zu\"/>",
				x1, ym, x2, x1, ym - 4, ym + 4, x2, ym - 4, ym + 4);
		}
		if (isfinite(cs_share) && max > 0)
			wbuf__printf(f, "<rect class=\"cycles\" x=\"%d\" y=\"%zu\" width=\"%.1f\" "
				"height=\"%d\" fill=\"%s\"/><text class=\"cycles\" x=\"%d\" y=\"%zu\">"
				"%.2f%%</text>", LABEL_W, y + BAR_H + 1, PLOT_W * cs_share * total / max,
				CYC_H - 2, palette[1], LABEL_W + PLOT_W + 4, y + BAR_H + CYC_H,
				100 * cs_share);
		wbuf__printf(f, "<text x=\"%d\" y=\"%zu\">%.2f%%</text></g>\n", LABEL_W + PLOT_W + 4,
			y + BAR_H - 4, 100 * share);
	}
	wbuf__printf(f, "</svg></div>\n");
}

static double table_total(const struct result_table *t)
{
	double s = 0, v;
	size_t i;

	for (i = 0; t && i < t->nr_rows; i++)
		if (isfinite(v = num(t, i, "count")))
			s += v;
	return s;
}

/* Grouped bars, one group per key (in the first run's order, then new keys), one bar per
 * run: the share of each run. */
static void compare_chart(struct wbuf *f, const char *title, const char *tname, const char *key,
			  const struct result *const *runs, size_t nr, const char *const *names)
{
	const char **keys = NULL;
	size_t nk = 0, cap = 0, i, r, j;
	size_t gh = nr * (BAR_H - 4) + 8;
	double smax = 0;

	for (r = 0; r < nr; r++) {
		const struct result_table *t = result__table(runs[r], tname);

		for (i = 0; t && i < t->nr_rows; i++) {
			char kb[32];
			const char *k = key_text(t, i, key, kb, sizeof(kb));
			bool seen = false;

			for (j = 0; j < nk && !seen; j++)
				seen = !strcmp(keys[j], k);
			if (seen)
				continue;
			if (grow_one((void **)&keys, &cap, sizeof(*keys), nk))
				goto out;
			keys[nk] = strdup(k);
			if (!keys[nk])
				goto out;
			nk++;
		}
	}
	for (r = 0; r < nr; r++) {
		const struct result_table *t = result__table(runs[r], tname);
		double total = table_total(t);

		for (i = 0; t && i < t->nr_rows && total > 0; i++) {
			double hi = num(t, i, "count_hi"), c = num(t, i, "count");

			if (isfinite(c) && c / total > smax)
				smax = c / total;
			if (isfinite(hi) && hi / total > smax)
				smax = hi / total;
		}
	}
	if (!(smax > 0))
		smax = 1;
	wbuf__printf(f, "<div class=\"chart\"><h4>");
	esc(f, title);
	wbuf__printf(f, "</h4><p class=\"note\">");
	for (r = 0; r < nr; r++) {
		wbuf__printf(f, "<span style=\"color:%s\">&#9632;</span> ", palette[r % NR_PALETTE]);
		esc(f, names[r]);
		wbuf__puts(f, r + 1 < nr ? " &nbsp; " : "");
	}
	wbuf__printf(f, "</p>\n<svg width=\"%d\" height=\"%zu\" role=\"img\" data-chart=\"compare-%s\">\n",
		LABEL_W + PLOT_W + VALUE_W, nk * gh + 4, tname);
	for (j = 0; j < nk; j++) {
		size_t y = j * gh + 2;

		wbuf__printf(f, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", LABEL_W - 4,
			y + gh / 2 + 3);
		esc(f, *keys[j] ? keys[j] : "(none)");
		wbuf__printf(f, "</text>\n");
		for (r = 0; r < nr; r++) {
			const struct result_table *t = result__table(runs[r], tname);
			double total = table_total(t), c = 0, lo = NAN, hi = NAN, share;
			size_t yy = y + r * (BAR_H - 4);

			for (i = 0; t && i < t->nr_rows; i++) {
				char kb[32];

				if (!strcmp(key_text(t, i, key, kb, sizeof(kb)), keys[j])) {
					c = num(t, i, "count");
					lo = num(t, i, "count_lo");
					hi = num(t, i, "count_hi");
					break;
				}
			}
			share = total > 0 ? c / total : 0;
			wbuf__printf(f, "<g class=\"cbar\" data-chart=\"compare-%s\" data-run=\"%zu\" "
				"data-key=\"", tname, r);
			esc(f, keys[j]);
			wbuf__putc(f, '"');
			dnum(f, "share", share);
			dnum(f, "lo", total > 0 ? lo / total : NAN);
			dnum(f, "hi", total > 0 ? hi / total : NAN);
			wbuf__printf(f, "><title>");
			esc(f, names[r]);
			wbuf__printf(f, ": %.2f%%</title><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" "
				"height=\"%d\" fill=\"%s\"/>", 100 * share, LABEL_W, yy,
				PLOT_W * share / smax, BAR_H - 5, palette[r % NR_PALETTE]);
			if (isfinite(lo) && isfinite(hi) && total > 0) {
				double x1 = LABEL_W + PLOT_W * lo / total / smax;
				double x2 = LABEL_W + PLOT_W * hi / total / smax;
				size_t ym = yy + (BAR_H - 5) / 2;

				wbuf__printf(f, "<path class=\"whisker\" d=\"M%.1f %zuH%.1f\"/>", x1, ym, x2);
			}
			wbuf__printf(f, "<text x=\"%.1f\" y=\"%zu\">%.1f%%</text></g>\n",
				LABEL_W + PLOT_W * share / smax + 4, yy + BAR_H - 6, 100 * share);
		}
	}
	wbuf__printf(f, "</svg></div>\n");
out:
	for (j = 0; j < nk; j++)
		free((void *)keys[j]);
	free(keys);
}

/* ---- tables ---- */

static void kv_row(struct wbuf *f, const struct result *r, const char *key, const char *label)
{
	const struct result_kv *kv = meta(r, key);

	if (!kv || kv->val.type == RES_NULL)
		return;
	wbuf__printf(f, "<tr><th>");
	esc(f, label);
	wbuf__printf(f, "</th><td>");
	if (kv->val.type == RES_TEXT)
		esc(f, kv->val.s);
	else if (kv->val.type == RES_INT)
		wbuf__printf(f, "%" PRId64, kv->val.i);
	else
		wbuf__printf(f, "%.6g", kv->val.d);
	wbuf__printf(f, "</td></tr>\n");
}

static void recording(struct wbuf *f, const struct result *r)
{
	static const char *const keys[][2] = {
		{ "file", "file" }, { "hostname", "host" }, { "cpudesc", "CPU" },
		{ "perf_version", "perf version" }, { "cmdline", "command line" },
		{ "events", "events (name=role/period)" }, { "method", "method" },
		{ "method_requested", "method requested" }, { "cutoff", "cutoff (block length)" },
		{ "ebs_samples_used", "EBS samples used" }, { "lbr_samples_used", "LBR samples used" },
		{ "lbr_streams", "LBR streams" }, { "lost_records", "LOST records" },
		{ "lost_samples", "lost samples" }, { "throttled", "THROTTLE records" },
		{ "unresolved_ebs_weight", "unresolved EBS weight" },
		{ "unresolved_lbr_weight", "unresolved LBR weight" },
		{ "biased_branches", "biased branches" },
	};
	const struct result_table *ev = result__table(r, "events");
	const struct result_table *un = result__table(r, "unresolved");
	size_t i;

	wbuf__printf(f, "<h3>Recording</h3>\n<table class=\"kv\">\n");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		kv_row(f, r, keys[i][0], keys[i][1]);
	wbuf__printf(f, "</table>\n");
	if (ev && ev->nr_rows) {
		wbuf__printf(f, "<table class=\"sortable\" data-table=\"events\"><thead><tr><th>event</th>"
			"<th>role</th><th class=\"n\">samples</th><th class=\"n\">lost</th>"
			"<th class=\"n\">throttled</th><th class=\"n\">period</th><th>why</th>"
			"</tr></thead><tbody>\n");
		for (i = 0; i < ev->nr_rows; i++) {
			wbuf__printf(f, "<tr><td>");
			esc(f, text(ev, i, "name"));
			wbuf__printf(f, "</td><td>");
			esc(f, text(ev, i, "role"));
			wbuf__printf(f, "</td><td class=\"n\" data-v=\"%.17g\">%.0f</td>"
				"<td class=\"n\" data-v=\"%.17g\">%.0f</td>"
				"<td class=\"n\" data-v=\"%.17g\">%.0f</td>"
				"<td class=\"n\" data-v=\"%.17g\">%s%.0f</td><td>",
				num(ev, i, "samples"), num(ev, i, "samples"), num(ev, i, "lost"),
				num(ev, i, "lost"), num(ev, i, "throttled"), num(ev, i, "throttled"),
				num(ev, i, "period"), num(ev, i, "freq") > 0 ? "freq " : "",
				num(ev, i, "period"));
			esc(f, text(ev, i, "role_reason"));
			wbuf__printf(f, "</td></tr>\n");
		}
		wbuf__printf(f, "</tbody></table>\n");
	}
	if (un && un->nr_rows) {
		wbuf__printf(f, "<h4>Weight that reached no code, by module</h4>\n"
			"<table class=\"sortable\" data-table=\"unresolved\"><thead><tr>"
			"<th>module</th><th class=\"n\">EBS weight</th><th class=\"n\">LBR weight</th>"
			"</tr></thead><tbody>\n");
		for (i = 0; i < un->nr_rows; i++) {
			wbuf__printf(f, "<tr><td>");
			esc(f, text(un, i, "module"));
			wbuf__printf(f, "</td><td class=\"n\" data-v=\"%.17g\">%.0f</td>"
				"<td class=\"n\" data-v=\"%.17g\">%.0f</td></tr>\n",
				num(un, i, "ebs_weight"), num(un, i, "ebs_weight"),
				num(un, i, "lbr_weight"), num(un, i, "lbr_weight"));
		}
		wbuf__printf(f, "</tbody></table>\n");
	}
	if (r->nr_warnings) {
		wbuf__printf(f, "<h4>Warnings</h4><ul class=\"warn\">\n");
		for (i = 0; i < r->nr_warnings; i++) {
			wbuf__printf(f, "<li>");
			esc(f, r->warnings[i]);
			wbuf__printf(f, "</li>\n");
		}
		wbuf__printf(f, "</ul>\n");
	}
}

static void interval_cell(struct wbuf *f, double lo, double hi)
{
	if (isfinite(lo) && isfinite(hi))
		wbuf__printf(f, "<td class=\"n\" data-v=\"%.17g\">[%.0f, %.0f]</td>", lo, lo, hi);
	else
		wbuf__printf(f, "<td class=\"n\">n/a</td>");
}

/* the colour of a category: its rank in the run's mix by category */
static const char *cat_colour(const struct result_table *cat, const char *name)
{
	static const char *const more[] = { "#3366cc", "#dc7633", "#2e9e5b", "#8e44ad", "#c0392b",
					    "#16a085", "#d4ac0d", "#7f8c8d", "#e84393", "#2c3e50",
					    "#a3cb38", "#6f1e51" };
	size_t i;

	for (i = 0; cat && name && i < cat->nr_rows; i++) {
		const char *k = text(cat, i, "category");

		if (k && !strcmp(k, name))
			return more[i % (sizeof(more) / sizeof(more[0]))];
	}
	return "#999999";
}

/* the category mix of one function as a stacked bar */
static void function_mix(struct wbuf *f, const struct result_table *fm, const struct result_table *cats,
			 const char *mod, const char *sym)
{
	double total = 0, x = 0;
	size_t i;

	for (i = 0; fm && i < fm->nr_rows; i++) {
		const char *m = text(fm, i, "module"), *s = text(fm, i, "symbol");

		if (m && s && !strcmp(m, mod) && !strcmp(s, sym))
			total += num(fm, i, "count");
	}
	wbuf__printf(f, "<svg width=\"200\" height=\"12\" role=\"img\">");
	for (i = 0; fm && i < fm->nr_rows && total > 0; i++) {
		const char *m = text(fm, i, "module"), *s = text(fm, i, "symbol");
		const char *cat = text(fm, i, "category");
		double w;

		if (!m || !s || strcmp(m, mod) || strcmp(s, sym))
			continue;
		w = 200 * num(fm, i, "count") / total;
		wbuf__printf(f, "<rect class=\"fmix\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"12\" "
			"fill=\"%s\" data-key=\"", x, w, cat_colour(cats, cat));
		esc(f, cat);
		wbuf__putc(f, '"');
		dnum(f, "count", num(fm, i, "count"));
		wbuf__printf(f, "><title>");
		esc(f, cat && *cat ? cat : "(none)");
		wbuf__printf(f, " %.1f%%</title></rect>", 100 * num(fm, i, "count") / total);
		x += w;
	}
	wbuf__printf(f, "</svg>");
}

static void functions(struct wbuf *f, const struct result *r, double total)
{
	const char *unit = count_unit(r);
	const struct result_table *fn = result__table(r, "functions");
	const struct result_table *fm = result__table(r, "function_mix");
	bool cyc = has_cycles(fn);
	size_t i;

	if (!fn)
		return;
	wbuf__printf(f, "<h3>Hot functions</h3>\n<table class=\"sortable\" data-table=\"functions\">"
		"<thead><tr><th>module</th><th>function</th><th class=\"n\">%s</th>"
		"<th class=\"n\">share</th><th class=\"n\">95%% interval</th>%s<th>mix by category"
		"</th></tr></thead><tbody>\n", unit, cyc ? "<th class=\"n\">cycles share</th>"
		"<th class=\"n\">IPC</th>" : "");
	for (i = 0; i < fn->nr_rows; i++) {
		const char *m = text(fn, i, "module"), *s = text(fn, i, "symbol");
		double c = num(fn, i, "count");
		char cs[32];

		fmt_count(cs, sizeof(cs), c);
		wbuf__printf(f, "<tr data-module=\"");
		esc(f, m);
		wbuf__printf(f, "\" data-symbol=\"");
		esc(f, s);
		wbuf__putc(f, '"');
		dnum(f, "count", c);
		wbuf__printf(f, "><td>");
		esc(f, m);
		wbuf__printf(f, "</td><td><code>");
		esc(f, s);
		wbuf__printf(f, "</code></td><td class=\"n\" data-v=\"%.17g\">%s</td>"
			"<td class=\"n\" data-v=\"%.17g\">%.2f%%</td>", c, cs,
			total > 0 ? c / total : 0, total > 0 ? 100 * c / total : 0);
		interval_cell(f, num(fn, i, "count_lo"), num(fn, i, "count_hi"));
		if (cyc) {
			double cyc_s = num(fn, i, "cycles_share"), ipc = num(fn, i, "ipc");

			if (isfinite(cyc_s))
				wbuf__printf(f, "<td class=\"n\" data-v=\"%.17g\">%.2f%%</td>"
					"<td class=\"n\" data-v=\"%.17g\">%.2f</td>", cyc_s, 100 * cyc_s,
					ipc, ipc);
			else
				wbuf__printf(f, "<td class=\"n\">n/a</td><td class=\"n\">n/a</td>");
		}
		wbuf__printf(f, "<td>");
		if (m && s)
			function_mix(f, fm, result__table(r, "by_category"), m, s);
		wbuf__printf(f, "</td></tr>\n");
	}
	wbuf__printf(f, "</tbody></table>\n");
}

static const char *basename_of(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s && s[1] ? s + 1 : p ? p : "";
}

static void listings(struct wbuf *f, const struct result *r)
{
	const struct result_table *a = result__table(r, "annotate");
	size_t i = 0;

	if (!a || !a->nr_rows)
		return;
	wbuf__printf(f, "<h3>Annotated listings</h3>\n<p class=\"note\">Each instruction's estimated "
		"count (every instruction of a block runs as often as the block), share of the "
		"function and 95%% interval; a line above each block gives the source of its "
		"count (lbr, ebs or a fallback) and \"biased\" where the LBR entry bias was detected. "
		"Heat: count relative to the "
		"function's hottest instruction.</p>\n");
	while (i < a->nr_rows) {
		const char *mod = text(a, i, "module"), *sym = text(a, i, "symbol");
		size_t j, end = i;
		double total = 0, max = 0;
		const char *prev_src = NULL;

		while (end < a->nr_rows && !strcmp(text(a, end, "module") ? text(a, end, "module") : "",
						  mod ? mod : "") &&
		       !strcmp(text(a, end, "symbol") ? text(a, end, "symbol") : "", sym ? sym : "")) {
			double c = num(a, end, "count");

			total += c;
			if (c > max)
				max = c;
			end++;
		}
		if (end == i)
			end = i + 1;
		wbuf__printf(f, "<details%s data-symbol=\"", i ? "" : " open");
		esc(f, sym);
		wbuf__printf(f, "\"><summary><code>");
		esc(f, sym);
		wbuf__printf(f, "</code> (");
		esc(f, mod);
		wbuf__printf(f, "): %zu listing rows</summary>\n<table class=\"asm\">"
			"<thead><tr><th class=\"n\">count</th><th class=\"n\">share</th>"
			"<th class=\"n\">95%% interval</th><th class=\"n\">address</th>"
			"<th>instruction</th></tr></thead><tbody>\n", end - i);
		for (j = i; j < end; j++) {
			const char *blk = text(a, j, "block"), *src = text(a, j, "srcline");
			const char *addr = text(a, j, "address"), *plus = blk ? strrchr(blk, '+') : NULL;
			double c = num(a, j, "count"), heat = max > 0 ? c / max : 0;

			if (plus && addr && !strcmp(plus + 1, addr)) {
				const char *s = text(a, j, "source");

				wbuf__printf(f, "<tr class=\"blk\"><td colspan=\"5\">block ");
				esc(f, addr);
				wbuf__printf(f, ": ");
				esc(f, s && *s ? s : "no source");
				if (num(a, j, "biased") > 0)
					wbuf__printf(f, ", <span class=\"warn\">biased</span>");
				if (isfinite(num(a, j, "block_cycles")) && c > 0)
					wbuf__printf(f, ", %.4g cycles/execution, IPC %.3g",
						     num(a, j, "block_cycles") / c,
						     num(a, j, "block_ipc"));
				wbuf__printf(f, "</td></tr>\n");
			}
			if (src && *src && (!prev_src || strcmp(src, prev_src))) {
				wbuf__printf(f, "<tr class=\"src\"><td colspan=\"5\">");
				esc(f, basename_of(src));
				wbuf__printf(f, "</td></tr>\n");
				prev_src = src;
			}
			wbuf__printf(f, "<tr class=\"insn\" style=\"background:rgba(230,60,30,%.2f)\"",
				0.6 * heat);
			dnum(f, "count", c);
			wbuf__printf(f, "><td class=\"n\">%.0f</td><td class=\"n\">%.2f%%</td>", c,
				total > 0 ? 100 * c / total : 0);
			interval_cell(f, num(a, j, "count_lo"), num(a, j, "count_hi"));
			wbuf__printf(f, "<td class=\"n\">");
			esc(f, addr);
			wbuf__printf(f, "</td><td>");
			esc(f, text(a, j, "instruction"));
			wbuf__printf(f, "</td></tr>\n");
		}
		wbuf__printf(f, "</tbody></table></details>\n");
		i = end;
	}
}

static void run_section(struct wbuf *f, const struct result *r, const char *name, size_t idx)
{
	const struct result_table *cat = result__table(r, "by_category");
	double total = table_total(cat);
	const char *unit = count_unit(r);
	char cs[32];

	wbuf__printf(f, "<section class=\"run\" id=\"run%zu\" data-total=\"%.17g\"><h2>", idx, total);
	esc(f, name);
	fmt_count(cs, sizeof(cs), total);
	wbuf__printf(f, "</h2>\n<p>%s %s estimated.</p>\n", cs, unit);
	recording(f, r);
	wbuf__printf(f, "<h3>Instruction mix</h3>\n<p class=\"note\">Bars: share of the total; "
		"whiskers: the 95%% interval (sampling noise only)%s.</p>\n<div class=\"charts\">\n",
		has_cycles(cat) ? "; thin orange bars: share of the cycles, from the branch "
		"records' cycle counts: measured per block and function, spread evenly over a "
		"block's instructions, so a slow instruction shows its neighbours' cost here" : "");
	bar_chart(f, "by category", "category", cat, "category", total, unit);
	bar_chart(f, "by ISA extension", "isa", result__table(r, "by_isa"), "isa", total, unit);
	bar_chart(f, "by vector width (bits)", "width", result__table(r, "by_width"), "width",
		  total, unit);
	bar_chart(f, "by mnemonic", "mnemonic", result__table(r, "by_mnemonic"), "mnemonic", total,
		  unit);
	wbuf__printf(f, "</div>\n");
	functions(f, r, total);
	listings(f, r);
	wbuf__printf(f, "</section>\n");
}

static void page(struct wbuf *f, const struct result *const *runs, const char *const *names, size_t nr)
{
	const struct result_kv *tf = nr ? meta(runs[0], "report_top_functions") : NULL;
	const struct result_kv *ti = nr ? meta(runs[0], "report_top_insns") : NULL;
	const struct result_kv *tm = nr ? meta(runs[0], "report_top_mnemonics") : NULL;
	size_t i;

	wbuf__printf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>Instruction mix report</title>\n<style>%s</style></head>\n<body>\n"
		"<h1>Instruction mix report</h1>\n<p class=\"note\">hbbp-convert: execution counts "
		"estimated from samples (Hybrid Basic Block Profiling), %zu recording%s. ", style, nr,
		nr == 1 ? "" : "s");
	if (tf && ti && tm)
		wbuf__printf(f, "The page is bounded: the %" PRId64 " hottest functions with at most %"
			PRId64 " listing rows each, the %" PRId64 " most frequent mnemonics (the "
			"rest as one row). ", tf->val.i, ti->val.i, tm->val.i);
	wbuf__printf(f, "Click a column heading to sort.</p>\n");
	if (nr > 1) {
		wbuf__printf(f, "<section id=\"compare\"><h2>Side by side</h2>\n<div class=\"charts\">\n");
		compare_chart(f, "share by category", "by_category", "category", runs, nr, names);
		compare_chart(f, "share by ISA extension", "by_isa", "isa", runs, nr, names);
		wbuf__printf(f, "</div></section>\n");
	}
	for (i = 0; i < nr; i++)
		run_section(f, runs[i], names[i], i);
	wbuf__printf(f, "<script>%s</script>\n</body></html>\n", script);
}

/* The page into fd through out. */
static int emit(struct wbuf *out, int fd, const struct result *const *runs,
		const char *const *names, size_t nr)
{
	wbuf__init(out, fd);
	page(out, runs, names, nr);
	return wbuf__flush(out);
}

int html_report__write(const char *path, const struct result *const *runs,
		       const char *const *names, size_t nr)
{
	struct wbuf *out = malloc(sizeof(*out));
	char *tmp = NULL;
	int fd = -1, err;
	mode_t mask;
	struct stat st;

	if (!out)
		return -ENOMEM;
	if (!strcmp(path, "-")) {
		err = emit(out, 1, runs, names, nr);
	} else if (!stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/* a device or FIFO is written directly, never replaced (writers/SCHEMA.md) */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		err = fd < 0 ? -errno : emit(out, fd, runs, names, nr);
		if (fd >= 0 && close(fd) && !err)
			err = -errno;
	} else {
		mask = umask(0);
		umask(mask);
		err = outfile__signals_begin();
		if (!err)
			err = outfile__create(path, &tmp, &fd);
		if (!err) {
			err = emit(out, fd, runs, names, nr);
			if (err)
				outfile__abandon(tmp, fd);
			else
				err = outfile__commit(tmp, fd, path, 0666 & ~mask, false);
		}
		outfile__signals_end();
	}
	free(tmp);
	free(out);
	return err;
}
