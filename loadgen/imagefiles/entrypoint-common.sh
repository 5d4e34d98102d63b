# Sourced by both image entrypoints (entrypoint.sh for MariaDB, entrypoint-mysql.sh for MySQL):
# root's password and the accounts it goes to. The sourcing script defines log() and sets
# SECRET_PREFIXES (the variable prefixes it reads, the first one set wins) and ALLOW_EMPTY (the
# value of its allow-empty-password variable); it quotes the password itself, as its server's SQL
# mode wants.

# printf, not echo, writes the SQL: dash's echo would turn \\ and \c in a password into something else.
line() { printf '%s\n' "$*"; }

# VAR or VAR_FILE (a docker secret) under each prefix in turn, like the official images.
secret() {
	for prefix in $SECRET_PREFIXES; do
		eval "value=\${${prefix}_$1:-}; file=\${${prefix}_$1_FILE:-}"
		if [ -n "$value" ]; then printf '%s' "$value"; return; fi
		if [ -n "$file" ]; then cat "$file"; return; fi
	done
}

# root_password HINT: sets $password, or stops here when none was given and an empty one is not
# allowed (an empty datadir must not come up with a passwordless root reachable over TCP).
root_password() {
	password="$(secret ROOT_PASSWORD)"
	if [ -z "$password" ] && [ -z "$ALLOW_EMPTY" ]; then
		echo "error: the datadir is empty and no root password was given; $1" >&2
		exit 1
	fi
}

# init_begin HINT: for an empty datadir, root's password ($password), the database asked for
# ($database) and the file the initialisation SQL goes to ($sql). The password reaches the server
# through that file (mktemp: 0600), gone before the server starts, never through its command line
# (visible in ps) or the log.
init_begin() {
	root_password "$1"
	database="$(secret DATABASE)"
	log "initialising the datadir"
	sql=$(mktemp /run/mysqld/init.XXXXXX)
}

# root_accounts QUOTED_PASSWORD DATABASE: root at localhost and a second root for TCP from outside
# the container, as the official images have, both with the password; then the database asked for.
root_accounts() {
	line "ALTER USER 'root'@'localhost' IDENTIFIED BY '$1';"
	line "CREATE USER 'root'@'%' IDENTIFIED BY '$1';"
	line "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
	if [ -n "$2" ]; then
		line "CREATE DATABASE IF NOT EXISTS \`$2\`;"
	fi
}
