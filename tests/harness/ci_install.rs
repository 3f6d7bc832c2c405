//! The CI integrations install payconf as a job does: the GitHub Action's
//! install step (`action/install.sh`) and the GitLab component's
//! (`templates/payconf.yml`'s `before_script`), each run as written against
//! a release host on loopback that serves a release archive and its
//! checksum as GitHub's does (`latest` redirected to the newest tag). The
//! archive's binary is installed and runs; an archive that is not its
//! checksum's is refused and nothing is built in its place; with no
//! archive, each falls back to `cargo install` (a stand-in cargo here, which
//! records its arguments and puts the binary where `--root` says) and runs
//! the binary where that put it. The image's build, as docs/ci.md gives
//! it, keeps the Containerfile's health check.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
    sync::Arc,
};

use hyper::{Request, body::Incoming};

use crate::support::{
    front::{Answer, Front, respond, serve_on},
    runner::Folder,
};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const TARGET: &str = "x86_64-unknown-linux-gnu";
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn archive_name() -> String {
    format!("payconf-{TARGET}.tar.xz")
}

/// A release host as GitHub's: `/releases/download/v<version>/<name>`
/// serves a file, `/releases/latest/download/<name>` redirects there.
struct ReleaseHost {
    files: BTreeMap<String, Vec<u8>>,
}

impl Front for ReleaseHost {
    fn answer(
        &self,
        request: Request<Incoming>,
    ) -> impl std::future::Future<Output = Answer> + Send {
        let path = request.uri().path().to_owned();
        let latest = path
            .strip_prefix("/releases/latest/download/")
            .map(|name| format!("/releases/download/v{VERSION}/{name}"));
        let file = path
            .strip_prefix(&format!("/releases/download/v{VERSION}/"))
            .and_then(|name| self.files.get(name))
            .cloned();
        async move {
            match (latest, file) {
                (Some(to), _) => respond(302, &[("Location", &to)], ""),
                (None, Some(bytes)) => {
                    respond(200, &[("Content-Type", "application/octet-stream")], bytes)
                }
                (None, None) => respond(404, &[], "Not Found"),
            }
        }
    }
}

/// The release archive of this build: `payconf-<target>/payconf` in a
/// `.tar.xz`, and its `.sha256` as `dist` writes it (`<hex>  <name>`);
/// `tamper` changes the archive after its checksum was taken.
fn release(folder: &Folder, tamper: bool) -> BTreeMap<String, Vec<u8>> {
    let name = archive_name();
    let mut bytes = archive_of_this_build(folder, &name);
    let digest = payconf_spec::digest::sha256_hex(&bytes);
    if tamper {
        let last = bytes.len() - 1;
        bytes[last] ^= 0x01;
    }
    BTreeMap::from([
        (
            format!("{name}.sha256"),
            format!("{digest}  {name}\n").into_bytes(),
        ),
        (name, bytes),
    ])
}

/// The release archive of this build's binary, made once for the build:
/// the four tests that install it share it (kept in the tests' own
/// temporary folder under a name of the binary's size and time, written
/// whole and then renamed), where each compressed the 100 MB debug binary
/// again (35 CPU-seconds of the full tier, process accounting said).
fn archive_of_this_build(folder: &Folder, name: &str) -> Vec<u8> {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_payconf"));
    let made = std::fs::metadata(binary).expect("the binary");
    let stamp = made
        .modified()
        .ok()
        .and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |at| at.as_nanos());
    let kept = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ci-install-{}-{stamp}-{name}", made.len()));
    if let Ok(bytes) = std::fs::read(&kept) {
        return bytes;
    }
    let staged = folder.join(&format!("payconf-{TARGET}"));
    std::fs::create_dir_all(&staged).expect("a folder");
    std::fs::copy(binary, staged.join("payconf")).expect("the binary");
    // xz at its fastest level: the debug binary is large, and the archive
    // is read back as any .tar.xz is.
    let status = Command::new("tar")
        .arg("--use-compress-program=xz -0 -T0")
        .arg("-cf")
        .arg(folder.join(name))
        .arg("-C")
        .arg(&folder.0)
        .arg(format!("payconf-{TARGET}"))
        .status()
        .expect("tar runs");
    assert!(status.success(), "the archive is made");
    let bytes = std::fs::read(folder.join(name)).expect("the archive");
    // Another build's archives go: one is kept, this build's.
    if let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) {
        for entry in entries.flatten() {
            let old = entry.file_name().to_string_lossy().into_owned();
            if old.starts_with("ci-install-") && entry.path() != kept && !old.ends_with(".partial")
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    // Another test may be making it at once: each writes its own whole
    // file and renames it into place.
    let partial = kept.with_extension(format!("{}.partial", uuid::Uuid::new_v4().simple()));
    if std::fs::write(&partial, &bytes).is_ok() && std::fs::rename(&partial, &kept).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    bytes
}

/// Serves `files` on loopback; the releases' address.
async fn host(files: BTreeMap<String, Vec<u8>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    serve_on(listener, Arc::new(ReleaseHost { files }));
    format!("http://{address}/releases")
}

/// A stand-in `cargo` in `folder/stub`: records its arguments in
/// `folder/cargo.log` and puts the binary in `<--root>/bin`, as `cargo
/// install` does. Returns the PATH the scripts run with: the stub's folder
/// and the system's, where no payconf is.
fn stub_cargo(folder: &Folder) -> String {
    let stub = folder.join("stub");
    std::fs::create_dir_all(&stub).expect("a folder");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> '{log}'\nroot=\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = --root ]; then root=$2; shift; fi\n  shift\ndone\nmkdir -p \"$root/bin\" && cp '{binary}' \"$root/bin/payconf\"\n",
        log = folder.join("cargo.log").display(),
        binary = env!("CARGO_BIN_EXE_payconf"),
    );
    let path = stub.join("cargo");
    std::fs::write(&path, script).expect("the stub");
    let mut permissions = std::fs::metadata(&path).expect("the stub").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).expect("executable");
    format!("{}:/usr/local/bin:/usr/bin:/bin", stub.display())
}

