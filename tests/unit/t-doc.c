/* SPDX-License-Identifier: MIT */
/* Unit tests of doc: Markdown tables and escaping, HTML escaping and lists,
 * figures inlined as base64 (RFC 4648 §10 vectors), and child. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "io/child.h"
#include "report/doc.h"
#include "tap.h"

static char *render(const struct gp_doc *d, int html, const char *dir)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	int rc = html ? gp_doc_write_html(d, f, dir, NULL) : gp_doc_write_md(d, f);

	fclose(f);
	if (rc) {
		free(s);
		return NULL;
	}
	return s;
}

static char *b64(const char *in)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	gp_base64_write(f, (const unsigned char *)in, strlen(in));
	fclose(f);
	return s;
}

static void base64_vectors(void)
{
	static const char *const v[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *s = b64(v[i][0]);

		is_str(s, v[i][1], "base64('%s')", v[i][0]);
		free(s);
	}
}

static void markdown(void)
{
	static const char *const h[] = { "arm", "rate (req/s)" };
	struct gp_doc *d = gp_doc_new("T");
	char *s;

	gp_doc_heading(d, 2, "Sec");
	gp_doc_para(d, "n = %d", 3);
	gp_doc_item(d, "a");
	gp_doc_item(d, "b");
	gp_doc_table(d, 2, h, "lr");
	gp_doc_cell(d, "x|y");
	gp_doc_cell(d, "%g", 8.0);
	gp_doc_cell(d, "two\nlines");
	gp_doc_pre(d, "raw | text");
	s = render(d, 0, NULL);
	ok(s != NULL, "markdown renders");
	is_str(s, "# T\n\n## Sec\n\nn = 3\n\n- a\n- b\n\n| arm | rate (req/s) |\n|---|---:|\n"
	       "| x\\|y | 8 |\n| two lines |  |\n\n```\nraw | text\n```\n",
	       "headings, paragraph, one list, table with escaped pipe, short row padded, pre");
	free(s);
	ok(!gp_doc_failed(d), "no failure");
	gp_doc_free(d);
}

static void html(void)
{
	static const char *const h[] = { "what", "value" };
	struct gp_doc *d = gp_doc_new("<T&>");
	char dir[] = "/tmp/t-doc.XXXXXX", path[64];
	const char *bad = NULL;
	char *s;
	FILE *f;

	gp_doc_item(d, "\"q\" <b>");
	gp_doc_para(d, "p");
	s = render(d, 1, NULL);
	ok(s && strstr(s, "<title>&lt;T&amp;&gt;</title>"), "title escaped");
	ok(s && strstr(s, "<ul><li>&quot;q&quot; &lt;b&gt;</li></ul>\n<p>p</p>"), "one-item list closed, text escaped");
	ok(s && !strstr(s, "<script") && !strstr(s, "http"), "no script, no external reference");
	free(s);
	gp_doc_table(d, 2, h, "lr");
	gp_doc_cell(d, "needs --fleet [a, b]");
	gp_doc_cell(d, "1.5 [1.2, 1.8] sparse");
	s = render(d, 1, NULL);
	ok(s && strstr(s, "<tr><td>needs --fleet&#160;[a,&#160;b]</td><td class=\"r\">1.5&#160;[1.2,&#160;1.8] sparse</td></tr>"),
	   "a cell wraps at its spaces, except inside an interval [lo, hi] and before it");
	ok(s && !strstr(s, "nowrap"), "no cell is held on one line");
	free(s);
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		gp_doc_free(d);
		return;
	}
	snprintf(path, sizeof(path), "%s/p.png", dir);
	f = fopen(path, "w");
	fputs("foobar", f);
	fclose(f);
	gp_doc_figure(d, "p.png", "p.svg", "cap");
	s = render(d, 1, dir);
	ok(s && strstr(s, "<img alt=\"cap\" src=\"data:image/png;base64,Zm9vYmFy\">"), "figure inlined as base64");
	free(s);
	gp_doc_figure(d, "missing.png", NULL, "gone");
	f = fopen("/dev/null", "w");
	is_int(gp_doc_write_html(d, f, dir, &bad), -1, "a missing figure is an error");
	fclose(f);
	is_str(bad, "missing.png", "... naming the figure");
	unlink(path);
	rmdir(dir);
	gp_doc_free(d);
}

static void child(void)
{
	char *t[] = { "true", NULL }, *fl[] = { "false", NULL }, *no[] = { "/no/such/program", NULL };
	char *sh[] = { "sh", "-c", "test \"$(pwd)\" = /", NULL };

	is_int(gp_child_run(t, NULL, -1, -1), 0, "true: 0");
	is_int(gp_child_run(fl, NULL, -1, -1), 1, "false: 1");
	is_int(gp_child_run(no, NULL, -1, -1), -ENOENT, "no such program: -ENOENT");
	is_int(gp_child_run(sh, "/", -1, -1), 0, "runs in the directory asked");
}

int main(void)
{
	base64_vectors();
	markdown();
	html();
	child();
	return done_testing();
}
