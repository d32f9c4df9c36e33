# shellcheck shell=bash
# Part of tools/emulated-cluster (sourced): what mpiexec needs to use the cluster, written by
# `up` into the run dir DIR: the hostfile, Hydra's launcher `launch` and the exports `env`.

# write_hostfile DIR HOSTNAME...: one slot per host, in rank order.
write_hostfile() {
    local dir=$1 host
    shift
    for host in "$@"; do echo "$host:1"; done >"$dir/hostfile"
}

# write_launcher DIR NAME: DIR/launch, which Hydra runs instead of ssh ("launch [-x] HOST
# COMMAND..."); it calls this script's `launch` command.
write_launcher() {
    cat >"$1/launch" <<EOS
#!/bin/sh
# Hydra's launcher for the emulated cluster '$2': Hydra runs "launch [-x] HOST COMMAND...".
exec '$self' launch '$2' "\$@"
EOS
    chmod +x "$1/launch"
}

# write_env DIR BRIDGE: DIR/env, the exports that make a plain mpiexec use the cluster.
write_env() {
    cat >"$1/env" <<EOS
export HYDRA_HOST_FILE='$1/hostfile'
export HYDRA_LAUNCHER=ssh
export HYDRA_LAUNCHER_EXEC='$1/launch'
export HYDRA_LAUNCHER_AUTOFORK=0
export HYDRA_IFACE='$2'
export UCX_TLS="\${UCX_TLS:-tcp,self}"
EOS
}

