/* Unit tests of conninfo__mask() (writers/conninfo.c): the secrets of libpq connection
 * strings in both forms, written out by hand (libpq's documented syntax, "Connection
 * Strings"), masked in the string and in a text that quotes them.
 */
#include <stdlib.h>

#include "tests/harness.h"
#include "writers/writer.h"

static void check_mask(const char *conninfo, const char *text, const char *want, int line)
{
	char *got = conninfo__mask(conninfo, text);

	if (!got || strcmp(got, want)) {
		fprintf(stderr, "%s:%d: mask(\"%s\", %s%s%s) = \"%s\", want \"%s\"\n", __FILE__,
			line, conninfo, text ? "\"" : "", text ? text : "NULL", text ? "\"" : "",
			got ? got : "(null)", want);
		th_failed_checks++;
	}
	free(got);
}
#define MASK(c, t, w) check_mask(c, t, w, __LINE__)

static void test_conninfo_uri(void)
{
	MASK("postgresql://hbbp:s3cr3t@/runs?host=/tmp/x", NULL,
	     "postgresql://hbbp:***@/runs?host=/tmp/x");
	MASK("postgres://u:p%40ss@h:5432/db?sslpassword=k3y&password=pw2&application_name=a",
	     NULL, "postgres://u:***@h:5432/db?sslpassword=***&password=***&application_name=a");
	/* keys are percent-decoded by libpq too */
	MASK("postgresql:///db?pass%77ord=zz&passfile=%2Fhome%2Fu%2F.pgpass", NULL,
	     "postgresql:///db?pass%77ord=***&passfile=***");
	/* a '/' in the password: libpq would not find the '@'; masked up to the last one */
	MASK("postgresql://u:pa/ss@h/db", NULL, "postgresql://u:***@h/db");
	/* a query before an '@' (libpq reads all of it as the user information) */
	MASK("postgresql://h?password=x&user=a:pw@b", NULL,
	     "postgresql://h?password=***&user=a:***@b");
	MASK("postgresql://u@h/db?user=x", NULL, "postgresql://u@h/db?user=x");
	MASK("postgresql://", NULL, "postgresql://");
	/* the password as written and as read, in any text */
	MASK("postgresql://u:p%40ss@h/db", "no \"p@ss\", no p%40ss here",
	     "no \"***\", no *** here");
	MASK("postgresql://u:s3cr3t@h/db", "FATAL:  password authentication failed for user \"u\"",
	     "FATAL:  password authentication failed for user \"u\"");
}

static void test_conninfo_keywords(void)
{
	MASK("host=db password='sec ret' user=u", NULL, "host=db password=*** user=u");
	MASK("host=db password = x\\ y sslpassword=q passfile=/home/u/.pgpass", NULL,
	     "host=db password = *** sslpassword=*** passfile=***");
	MASK("password='it\\'s' host=h", "bad: it's, 'it\\'s'", "bad: ***, ***");
	/* a dbname that is a connection string is one */
	MASK("dbname='postgresql://u:pw@h/db' host=x", NULL, "dbname=*** host=x");
	MASK("dbname='postgresql://u:pw@h/db' host=x", "user u:pw", "user u:***");
	MASK("dbname=runs host=x", NULL, "dbname=runs host=x");
	/* what libpq cannot parse is not shown: its message may quote any part */
	MASK("host=db password", NULL, "(the connection string, not shown)");
	MASK("host=db password='open", "missing \"=\" after ...",
	     "(a message about the connection string, not shown: it may quote a password)");
	/* not a connection string */
	MASK("out.sqlite", NULL, "out.sqlite");
	MASK("out.sqlite", "out.sqlite: text", "out.sqlite: text");
}

int main(void)
{
	RUN_TEST(test_conninfo_uri);
	RUN_TEST(test_conninfo_keywords);
	return th_failed_tests != 0;
}
