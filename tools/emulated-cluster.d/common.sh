# shellcheck shell=bash
# Part of tools/emulated-cluster (sourced): the helpers its commands share.

# die MESSAGE...: one line on stderr, exit 1.
die() { echo "emulated-cluster: $*" >&2; exit 1; }

# need_root: ends the script unless it runs as root with the tools it needs.
need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "emulated-cluster needs root (network namespaces, tc, cgroups)" >&2
        exit 1
    fi
    local tool
    for tool in ip tc nsenter unshare flock jq; do
        command -v "$tool" >/dev/null || die "'$tool' is missing: run tools/install-deps.sh"
    done
}

# check_name NAME: ends the script unless NAME is a valid cluster name.
check_name() {
    [[ "$1" =~ ^[a-z][a-z0-9-]{0,19}$ ]] ||
        die "bad cluster name '$1': use [a-z][a-z0-9-]*, at most 20 characters"
}

# Serialises every change to the shared state (slots, /etc/hosts, /run/bfv-emu).
lock() {
    mkdir -p "$run_root"
    exec 9>"$run_root/.lock"
    flock 9
}

# cluster_dir NAME: prints the run dir of a cluster that is up, or ends the script.
cluster_dir() {
    check_name "$1"
    local dir="$run_root/$1"
    [ -f "$dir/env" ] || die "no cluster '$1' is up (tools/emulated-cluster up DESCRIPTION.json)"
    echo "$dir"
}

# enter NAME HOST: sets host_ns and host_uts for a host given as full name, short name
# or address, and moves this shell into the host's cgroup.
enter() {
    local dir host address ns rest
    dir=$(cluster_dir "$1")
    while IFS=$'\t' read -r host address ns rest; do
        if [ "$2" = "$host" ] || [ "$2" = "$address" ] || [ "$1-$2" = "$host" ]; then
            host_ns=$ns host_uts="$dir/uts/$host"
            cg_enter "$dir" "$1" "$host"
            return 0
        fi
    done <"$dir/hosts.tsv"
    die "cluster '$1' has no host '$2'"
}

# print_status DIR: the hosts of DIR/hosts.tsv as a table.
print_status() {
    local host address ns cpu rate nic
    printf '  %-24s %-15s %-8s %-10s %s\n' HOST ADDRESS CPU RATE NICS
    while IFS=$'\t' read -r host address ns cpu rate nic; do
        [ "$cpu" = 0 ] && cpu=-
        [ "$rate" = 0 ] && rate=- || rate="${rate}Mbit"
        printf '  %-24s %-15s %-8s %-10s %s\n' "$host" "$address" "$cpu" "$rate" "$nic"
    done <"$1/hosts.tsv"
}
