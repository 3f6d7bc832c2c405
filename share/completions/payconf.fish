# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_payconf_global_optspecs
    string join \n h/help V/version
end

function __fish_payconf_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_payconf_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_payconf_using_subcommand
    set -l cmd (__fish_payconf_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c payconf -n "__fish_payconf_needs_command" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_needs_command" -s V -l version -d 'Print version'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "run" -d 'Check a server against the conformance scenarios (the reference implementation, in-process, when no base URL is given)'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "plan" -d 'Print the test plan of a run, and send nothing: every requirement and scenario, whether it applies under the target file\'s declaration and the selection, and what would make it apply. Takes `run`\'s flags'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "diff" -d 'Compare two runs\' results files (`--results`) requirement by requirement, print a Markdown summary fit for a pull-request comment, and exit 1 when a requirement regressed'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "verify" -d 'Check an evidence bundle (`run --evidence`) offline: its signature, every file\'s SHA-256, the verdict recomputed from its results, and whether its spec and features are the ones this payconf carries. Exit 0 verified, 1 changed, 2 unreadable or the wrong key'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "keygen" -d 'Make an Ed25519 key pair for signing evidence bundles: PREFIX.key (PKCS#8 PEM, readable by you only; keep it secret, as PAYCONF_SIGNING_KEY in CI) and PREFIX.pub (give it to whoever verifies)'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "serve" -d 'Run the reference implementation as a local payment sandbox'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "docs" -d 'Write the service\'s documentation, generated from the spec and the features: an HTML site entered at OUT/index.html, and the same as Markdown'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "completions" -d 'Print the completions of a shell: `payconf completions bash > /etc/bash_completion.d/payconf` (zsh: a file `_payconf` on $fpath; fish: ~/.config/fish/completions/payconf.fish)'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "man" -d 'Write a man page for payconf and for each of its commands into DIR (`man -l DIR/payconf-run.1`, or DIR on MANPATH as man1/)'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "schemas" -d 'Write the JSON Schemas of the target file, the waivers file and the results file into DIR, for editors (Taplo, Even Better TOML) and tools'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "bench" -d 'Measure the reference implementation under load: create and create+submit throughput and latency, memory per live payment, and the runner\'s time and memory'
complete -c payconf -n "__fish_payconf_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payconf -n "__fish_payconf_using_subcommand run" -l target -d 'Target file (TOML): base URL, credentials, test cards, pages, issuer fields' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l base-url -d 'Base address of the server under test, over the target file\'s' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l api-key -d 'The merchant\'s API key, over the target file\'s' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l shop-login -d 'The merchant\'s shop login, over the target file\'s' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l acs-driver -d 'The issuer-authentication driver, over the target file\'s `acs.driver` (also `PAYCONF_ACS_DRIVER`): `form`, `browser` (headless Chromium) or `none`' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l tls-ca-file -d 'PEM bundle of CA certificates to trust besides the system\'s, for a target whose certificate a private CA signed; over the file\'s `tls.ca_file`' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l tls-client-cert -d 'Client certificate (PEM) for a target that asks for one (mutual TLS); over the file\'s `tls.client_cert`' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l tls-client-key -d 'The client certificate\'s private key (PEM); over the file\'s `tls.client_key`' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l proxy -d 'The proxy to reach the target through (http:// or https://), over the file\'s `proxy`; without one, HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read as curl reads them. Loopback addresses are never proxied' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l tags -d 'Cucumber tag expression selecting scenarios. Default: `@core` against a target, `@core or @reference` against the embedded reference implementation' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l features -d 'Read the features from this directory instead of the embedded ones' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l spec -d 'Read the spec from this file instead of the embedded one' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l timeout -d 'Seconds each request may take, from sending to the last byte' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l concurrency -d 'Scenarios run at the same time' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l rate -d 'At most N requests a second to the target over the whole run, for a target whose rate limit is known (fractions allowed: 0.5 is one request every two seconds). Without it payconf sends at once, and waits out a 429 or 503 that carries Retry-After' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l seed -d 'Seed of the hostile inputs the @robustness scenarios generate. Every run that generates them prints its seed; give it here to replay a finding exactly' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l junit -d 'Write JUnit XML here: one testcase per scenario (GitHub, GitLab, Jenkins)' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l cucumber-json -d 'Write the standard Cucumber JSON format here' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l html -d 'Write a self-contained HTML report here: coverage matrix, steps, every exchange with a `curl` that replays it' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l results -d 'Write a JSON summary here: versions, spec SHA-256, target, counts, every requirement\'s outcome' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l har -d 'Write every exchange of the run here as HAR 1.2 (API calls and issuer pages, with timings, redacted), each entry tagged with its scenario: opens in browsers\' developer tools, proxies and API clients' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l waivers -d 'Waivers (TOML): requirement ids whose failures are accepted until a date, with the reason' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l retries -d 'Run a scenario that failed or erred again, with new payments, up to N more times; one that then passes is FLAKY, counted apart. A `@robustness` scenario is never run again: a race that pays twice one time in three is a defect, not noise' -r
complete -c payconf -n "__fish_payconf_using_subcommand run" -l evidence -d 'Write the run\'s evidence bundle here: every report, the HAR, the screenshots, the redacted target, the plan, the spec\'s and features\' SHA-256, and a manifest of every file\'s SHA-256 signed with Ed25519 (`payconf verify` checks it offline)' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l signing-key -d 'The Ed25519 private key (PKCS#8 PEM, from `payconf keygen`) that signs `--evidence`; else the PEM in PAYCONF_SIGNING_KEY' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l rerun-failed -d 'Run only the scenarios that failed or erred in this earlier run\'s results file (`--results`), matched by location, or by file and name when the features moved' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand run" -l list -d 'Print every requirement with the scenarios that check it, and run nothing; with a target file or a base URL, the run\'s plan (as `payconf plan`)'
complete -c payconf -n "__fish_payconf_using_subcommand run" -l strict-waivers -d 'Fail the run when a waiver in force is no longer needed: its requirement passed (as the OpenID conformance suite\'s CI fails on an expected failure that stopped happening)'
complete -c payconf -n "__fish_payconf_using_subcommand run" -l flaky-fails -d 'Fail the run when a scenario passed only on a later try (`--retries`)'
complete -c payconf -n "__fish_payconf_using_subcommand run" -l allow-production -d 'Run against a production target, and then only the `@production-safe` scenarios (no card data sent)'
complete -c payconf -n "__fish_payconf_using_subcommand run" -l embedded -d 'Run against payconf\'s own embedded reference implementation, by name. Without it, the embedded implementation runs only when no setting names a target: a target file, or a target\'s flag or PAYCONF_* variable (set even when empty) without a base URL stops the run (exit code 2) rather than check payconf\'s own sandbox in its place'
complete -c payconf -n "__fish_payconf_using_subcommand run" -l embedded-tls -d 'Serve the embedded reference implementation over HTTPS (HTTP/2 by ALPN), with a certificate made for this run by a CA only this run trusts; without a base URL only. It asks for the embedded target by name, as --embedded does'
complete -c payconf -n "__fish_payconf_using_subcommand run" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l target -d 'Target file (TOML): base URL, credentials, test cards, pages, issuer fields' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l base-url -d 'Base address of the server under test, over the target file\'s' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l api-key -d 'The merchant\'s API key, over the target file\'s' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l shop-login -d 'The merchant\'s shop login, over the target file\'s' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l acs-driver -d 'The issuer-authentication driver, over the target file\'s `acs.driver` (also `PAYCONF_ACS_DRIVER`): `form`, `browser` (headless Chromium) or `none`' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l tls-ca-file -d 'PEM bundle of CA certificates to trust besides the system\'s, for a target whose certificate a private CA signed; over the file\'s `tls.ca_file`' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l tls-client-cert -d 'Client certificate (PEM) for a target that asks for one (mutual TLS); over the file\'s `tls.client_cert`' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l tls-client-key -d 'The client certificate\'s private key (PEM); over the file\'s `tls.client_key`' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l proxy -d 'The proxy to reach the target through (http:// or https://), over the file\'s `proxy`; without one, HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read as curl reads them. Loopback addresses are never proxied' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l tags -d 'Cucumber tag expression selecting scenarios. Default: `@core` against a target, `@core or @reference` against the embedded reference implementation' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l features -d 'Read the features from this directory instead of the embedded ones' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l spec -d 'Read the spec from this file instead of the embedded one' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l timeout -d 'Seconds each request may take, from sending to the last byte' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l concurrency -d 'Scenarios run at the same time' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l rate -d 'At most N requests a second to the target over the whole run, for a target whose rate limit is known (fractions allowed: 0.5 is one request every two seconds). Without it payconf sends at once, and waits out a 429 or 503 that carries Retry-After' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l seed -d 'Seed of the hostile inputs the @robustness scenarios generate. Every run that generates them prints its seed; give it here to replay a finding exactly' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l junit -d 'Write JUnit XML here: one testcase per scenario (GitHub, GitLab, Jenkins)' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l cucumber-json -d 'Write the standard Cucumber JSON format here' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l html -d 'Write a self-contained HTML report here: coverage matrix, steps, every exchange with a `curl` that replays it' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l results -d 'Write a JSON summary here: versions, spec SHA-256, target, counts, every requirement\'s outcome' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l har -d 'Write every exchange of the run here as HAR 1.2 (API calls and issuer pages, with timings, redacted), each entry tagged with its scenario: opens in browsers\' developer tools, proxies and API clients' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l waivers -d 'Waivers (TOML): requirement ids whose failures are accepted until a date, with the reason' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l retries -d 'Run a scenario that failed or erred again, with new payments, up to N more times; one that then passes is FLAKY, counted apart. A `@robustness` scenario is never run again: a race that pays twice one time in three is a defect, not noise' -r
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l evidence -d 'Write the run\'s evidence bundle here: every report, the HAR, the screenshots, the redacted target, the plan, the spec\'s and features\' SHA-256, and a manifest of every file\'s SHA-256 signed with Ed25519 (`payconf verify` checks it offline)' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l signing-key -d 'The Ed25519 private key (PKCS#8 PEM, from `payconf keygen`) that signs `--evidence`; else the PEM in PAYCONF_SIGNING_KEY' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l rerun-failed -d 'Run only the scenarios that failed or erred in this earlier run\'s results file (`--results`), matched by location, or by file and name when the features moved' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l list -d 'Print every requirement with the scenarios that check it, and run nothing; with a target file or a base URL, the run\'s plan (as `payconf plan`)'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l strict-waivers -d 'Fail the run when a waiver in force is no longer needed: its requirement passed (as the OpenID conformance suite\'s CI fails on an expected failure that stopped happening)'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l flaky-fails -d 'Fail the run when a scenario passed only on a later try (`--retries`)'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l allow-production -d 'Run against a production target, and then only the `@production-safe` scenarios (no card data sent)'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l embedded -d 'Run against payconf\'s own embedded reference implementation, by name. Without it, the embedded implementation runs only when no setting names a target: a target file, or a target\'s flag or PAYCONF_* variable (set even when empty) without a base URL stops the run (exit code 2) rather than check payconf\'s own sandbox in its place'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -l embedded-tls -d 'Serve the embedded reference implementation over HTTPS (HTTP/2 by ALPN), with a certificate made for this run by a CA only this run trusts; without a base URL only. It asks for the embedded target by name, as --embedded does'
complete -c payconf -n "__fish_payconf_using_subcommand plan" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand diff" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand verify" -l key -d 'The signer\'s public key (PEM, as `payconf keygen` writes it), as its maker handed it over: only against it is a bundle VERIFIED. Without it, the bundle\'s own signer.pub proves the bundle whole but not who made it: INTACT, exit code 3' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand verify" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand keygen" -l out -d 'The same, as a flag' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand keygen" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l addr -d 'Address to listen on; port 0 picks a free port' -r
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l config -d 'Back-office configuration (TOML); built-in defaults without it' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l tls-cert -d 'Serve HTTPS with this certificate (PEM, its chain after it): HTTP/2 and HTTP/1.1 by ALPN, and the pages\' addresses `https://`. Needs --tls-key' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l tls-key -d 'The certificate\'s private key (PEM)' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l data -d 'Keep profiles, payments and notifications owed in this SQLite file (created when missing), so a restart loses nothing; memory only without it' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l allow-outbound -d 'Let notifications go to this loopback or private range (CIDR, such as 10.0.0.0/8) while listening beyond loopback; repeatable. Link-local and cloud metadata addresses are never allowed' -r
complete -c payconf -n "__fish_payconf_using_subcommand serve" -l demo -d 'Serve the demo checkout (/demo/checkout) while listening beyond loopback too; on loopback it is always served'
complete -c payconf -n "__fish_payconf_using_subcommand serve" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand docs" -l out -d 'The same, as a flag' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand docs" -l format -d 'What to write' -r -f -a "both\t'The HTML site and the Markdown'
html\t'The HTML site only'
markdown\t'The Markdown (and the diagram) only: what `docs/reference/` holds'"
complete -c payconf -n "__fish_payconf_using_subcommand docs" -l features -d 'Read the features from this directory instead of the embedded ones' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand docs" -l spec -d 'Read the spec from this file instead of the embedded one' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand docs" -l workflows -d 'Read the Arazzo workflows from this file instead of the embedded ones' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand docs" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payconf -n "__fish_payconf_using_subcommand completions" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand man" -l out -d 'The same, as a flag' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand man" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand schemas" -l out -d 'The same, as a flag' -r -F
complete -c payconf -n "__fish_payconf_using_subcommand schemas" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l connections -d 'Concurrent connections of the load client' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l duration -d 'Seconds each throughput scenario runs' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l live-payments -d 'Live payments to create for the memory measurement (0: skip it)' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l base-url -d 'Measure a running service at this address instead of a `payconf serve` the benchmark starts' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l rounds -d 'Rounds the scenarios take turns in (baseline, create, create+submit, then again), each a share of `--duration`' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l hostile -d 'Measure the generated-input check of @robustness instead: this many generated bodies for create and as many for submit, against an in-process reference implementation' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l bundles -d 'Measure evidence bundles instead: a whole run against the embedded reference implementation with and without `run --evidence FILE`, the bundle\'s size, and `payconf verify` of it, ROUNDS rounds (5 when not given). Not `--evidence`, which names a file in `payconf run`' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l volley -d 'Measure the robustness profile\'s volleys instead: how close together 20 requests sent at once reach a server on loopback, over plain HTTP, TLS with HTTP/1.1 and TLS with HTTP/2, beside requests simply sent together, ROUNDS volleys of each (30 when not given)' -r
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l baseline -d 'Also measure a bare hyper server answering a create answer\'s bytes, taking turns with the service under the same load client, and give every throughput as a ratio to it'
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l issuer-pages -d 'Measure the browser driver instead: Chromium\'s start, and each issuer scenario against every issuer page style of the reference implementation'
complete -c payconf -n "__fish_payconf_using_subcommand bench" -l payment-pages -d 'Measure the standard payment page instead: the buyer\'s journey on the sandbox\'s page (form driver and browser) and in its lightbox, opened from a shop\'s page of its own'
complete -c payconf -n "__fish_payconf_using_subcommand bench" -s h -l help -d 'Print help'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "run" -d 'Check a server against the conformance scenarios (the reference implementation, in-process, when no base URL is given)'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "plan" -d 'Print the test plan of a run, and send nothing: every requirement and scenario, whether it applies under the target file\'s declaration and the selection, and what would make it apply. Takes `run`\'s flags'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "diff" -d 'Compare two runs\' results files (`--results`) requirement by requirement, print a Markdown summary fit for a pull-request comment, and exit 1 when a requirement regressed'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "verify" -d 'Check an evidence bundle (`run --evidence`) offline: its signature, every file\'s SHA-256, the verdict recomputed from its results, and whether its spec and features are the ones this payconf carries. Exit 0 verified, 1 changed, 2 unreadable or the wrong key'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "keygen" -d 'Make an Ed25519 key pair for signing evidence bundles: PREFIX.key (PKCS#8 PEM, readable by you only; keep it secret, as PAYCONF_SIGNING_KEY in CI) and PREFIX.pub (give it to whoever verifies)'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "serve" -d 'Run the reference implementation as a local payment sandbox'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "docs" -d 'Write the service\'s documentation, generated from the spec and the features: an HTML site entered at OUT/index.html, and the same as Markdown'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "completions" -d 'Print the completions of a shell: `payconf completions bash > /etc/bash_completion.d/payconf` (zsh: a file `_payconf` on $fpath; fish: ~/.config/fish/completions/payconf.fish)'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "man" -d 'Write a man page for payconf and for each of its commands into DIR (`man -l DIR/payconf-run.1`, or DIR on MANPATH as man1/)'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "schemas" -d 'Write the JSON Schemas of the target file, the waivers file and the results file into DIR, for editors (Taplo, Even Better TOML) and tools'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "bench" -d 'Measure the reference implementation under load: create and create+submit throughput and latency, memory per live payment, and the runner\'s time and memory'
complete -c payconf -n "__fish_payconf_using_subcommand help; and not __fish_seen_subcommand_from run plan diff verify keygen serve docs completions man schemas bench help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
