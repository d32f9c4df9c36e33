#!/usr/bin/env bash
# Installs the Debian packages bfv builds, runs and tests with. Idempotent: packages that are
# already present are skipped, so a second run costs one dpkg query. Needs root (or sudo).
set -euo pipefail

packages=(
    build-essential cmake pkg-config
    mpich libmpich-dev
    libsdl2-dev libglm-dev libstb-dev
    libcli11-dev nlohmann-json3-dev libfmt-dev libzip-dev libgdal-dev liblz4-dev libzstd-dev libxxhash-dev
    libhwy-dev libsimgrid-dev libboost-dev libturbojpeg0-dev
    libgtest-dev libgmock-dev libbenchmark-dev libembree-dev
    python-matplotlib-data python3-matplotlib python3-numpy python3-pil xvfb xauth xdotool
    chromium python3-websocket
    iproute2 jq clang-format
    clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
