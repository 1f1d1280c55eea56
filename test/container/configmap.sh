# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced. configmap_publish DIR KEY CONTENT: DIR laid out and updated as the kubelet's atomic
# writer does for a ConfigMap volume (pkg/volume/util/atomic_writer.go): the data in a new
# "..<timestamp>" folder, "..data_tmp" linked to it and renamed over "..data", KEY a link to
# "..data/KEY", the previous folder removed. The same as test/service/configmap_dir.hpp.
configmap_publish() {
  local dir=$1 key=$2 content=$3
  local generation old=""
  generation="..$(date +%Y_%m_%d_%H_%M_%S.%N)"
  mkdir -p "$dir/$generation"
  printf '%s\n' "$content" >"$dir/$generation/$key"
  [[ -L $dir/..data ]] && old=$(readlink "$dir/..data")
  ln -s "$generation" "$dir/..data_tmp"
  mv -T "$dir/..data_tmp" "$dir/..data"
  [[ -L $dir/$key ]] || ln -s "..data/$key" "$dir/$key"
  [[ -z $old ]] || rm -rf "${dir:?}/$old"
}
