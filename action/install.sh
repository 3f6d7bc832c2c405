#!/usr/bin/env bash
# The action's install step: payconf from its release archive for this
# runner (x86_64 Linux), its SHA-256 checked, onto the job's PATH; where no
# archive fits or none can be had, `cargo install` from the repository.
# PAYCONF_VERSION: `latest` or a version (`0.1.0`); PAYCONF_REPOSITORY:
# owner/name (the action's own by default); PAYCONF_RELEASES: where that
# repository's releases are (GitHub's by default; a mirror, or a test's
# server on loopback); PAYCONF_GIT: the repository cargo builds from
# (GitHub's by default).
set -euo pipefail
version=${PAYCONF_VERSION:-latest}
repository=${PAYCONF_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-payconf/payconf}}
[[ -n $repository ]] || repository=payconf/payconf
releases=${PAYCONF_RELEASES:-https://github.com/$repository/releases}
git_url=${PAYCONF_GIT:-https://github.com/$repository}
# cargo install --root R puts the binary in R/bin: the folder put on the
# PATH and the binary run below are that one, whichever way it came.
root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/payconf"
bin_dir="$root/bin"
mkdir -p "$bin_dir"

if command -v payconf >/dev/null && [[ $version == latest || $(payconf --version) == "payconf $version" ]]; then
  echo "payconf: using $(command -v payconf) ($(payconf --version))"
  exit 0
fi

archive_install() {
  local target=x86_64-unknown-linux-gnu base name
  [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] || return 1
  if [[ $version == latest ]]; then
    base="$releases/latest/download"
  else
    base="$releases/download/v$version"
  fi
  name="payconf-$target.tar.xz"
  local work
  work=$(mktemp -d)
  curl --fail --silent --show-error --location --retry 3 -o "$work/$name" "$base/$name" || return 1
  curl --fail --silent --show-error --location --retry 3 -o "$work/$name.sha256" "$base/$name.sha256" || return 1
  # An archive that is not what its checksum says is never installed,
  # nor replaced by a build: the run stops.
  (cd "$work" && sha256sum --check --status "$name.sha256") || {
    echo "payconf: $name does not match its SHA-256; not installed" >&2
    return 2
  }
  tar -xJf "$work/$name" -C "$work"
  install -m 0755 "$work/payconf-$target/payconf" "$bin_dir/payconf"
}

installed=0
archive_install || installed=$?
if ((installed == 0)); then
  echo "payconf: installed from the release archive ($version)"
elif ((installed == 2)); then
  exit 1
else
  echo "payconf: no release archive for this runner; building it with cargo install (several minutes)"
  tag=()
  [[ $version == latest ]] || tag=(--tag "v$version")
  cargo install --locked --root "$root" --git "$git_url" "${tag[@]}" payconf
fi
echo "$bin_dir" >>"${GITHUB_PATH:-/dev/null}"
"$bin_dir/payconf" --version
