# shellcheck shell=bash
# Part of tools/emulated-cluster (sourced): each host's CPU quota, a cgroup under
# bfv-emu-NAME/ (cpu controller, v1 or v2). The CFS period is 10 ms (period_us) so that a frame
# is not throttled in one long burst.

# cg_detect: sets cg_version (1 or 2) and cg_base (where the cluster's cgroup goes), or
# cg_version=none when there is no cpu controller.
cg_detect() {
    if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        cg_version=2 cg_base=/sys/fs/cgroup
    elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        cg_version=1 cg_base=/sys/fs/cgroup/cpu
    elif [ -f /sys/fs/cgroup/unified/cgroup.controllers ] &&
        grep -qw cpu /sys/fs/cgroup/unified/cgroup.controllers; then
        cg_version=2 cg_base=/sys/fs/cgroup/unified
    else
        cg_version=none cg_base=
    fi
}

# cg_make HOST CPU: the host's cgroup with its quota (CPU in cores; 0: no quota). Uses name,
# cg_version and cg_base.
cg_make() {
    local dir="$cg_base/bfv-emu-$name/$1" quota
    if [ "$cg_version" = 2 ]; then
        grep -qw cpu "$cg_base/cgroup.subtree_control" ||
            echo +cpu >"$cg_base/cgroup.subtree_control"
        mkdir -p "$cg_base/bfv-emu-$name"
        grep -qw cpu "$cg_base/bfv-emu-$name/cgroup.subtree_control" ||
            echo +cpu >"$cg_base/bfv-emu-$name/cgroup.subtree_control"
        mkdir "$dir"
        if [ "$2" != 0 ]; then
            quota=$(cg_quota_us "$2")
            echo "$quota $period_us" >"$dir/cpu.max"
        fi
    else
        mkdir -p "$dir"
        if [ "$2" != 0 ]; then
            quota=$(cg_quota_us "$2")
            echo "$period_us" >"$dir/cpu.cfs_period_us"
            echo "$quota" >"$dir/cpu.cfs_quota_us"
        fi
    fi
}

# cg_quota_us CPU: the CFS quota in µs per period for CPU cores (at least 1 ms, the kernel's
# minimum).
cg_quota_us() {
    awk -v c="$1" -v p="$period_us" 'BEGIN { q = int(c * p + 0.5); print (q < 1000 ? 1000 : q) }'
}

# cg_enter DIR NAME HOST: moves this shell into the host's cgroup (if the cluster has cgroups).
cg_enter() {
    local cgv cgb
    cgv=$(sed -n 's/^cgroup_version=//p' "$1/state")
    cgb=$(sed -n 's/^cgroup_base=//p' "$1/state")
    if [ "$cgv" != none ]; then echo $$ >"$cgb/bfv-emu-$2/$3/cgroup.procs"; fi
}

# cg_dirs_of NAME: the cgroup directories a cluster may have (both hierarchies, whatever the
# state file says).
cg_dirs_of() {
    local base
    for base in /sys/fs/cgroup /sys/fs/cgroup/cpu /sys/fs/cgroup/unified; do
        [ -d "$base/bfv-emu-$1" ] && echo "$base/bfv-emu-$1"
    done
    return 0
}