/// What a script printed and how it ended.
struct Ran {
    code: Option<i32>,
    out: String,
}

async fn run(program: &str, args: Vec<String>, env: Vec<(String, String)>) -> Ran {
    let program = program.to_owned();
    tokio::task::spawn_blocking(move || {
        let output = Command::new(program)
            .args(args)
            .env_clear()
            .envs(env)
            .output()
            .expect("the script runs");
        Ran {
            code: output.status.code(),
            out: format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        }
    })
    .await
    .expect("the script's thread")
}

/// The action's install step, run as GitHub runs it.
async fn action_install(folder: &Folder, releases: &str, version: &str) -> Ran {
    let env = vec![
        ("PATH".to_owned(), stub_cargo(folder)),
        ("HOME".to_owned(), folder.0.display().to_string()),
        ("PAYCONF_VERSION".to_owned(), version.to_owned()),
        (
            "PAYCONF_REPOSITORY".to_owned(),
            "payconf/payconf".to_owned(),
        ),
        ("PAYCONF_RELEASES".to_owned(), releases.to_owned()),
        (
            "PAYCONF_GIT".to_owned(),
            "http://127.0.0.1:9/payconf.git".to_owned(),
        ),
        ("RUNNER_TEMP".to_owned(), folder.0.display().to_string()),
        (
            "GITHUB_PATH".to_owned(),
            folder.join("github_path").display().to_string(),
        ),
    ];
    run("bash", vec![format!("{ROOT}/action/install.sh")], env).await
}

