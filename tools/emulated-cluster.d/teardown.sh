# shellcheck shell=bash
# Part of tools/emulated-cluster (sourced): tearing a cluster down, whatever state it is in
# (up, half brought up, half torn down). Everything is found by name, not by the state file:
# the namespaces bfvemu-NAME-*, the links with the alias bfv-emu:NAME, the cgroups
# bfv-emu-NAME, the /etc/hosts lines tagged "# bfv-emu NAME" and the run dir.

# teardown NAME: removes all of the cluster, in this order, then checks that nothing is left
# (returns 1 after saying what is left).
teardown() {
    local name=$1
    stop_processes "$name"
    remove_namespaces "$name"
    remove_links "$name"
    remove_cgroups "$name"
    if grep -q " # bfv-emu $name\$" /etc/hosts 2>/dev/null; then write_etc_hosts "$name"; fi
    rm -rf "${run_root:?}/$name"
    check_nothing_left "$name"
}

# stop_processes NAME: TERM to every process in the cluster's namespaces or cgroups (never
# this shell), then KILL to whatever is left after 2 s; waits up to 2 s more for them to end.
stop_processes() {
    local pids
    pids=$(other_pids_of "$1")
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    wait_until_empty 20 other_pids_of "$1"
    pids=$(other_pids_of "$1")
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    wait_until_empty 20 other_pids_of "$1"
}

# remove_namespaces NAME: unmounts the UTS namespaces (bind mounts) and deletes the network
# namespaces (their veth ends and qdiscs go with them).
remove_namespaces() {
    local f ns
    if [ -d "$run_root/$1/uts" ]; then
        for f in "$run_root/$1"/uts/*; do
            [ -e "$f" ] || continue
            umount "$f" 2>/dev/null || umount -l "$f" 2>/dev/null || true
        done
    fi
    for ns in $(netns_of "$1"); do ip netns del "$ns" 2>/dev/null || true; done
}

# remove_links NAME: the bridge and any veth left on the root side (their qdiscs go with them).
remove_links() {
    local link
    for link in $(links_of "$1"); do ip link del "$link" 2>/dev/null || true; done
    # The kernel dismantles a deleted namespace's devices after `ip netns del` returns: wait
    # until they are gone (up to 5 s), or an MPI job starting next may see a device vanish
    # under UCX's device scan and fail ("init_worker ... No such device").
    wait_until_empty 50 links_of "$1"
}

# remove_cgroups NAME: the hosts' cgroups and the cluster's (a dying process may hold one for
# a moment: up to 2 s each).
remove_cgroups() {
    local cg f
    for cg in $(cg_dirs_of "$1"); do
        for _ in $(seq 20); do
            for f in "$cg"/*/; do
                if [ -d "$f" ]; then rmdir "$f" 2>/dev/null || true; fi
            done
            rmdir "$cg" 2>/dev/null && break
            sleep 0.1
        done
    done
}

# check_nothing_left NAME: returns 1, saying what is left, if any part of the cluster is.
check_nothing_left() {
    local left=()
    [ -z "$(netns_of "$1")" ] || left+=("namespaces: $(netns_of "$1" | tr '\n' ' ')")
    [ -z "$(links_of "$1")" ] || left+=("links: $(links_of "$1" | tr '\n' ' ')")
    [ -z "$(cg_dirs_of "$1")" ] || left+=("cgroups: $(cg_dirs_of "$1" | tr '\n' ' ')")
    ! grep -q " # bfv-emu $1\$" /etc/hosts || left+=("/etc/hosts lines")
    if [ ${#left[@]} -gt 0 ]; then
        echo "emulated-cluster: tearing down '$1' left: ${left[*]}" >&2
        return 1
    fi
}

# wait_until_empty TRIES COMMAND...: runs COMMAND every 0.1 s until it prints nothing, at most
# TRIES times (returns 0 either way).
wait_until_empty() {
    local tries=$1
    shift
    for _ in $(seq "$tries"); do
        [ -z "$("$@")" ] && return 0
        sleep 0.1
    done
    return 0
}

# netns_of NAME: the cluster's network namespaces (hosts are NAME-<short>, short has no dash).
netns_of() {
    ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^bfvemu-$1-[a-z0-9]+\$" || true
}

# links_of NAME: the root-side links tagged bfv-emu:NAME (bridge and veths).
links_of() {
    ip -j link show 2>/dev/null | jq -r --arg t "bfv-emu:$1" '.[] | select(.ifalias == $t) | .ifname' || true
}

# other_pids_of NAME: the processes in the cluster's namespaces or cgroups, but this shell.
other_pids_of() {
    local ns cg f
    {
        for ns in $(netns_of "$1"); do ip netns pids "$ns" 2>/dev/null || true; done
        for cg in $(cg_dirs_of "$1"); do
            for f in "$cg"/*/cgroup.procs; do [ -f "$f" ] && cat "$f"; done
        done
    } | sort -un | grep -vx "$$" || true
}
