# SPDX-License-Identifier: Apache-2.0
# Sourced by the build scripts: every build goes through ccache, keyed on paths relative to the
# tree, so a fresh clone in another folder (CI's) compiles only what changed since the last build
# on this machine. The cache lives outside the tree and is only ever a shortcut: a miss compiles.
export CCACHE_BASEDIR="$ROOT"
# Debug info names the compile directory; without this every clone's path would be a miss.
export CCACHE_NOHASHDIR=true
# Three builds (main, ASan+UBSan, TSan) with debug info outgrow ccache's 5 GB default.
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-25G}"