fn cargo_calls(folder: &Folder) -> String {
    std::fs::read_to_string(folder.join("cargo.log")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the CI installs"]
async fn the_actions_install_takes_the_release_archive_and_puts_it_on_the_path() {
    for version in ["latest", VERSION] {
        let folder = Folder::new("action-install");
        let releases = host(release(&folder, false)).await;
        let ran = action_install(&folder, &releases, version).await;
        assert_eq!(ran.code, Some(0), "{version}: {}", ran.out);
        assert!(
            ran.out
                .contains(&format!("installed from the release archive ({version})"))
                && ran.out.contains(&format!("payconf {VERSION}")),
            "{version}: {}",
            ran.out
        );
        let bin = folder.join("payconf/bin");
        let on_path = std::fs::read_to_string(folder.join("github_path")).expect("GITHUB_PATH");
        assert_eq!(on_path.trim(), bin.display().to_string());
        assert!(bin.join("payconf").is_file());
        assert!(cargo_calls(&folder).is_empty(), "nothing built");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the CI installs"]
async fn the_actions_install_refuses_an_archive_that_is_not_its_checksums_and_builds_nothing() {
    let folder = Folder::new("action-tampered");
    let releases = host(release(&folder, true)).await;
    let ran = action_install(&folder, &releases, "latest").await;
    assert_eq!(ran.code, Some(1), "{}", ran.out);
    assert!(
        ran.out
            .contains("does not match its SHA-256; not installed"),
        "{}",
        ran.out
    );
    assert!(!folder.join("payconf/bin/payconf").exists());
    assert!(cargo_calls(&folder).is_empty(), "{}", cargo_calls(&folder));
}

/// No archive to be had: `cargo install --root` builds it, and the binary
/// is run, and put on the PATH, where that put it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the CI installs"]
async fn the_actions_install_builds_with_cargo_where_no_archive_is_and_runs_what_it_built() {
    let folder = Folder::new("action-fallback");
    let releases = host(BTreeMap::new()).await;
    let ran = action_install(&folder, &releases, VERSION).await;
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    let root = folder.join("payconf");
    assert_eq!(
        cargo_calls(&folder).trim(),
        format!(
            "install --locked --root {} --git http://127.0.0.1:9/payconf.git --tag v{VERSION} payconf",
            root.display()
        )
    );
    assert!(
        ran.out.contains(&format!("payconf {VERSION}")),
        "{}",
        ran.out
    );
    let on_path = std::fs::read_to_string(folder.join("github_path")).expect("GITHUB_PATH");
    assert_eq!(on_path.trim(), root.join("bin").display().to_string());
}

/// The GitLab component's install, its `before_script` as written.
fn component_install_script() -> String {
    let text = std::fs::read_to_string(Path::new(ROOT).join("templates/payconf.yml"))
        .expect("the component");
    let job = serde_yaml_ng::Deserializer::from_str(&text)
        .nth(1)
        .map(|document| {
            <serde_json::Value as serde::Deserialize>::deserialize(document).expect("YAML")
        })
        .expect("the component's job, after its spec");
    job["payconf"]["before_script"]
        .as_array()
        .expect("a before_script")
        .iter()
        .map(|line| line.as_str().expect("a line").to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn component_install(folder: &Folder, releases: &str) -> (Ran, PathBuf) {
    let bin = folder.join("usr/bin");
    let env = vec![
        ("PATH".to_owned(), stub_cargo(folder)),
        ("HOME".to_owned(), folder.0.display().to_string()),
        ("PAYCONF_VERSION".to_owned(), "latest".to_owned()),
        (
            "PAYCONF_REPOSITORY".to_owned(),
            "payconf/payconf".to_owned(),
        ),
        ("PAYCONF_RELEASES".to_owned(), releases.to_owned()),
        (
            "PAYCONF_GIT".to_owned(),
            "http://127.0.0.1:9/payconf.git".to_owned(),
        ),
        ("PAYCONF_BIN_DIR".to_owned(), bin.display().to_string()),
    ];
    let script = format!("set -e\n{}", component_install_script());
    (run("sh", vec!["-c".to_owned(), script], env).await, bin)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the CI installs"]
async fn the_gitlab_components_install_takes_the_archive_refuses_a_tampered_one_and_falls_back_to_cargo()
 {
    let folder = Folder::new("component-install");
    let releases = host(release(&folder, false)).await;
    let (ran, bin) = component_install(&folder, &releases).await;
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    assert!(
        ran.out.contains(&format!("payconf {VERSION}")),
        "{}",
        ran.out
    );
    assert!(bin.join("payconf").is_file());
    assert!(cargo_calls(&folder).is_empty());

    let folder = Folder::new("component-tampered");
    let releases = host(release(&folder, true)).await;
    let (ran, bin) = component_install(&folder, &releases).await;
    assert_ne!(ran.code, Some(0), "{}", ran.out);
    assert!(
        ran.out
            .contains("does not match its SHA-256; not installed"),
        "{}",
        ran.out
    );
    assert!(!bin.join("payconf").exists());
    assert!(cargo_calls(&folder).is_empty());

    let folder = Folder::new("component-fallback");
    let releases = host(BTreeMap::new()).await;
    let (ran, bin) = component_install(&folder, &releases).await;
    assert_eq!(ran.code, Some(0), "{}", ran.out);
    assert_eq!(
        cargo_calls(&folder).trim(),
        format!(
            "install --locked --root {} --git http://127.0.0.1:9/payconf.git payconf",
            folder.join("usr").display()
        )
    );
    assert!(bin.join("payconf").is_file());
    assert!(
        ran.out.contains(&format!("payconf {VERSION}")),
        "{}",
        ran.out
    );
}

/// docs/ci.md's image build, and the Containerfile's own instructions,
/// keep the health check: podman's default (OCI) format drops
/// `HEALTHCHECK`, the Docker format keeps it.
#[test]
fn the_documented_image_build_keeps_the_health_check() {
    let containerfile =
        std::fs::read_to_string(Path::new(ROOT).join("Containerfile")).expect("the Containerfile");
    assert!(
        containerfile.contains("\nHEALTHCHECK "),
        "the image has a health check"
    );
    let docs = std::fs::read_to_string(Path::new(ROOT).join("docs/ci.md")).expect("docs/ci.md");
    let builds: Vec<&str> = docs
        .lines()
        .chain(containerfile.lines())
        .filter(|line| line.contains("podman build") || line.contains("docker build"))
        .filter(|line| !line.trim_start().starts_with("docker build"))
        .collect();
    assert!(!builds.is_empty());
    for line in builds {
        assert!(
            line.contains("--format docker"),
            "drops the health check: {line}"
        );
    }
}
