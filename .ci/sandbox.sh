# Sourced by the CI scripts that need a server: `start_sandbox [FLAGS...]`
# builds payconf, starts `payconf serve` on a free loopback port with FLAGS,
# sets `base` to its address, and stops it when the script exits.
start_sandbox() {
  cargo build --quiet --bin payconf
  sandbox_out=$(mktemp)
  PAYCONF_LOG=warn target/debug/payconf serve --addr 127.0.0.1:0 "$@" >"$sandbox_out" &
  sandbox_pid=$!
  trap 'kill "$sandbox_pid" 2>/dev/null || true; rm -f "$sandbox_out"' EXIT
  for _ in $(seq 100); do [[ -s $sandbox_out ]] && break; sleep 0.1; done
  base=$(head -n 1 "$sandbox_out" | sed 's/^listening on //')
  [[ $base == http://* ]] || { echo "payconf serve did not start" >&2; exit 1; }
}
