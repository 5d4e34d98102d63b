#!/bin/sh
# Entrypoint of the MySQL image `loadgen image build --flavor mysql` makes: what the official
# mysql image does, reduced to what loadgen and compose/ need. Flags pass through to mysqld; an
# empty datadir is initialised first (mysqld --initialize-insecure) and root gets the password
# from MYSQL_ROOT_PASSWORD or MYSQL_ROOT_PASSWORD_FILE, at 'localhost' and '%'.
set -eu

# `docker run IMAGE --innodb-buffer-pool-size=16M`: flags alone mean "the server with these flags".
if [ "${1#-}" != "$1" ]; then
	set -- mysqld "$@"
fi
if [ "$1" != mysqld ]; then
	exec "$@"
fi

log() { echo "$(date -u +'%Y-%m-%dT%H:%M:%SZ') 0 [Note] [Entrypoint]: $*" >&2; }
datadir=/var/lib/mysql
files=/var/lib/mysql-files  # secure_file_priv: mysqld will not start while it is missing
mkdir -p "$datadir" /run/mysqld "$files"
chown mysql:mysql "$datadir" /run/mysqld "$files"
chmod 750 "$files"

# Root's password: MYSQL_* only, like the official image (entrypoint-common.sh).
. /usr/local/lib/loadgen/entrypoint-common.sh
SECRET_PREFIXES=MYSQL
ALLOW_EMPTY="${MYSQL_ALLOW_EMPTY_PASSWORD:-}"

if [ ! -d "$datadir/mysql" ]; then
	init_begin "set MYSQL_ROOT_PASSWORD (or MYSQL_ROOT_PASSWORD_FILE)"
	# --initialize runs $sql once the system tables exist; one statement per line.
	# Quotes are doubled and backslashes stay as they are (NO_BACKSLASH_ESCAPES).
	quoted=$(printf '%s' "$password" | sed -e "s/'/''/g")
	{
		line "SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES');"
		# --initialize-insecure leaves root@localhost without a password.
		root_accounts "$quoted" "$database"
	} > "$sql"
	chown mysql:mysql "$sql"
	shift
	# The server's flags go to the initialisation too: innodb_page_size and friends are fixed
	# at creation.
	if ! mysqld --initialize-insecure --user=mysql --datadir="$datadir" --init-file="$sql" "$@" \
		> /run/mysqld/initialize.log 2>&1; then
		rm -f "$sql"
		cat /run/mysqld/initialize.log >&2
		echo "error: initialising the datadir failed" >&2
		exit 1
	fi
	rm -f "$sql"
	set -- mysqld "$@"
	log "datadir ready"
fi

exec "$@"
