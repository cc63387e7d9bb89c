# Shared setup of the tests that run their own PostgreSQL server (sourced after tests/lib.sh;
# not a test by itself): pg_find sets PGBIN to the server binaries' directory (empty where
# the postgresql package is absent) and PSQL; pg_dir sets D, a server directory under $TMP,
# and as_server, the command prefix that runs the server as an unprivileged user when the
# tests run as root (initdb refuses root); pg_stop stops a server started in $D.
pg_find() {
	PGBIN=
	for b in /usr/lib/postgresql/*/bin; do
		[ -x "$b/initdb" ] && [ -x "$b/pg_ctl" ] && PGBIN=$b
	done
	PSQL=$PGBIN/psql
	[ -x "$PSQL" ] || PSQL=psql
}
pg_dir() {
	as_server=
	if [ "$(id -u)" -eq 0 ]; then
		u=postgres
		id "$u" > /dev/null 2>&1 || u=nobody
		as_server="runuser -u $u --"
	fi
	chmod 755 "$TMP"
	D=$TMP/pg
	mkdir "$D"
	[ -n "$as_server" ] && chown "$u" "$D"
}
pg_stop() {
	[ -f "$D/data/postmaster.pid" ] &&
		$as_server "$PGBIN/pg_ctl" -D "$D/data" -m fast -t 30 stop > /dev/null 2>&1
}
