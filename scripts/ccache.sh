# SPDX-License-Identifier: Apache-2.0
# Sourced by the build scripts: every build goes through ccache, keyed on paths relative to the
# tree, so a fresh clone in another folder (CI's) compiles only what changed since the last build
# on this machine. The cache lives outside the tree and is only ever a shortcut: a miss compiles.
# A machine without ccache builds without it (CCACHE_LAUNCHER is then empty).
CCACHE_LAUNCHER=""
command -v ccache >/dev/null || return 0
CCACHE_LAUNCHER=ccache
export CCACHE_BASEDIR="$ROOT"
# Named outright: debhelper gives dpkg-buildpackage's steps a HOME of their own, where ccache's
# default directory would be a new, empty cache every time.
CCACHE_DIR="${CCACHE_DIR:-$(ccache -k cache_dir)}"
export CCACHE_DIR
# Debug info names the compile directory; without this every clone's path would be a miss.
export CCACHE_NOHASHDIR=true
# Three builds (main, ASan+UBSan, TSan) with debug info outgrow ccache's 5 GB default.
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-25G}"
