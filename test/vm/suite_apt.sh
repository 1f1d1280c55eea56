# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # sourced; the caller uses what it sets
# Sourced by fetch_kernel.sh and test/kmod/build_root.sh: apt pointed at one Debian suite.
#
#   suite_apt SUITE CACHE    sets SUITE_APT (the options for apt-get and apt-cache) and
#                            SUITE_MIRRORS (the sources' lines, for mmdebstrap)
#
# bookworm is the machine's own suite: its apt configuration as it is. trixie gets a private one in
# CACHE/apt-trixie (sources, package lists, an empty dpkg status), never the machine's
# /etc/apt: a newer suite there would let apt upgrade the host.
suite_apt() {
  local suite=$1 cache=$2
  case $suite in
    bookworm)
      SUITE_APT=()
      SUITE_MIRRORS=()
      ;;
    trixie)
      local dir=$cache/apt-trixie
      local key=/usr/share/keyrings/debian-archive-keyring.gpg
      SUITE_MIRRORS=(
        "deb http://deb.debian.org/debian trixie main"
        "deb http://deb.debian.org/debian trixie-updates main"
        "deb http://deb.debian.org/debian-security trixie-security main"
      )
      mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/preferences.d"
      [[ -f $dir/status ]] || : > "$dir/status"
      printf '%s\n' "${SUITE_MIRRORS[@]}" | sed "s,^deb ,deb [signed-by=$key] ," \
        > "$dir/sources.list"
      SUITE_APT=(
        -o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=-
        -o "Dir::Etc::preferences=$dir/preferences"
        -o "Dir::Etc::preferencesparts=$dir/preferences.d"
        -o "Dir::State::Lists=$dir/lists" -o "Dir::State::status=$dir/status"
        -o "Dir::Cache=$dir" -o "Dir::Cache::archives=$dir/archives"
        -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o Acquire::Languages=none
      )
      ;;
    *)
      echo "suite_apt: no such suite $suite (bookworm or trixie)" >&2
      return 1
      ;;
  esac
}
