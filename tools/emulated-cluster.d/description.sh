# shellcheck shell=bash
# Part of tools/emulated-cluster (sourced): reading the cluster description.

# read_description FILE: validates FILE (with description.jq beside this file) and sets
# name (the cluster's) and, one entry per host in hostfile order with the display last,
# shorts (host names without "NAME-"), cpus (cores, 0: no quota), rates (Mbit/s each way,
# 0: uncapped) and nics (1, or the display's K); n (hosts), last (n - 1), K (display NICs).
# A bad description ends the script with one message that says what is wrong.
read_description() {
    local parsed short cpu rate nic
    parsed=$(parse_description "$1") || exit 1
    name=$(head -n1 <<<"$parsed")
    check_name "$name"
    shorts=() cpus=() rates=() nics=()
    while read -r short cpu rate nic _; do
        [ ${#name} -le $((62 - ${#short})) ] || die "host name '$name-$short' is longer than 63 characters"
        shorts+=("$short") cpus+=("$cpu") rates+=("$rate") nics+=("$nic")
    done < <(tail -n +2 <<<"$parsed")
    n=${#shorts[@]} last=$((${#shorts[@]} - 1)) K=${nics[-1]}
}

# parse_description FILE: description.jq's lines, or exit 1 with jq's message made readable
# (or "empty" for a file without a JSON value).
parse_description() {
    local out
    if ! out=$(jq -r -f "$parts/description.jq" "$1" 2>&1); then
        out=${out##*: description: }
        out=${out%% (at *}
        die "bad description $1: ${out#jq: error*: }"
    fi
    [ -n "$out" ] || die "bad description $1: empty (a JSON object is expected)"
    printf '%s\n' "$out"
}
