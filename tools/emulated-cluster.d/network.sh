# shellcheck shell=bash
# Part of tools/emulated-cluster (sourced): the cluster's network, made by `up`.
#
# One bridge bfvbr<S> per cluster (S: a free slot number 1..250) on the subnet
# $BFV_EMU_NET.S.0/24 (BFV_EMU_NET defaults to 10.213); the bridge has .254 in the root
# namespace, where mpiexec listens (HYDRA_IFACE=bfvbr<S>). Each host is a network namespace
# bfvemu-NAME-<short> with a persistent UTS namespace (its own hostname), joined to the bridge
# by a veth link capped in rate (tc tbf, both directions); host i has .(i+1) on its eth0. The
# namespaces have no default route, so nothing leaves the machine. Hostnames resolve through
# /etc/hosts lines tagged "# bfv-emu NAME", which `down` removes. Every root-side link carries
# the alias bfv-emu:NAME, by which `down` finds it.
#
# The display's K NICs: eth0..eth<K-1> in the display's namespace, K veth links to the same
# bridge, each capped at rateMbit, with addresses D0 (eth0, the display's hostname) .. D<K-1>.
# Which of the display's addresses UCX picks is UCX's business (UCX 1.13 reports every TCP
# peer address reachable), so the link is pinned by routing instead: host i uses display NIC
# k(i) = (i-1) mod K for i >= 1 and NIC 0 for host 0 (with one rank per host, tracer t = rank
# t+1 = host t+1 uses NIC t mod K: the display's receive thread t mod K's link). On host i,
# every display address Dj (j != k) is routed via Dk; the display routes host i via eth<k>
# (a /32 route), answers ARP only on the NIC that owns the address (arp_ignore=1,
# arp_announce=2) and accepts any of its addresses on any NIC (rp_filter=0). So whatever
# address pair UCX connects, tracer t's bytes cross link t mod K, both ways.
#
# The functions read the cluster being brought up from cmd_up's globals: name, dir, slot, net,
# bridge, tag, n, last, K, shorts, cpus, rates.

