#!/usr/bin/env bash
# The action's install step: payconf from its release archive for this
# runner (x86_64 Linux), its SHA-256 checked, onto the job's PATH; where no
# archive fits or none can be had, `cargo install` from the repository.
# PAYCONF_VERSION: `latest` or a version (`0.1.0`); PAYCONF_REPOSITORY:
# owner/name (the action's own by default).
set -euo pipefail
version=${PAYCONF_VERSION:-latest}
repository=${PAYCONF_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-payconf/payconf}}
[[ -n $repository ]] || repository=payconf/payconf
bin_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/payconf-bin"
mkdir -p "$bin_dir"

if command -v payconf >/dev/null && [[ $version == latest || $(payconf --version) == "payconf $version" ]]; then
  echo "payconf: using $(command -v payconf) ($(payconf --version))"
  exit 0
fi

archive_install() {
  local target=x86_64-unknown-linux-gnu base name
  [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] || return 1
  if [[ $version == latest ]]; then
    base="https://github.com/$repository/releases/latest/download"
  else
    base="https://github.com/$repository/releases/download/v$version"
  fi
  name="payconf-$target.tar.xz"
  local work
  work=$(mktemp -d)
  curl --fail --silent --show-error --location --retry 3 -o "$work/$name" "$base/$name" || return 1
  curl --fail --silent --show-error --location --retry 3 -o "$work/$name.sha256" "$base/$name.sha256" || return 1
  (cd "$work" && sha256sum --check --status "$name.sha256") || {
    echo "payconf: $name does not match its SHA-256; not installed" >&2
    return 1
  }
  tar -xJf "$work/$name" -C "$work"
  install -m 0755 "$work/payconf-$target/payconf" "$bin_dir/payconf"
}

if archive_install; then
  echo "payconf: installed from the release archive ($version)"
else
  echo "payconf: no release archive for this runner; building it with cargo install (several minutes)"
  tag=()
  [[ $version == latest ]] || tag=(--tag "v$version")
  cargo install --locked --root "$bin_dir/.." --git "https://github.com/$repository" "${tag[@]}" payconf
fi
echo "$bin_dir" >>"${GITHUB_PATH:-/dev/null}"
"$bin_dir/payconf" --version
