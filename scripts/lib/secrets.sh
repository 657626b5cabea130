# Secret files: created readable by their owner only from the first byte (umask 077 in the
# subshell that creates them, no window in which another user could open them), and never
# passed on a command line (where `ps` shows it to everyone on the machine).

# ensure_secret_file PATH GENERATOR…: unless PATH exists, writes GENERATOR's output to it.
ensure_secret_file() {
    local path=$1
    shift
    [ -s "$path" ] || (umask 077 && "$@" > "$path")
    chmod 600 "$path"
}

# ensure_private_file PATH: creates PATH empty if it does not exist, owner-only either way.
ensure_private_file() {
    [ -e "$1" ] || (umask 077 && : > "$1")
    chmod 600 "$1"
}
