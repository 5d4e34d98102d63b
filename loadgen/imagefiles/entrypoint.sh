#!/bin/sh
# Entrypoint of the image `loadgen image build` makes: what the official mysql/mariadb images do,
# reduced to what loadgen and compose/ need. Flags pass through to mariadbd; an empty datadir is
# initialised first with root's password from MARIADB_ROOT_PASSWORD or MYSQL_ROOT_PASSWORD (or their
# *_FILE variants).
set -eu

# `docker run IMAGE --innodb-buffer-pool-size=16M`: flags alone mean "the server with these flags".
if [ "${1#-}" != "$1" ]; then
	set -- mariadbd "$@"
fi
if [ "$1" != mariadbd ] && [ "$1" != mysqld ]; then
	exec "$@"
fi

log() { echo "$(date -u +'%Y-%m-%d %H:%M:%S') 0 [Note] [Entrypoint]: $*" >&2; }
datadir=/var/lib/mysql
mkdir -p "$datadir" /run/mysqld
chown mysql:mysql "$datadir" /run/mysqld

# Root's password: MARIADB_* before MYSQL_*, like the official image (entrypoint-common.sh).
. /usr/local/lib/loadgen/entrypoint-common.sh
SECRET_PREFIXES="MARIADB MYSQL"
ALLOW_EMPTY="${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-${MYSQL_ALLOW_EMPTY_PASSWORD:-}}"

if [ ! -d "$datadir/mysql" ]; then
	init_begin "set MARIADB_ROOT_PASSWORD (or MYSQL_ROOT_PASSWORD)"
	quoted=$(printf '%s' "$password" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/\\\\'/g")
	{
		# install-db leaves passwordless root@127.0.0.1, root@::1 and root@<hostname>: one root
		# per door is enough, each with the password.
		line "DELETE FROM mysql.global_priv WHERE User = '' OR (User = 'root' AND Host <> 'localhost');"
		line "DELETE FROM mysql.proxies_priv WHERE Host <> 'localhost';"
		line "FLUSH PRIVILEGES;"
		root_accounts "$quoted" "$database"
	} > "$sql"
	shift
	# The server's flags go to the bootstrap too: innodb_page_size and friends are fixed at creation.
	if ! mariadb-install-db --user=mysql --datadir="$datadir" --auth-root-authentication-method=normal \
		--skip-test-db --skip-name-resolve --extra-file="$sql" "$@" > /run/mysqld/install.log 2>&1; then
		rm -f "$sql"
		cat /run/mysqld/install.log >&2
		echo "error: initialising the datadir failed" >&2
		exit 1
	fi
	rm -f "$sql"
	set -- mariadbd "$@"
	log "datadir ready"
fi

exec "$@"