# free_slot: prints the smallest slot 1..250 that no cluster, bridge, address or route uses.
free_slot() {
    local s used
    used=$(cat "$run_root"/*/state 2>/dev/null | sed -n 's/^slot=//p')
    for s in $(seq 1 250); do
        grep -qx "$s" <<<"$used" && continue
        ip link show "bfvbr$s" >/dev/null 2>&1 && continue
        ip -4 -o addr show | grep -q " $net_prefix\.$s\." && continue
        ip -4 route show | grep -q "^$net_prefix\.$s\." && continue
        echo "$s"
        return 0
    done
    die "no free subnet $net_prefix.1-250.0/24: tear down other clusters"
}

# make_bridge: the cluster's bridge, with the root namespace's address .254.
make_bridge() {
    ip link add "$bridge" type bridge
    ip link set "$bridge" alias "$tag"
    ip addr add "$net.254/24" dev "$bridge"
    ip link set "$bridge" up
}

# plan_addresses: sets addr (host i: .(i+1)), hostnames (NAME-<short>) and daddr (the
# display's NIC k: .(n+k); NIC 0 is .n, the display host's own address).
plan_addresses() {
    local i k
    addr=() hostnames=() daddr=()
    for i in $(seq 0 "$last"); do
        addr[i]="$net.$((i + 1))"
        hostnames[i]="$name-${shorts[i]}"
    done
    daddr[0]=${addr[last]}
    for k in $(seq 1 $((K - 1))); do daddr[k]="$net.$((n + k))"; done
}

# add_host I: host I's network and UTS namespaces, its links to the bridge (K for the display,
# 1 otherwise), its cgroup, and its line in hosts.tsv.
add_host() {
    local i=$1 host=${hostnames[$1]} ns="bfvemu-${hostnames[$1]}" nic_count=1 k veth
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    touch "$dir/uts/$host"
    unshare --uts="$dir/uts/$host" hostname "$host"
    [ "$i" -eq "$last" ] && nic_count=$K
    for k in $(seq 0 $((nic_count - 1))); do
        if [ "$i" -eq "$last" ]; then veth="bfv${slot}d$k"; else veth="bfv${slot}h$i"; fi
        ip link add "$veth" type veth peer name "eth$k" netns "$ns"
        ip link set "$veth" alias "$tag"
        ip link set "$veth" master "$bridge"
        ip link set "$veth" up
        tc_cap "$veth" "${rates[i]}"
        if [ "$k" -eq 0 ]; then
            ip -n "$ns" addr add "${addr[i]}/24" dev eth0
        else
            ip -n "$ns" addr add "${daddr[k]}/32" dev "eth$k"
        fi
        ip -n "$ns" link set "eth$k" up
        tc_cap "eth$k" "${rates[i]}" "$ns"
    done
    if [ "$cg_version" != none ]; then cg_make "$host" "${cpus[i]}"; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$host" "${addr[i]}" "$ns" "${cpus[i]}" "${rates[i]}" \
        "$nic_count" >>"$dir/hosts.tsv"
}

# tc_cap DEV RATE [NETNS]: a token bucket of RATE Mbit/s on DEV's egress (RATE 0: none).
tc_cap() {
    local burst
    [ "$2" != 0 ] || return 0
    # 10 ms of traffic, at least 32 KiB (one GSO packet is up to 64 KiB).
    burst=$(awk -v r="$2" 'BEGIN { b = int(r * 1e6 / 8 / 100); print (b < 32768 ? 32768 : b) }')
    if [ $# -ge 3 ]; then
        ip netns exec "$3" tc qdisc add dev "$1" root tbf rate "$2mbit" burst "$burst" latency 50ms
    else
        tc qdisc add dev "$1" root tbf rate "$2mbit" burst "$burst" latency 50ms
    fi
}

# pin_display_nics: with K > 1, pins host i to the display's NIC k(i), both ways (see above).
pin_display_nics() {
    [ "$K" -gt 1 ] || return 0
    local dns="bfvemu-${hostnames[last]}" i j k
    # shellcheck disable=SC2016
    ip netns exec "$dns" sh -c '
        for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 >"$f"; done
        for f in /proc/sys/net/ipv4/conf/*/arp_ignore; do echo 1 >"$f"; done
        for f in /proc/sys/net/ipv4/conf/*/arp_announce; do echo 2 >"$f"; done'
    for i in $(seq 0 $((last - 1))); do
        if [ "$i" -eq 0 ]; then k=0; else k=$(((i - 1) % K)); fi
        ip -n "$dns" route add "${addr[i]}/32" dev "eth$k" src "${daddr[k]}"
        for j in $(seq 0 $((K - 1))); do
            [ "$j" -eq "$k" ] && continue
            ip -n "bfvemu-${hostnames[i]}" route add "${daddr[j]}/32" via "${daddr[k]}" dev eth0
        done
    done
    return 0  # not the status of the last `[ ... ] && continue`
}

# write_etc_hosts NAME [ADDRESS HOSTNAME]...: replaces the cluster's lines in /etc/hosts
# (tagged "# bfv-emu NAME") with one per pair given (none: removes them).
write_etc_hosts() {
    local tag_line=" # bfv-emu $1" tmp
    shift
    tmp=$(mktemp)
    grep -v "$tag_line\$" /etc/hosts >"$tmp" || true
    while [ $# -ge 2 ]; do
        echo "$1 $2$tag_line"
        shift 2
    done >>"$tmp"
    cat "$tmp" >/etc/hosts  # in place: /etc/hosts may be a bind mount
    rm -f "$tmp"
}

# add_etc_hosts_lines: the cluster's /etc/hosts lines, one per host.
add_etc_hosts_lines() {
    local i pairs=()
    for i in $(seq 0 "$last"); do pairs+=("${addr[i]}" "${hostnames[i]}"); done
    write_etc_hosts "$name" "${pairs[@]}"
}
