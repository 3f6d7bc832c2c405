//! The evidence bundle: a run's `--evidence` archive verifies with `payconf
//! verify` and the signer's public key; every kind of tampering (a report,
//! the manifest, the signature, the verdict in the results, even re-signed)
//! is found and named; what is not a bundle, a bundle cut short, and a
//! wrong or missing key are refused with exit code 2, never a crash.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
};

use payconf::runner::bundle::{
    Entry,
    archive::{open, seal},
    keys::signing_key,
    manifest::Manifest,
};

use crate::support::runner::{TempFile, payconf_run_with};

/// A bundle's files by path.
type Files = BTreeMap<String, Vec<u8>>;

/// A change made to a bundle's files.
type Tampering = Box<dyn FnOnce(&mut Files)>;

/// A folder of the test's own, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("payconf-{name}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&path).expect("a folder");
        Self(path)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `payconf` with `args`: its exit code, stdout and stderr.
fn payconf(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(args)
        .env_remove("PAYCONF_SIGNING_KEY")
        .output()
        .expect("payconf runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A key pair made by `payconf keygen` in `folder`, as `name.key`, `name.pub`.
fn keygen(folder: &Folder, name: &str) -> (PathBuf, PathBuf) {
    let prefix = folder.join(name);
    let (code, out, err) = payconf(&["keygen", "--out", path(&prefix)]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.starts_with("key: SHA256:"), "{out}");
    (
        folder.join(&format!("{name}.key")),
        folder.join(&format!("{name}.pub")),
    )
}

/// A bundle of a run of the embedded reference implementation, signed
/// with the key at `key`.
fn embedded_bundle(folder: &Folder, key: &Path) -> PathBuf {
    let bundle = folder.join("evidence.tar.gz");
    let output = payconf_run_with(
        &["--evidence", path(&bundle), "--signing-key", path(key)],
        &[],
    );
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert!(output.stdout.contains("evidence: "), "{}", output.stdout);
    let pem = std::fs::read_to_string(key).expect("the key reads");
    let secret_line = pem.lines().nth(1).expect("a PEM body");
    assert!(!output.stdout.contains(secret_line) && !output.stderr.contains(secret_line));
    bundle
}

fn verify(bundle: &Path, key: Option<&Path>) -> (Option<i32>, String, String) {
    let mut args = vec!["verify", path(bundle)];
    if let Some(key) = key {
        args.extend(["--key", path(key)]);
    }
    payconf(&args)
}

/// The bundle's files rewritten as `change` says, packed again (the
/// manifest and signature as they were, unless `change` touches them).
fn repack(from: &Path, to: &Path, change: impl FnOnce(&mut BTreeMap<String, Vec<u8>>)) {
    let mut files = open(from).expect("the bundle reads");
    change(&mut files);
    let file = std::fs::File::create(to).expect("created");
    let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gzip);
    for (name, bytes) in &files {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, name, bytes.as_slice())
            .expect("appended");
    }
    tar.into_inner()
        .expect("tar ends")
        .finish()
        .expect("gzip ends");
}

/// `files` (their manifest, signature and key left out) sealed at `to`
/// under `manifest`, signed again with the key at `secret`: a bundle its
/// signer made, whatever it says.
fn reseal(to: &Path, files: Files, manifest: Manifest, secret: &Path) {
    let entries: Vec<Entry> = files
        .into_iter()
        .filter(|(name, _)| {
            !["manifest.json", "manifest.sig", "signer.pub"].contains(&name.as_str())
        })
        .map(|(path, bytes)| Entry { path, bytes })
        .collect();
    let key = signing_key(Some(secret), None).expect("the key reads");
    seal(to, manifest, &entries, &key).expect("sealed");
}

fn flip_a_byte(bytes: &mut [u8], at: usize) {
    bytes[at] ^= 0x01;
}

#[test]
fn a_bundle_of_an_embedded_run_verifies_and_holds_the_whole_run() {
    let folder = Folder::new("bundle");
    let (secret, public) = keygen(&folder, "vendor");
    let bundle = embedded_bundle(&folder, &secret);

    let (code, out, err) = verify(&bundle, Some(&public));
    assert_eq!(code, Some(0), "{out}{err}");
    for line in [
        "signature: good, by key SHA256:",
        "(the key given with --key)",
        "files: 8 of 8 match their SHA-256 in the manifest",
        "verdict: passed (exit code 0), recomputed from ",
        "spec: the one this payconf carries",
        "features: the ones this payconf carries",
        "result: VERIFIED,",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    // Without --key: whole, by its own key, and said to be only that.
    let (code, out, _) = verify(&bundle, None);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("(the bundle's own signer.pub: give --key"),
        "{out}"
    );

    let files = open(&bundle).expect("the bundle reads");
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "features.sha256",
            "manifest.json",
            "manifest.sig",
            "plan.json",
            "reports/cucumber.json",
            "reports/junit.xml",
            "reports/report.html",
            "reports/results.json",
            "reports/run.har",
            "signer.pub",
            "target.json",
        ]
    );
    // The HTML report reads offline: nothing it loads comes from elsewhere.
    let html = String::from_utf8(files["reports/report.html"].clone()).expect("UTF-8");
    for outside in [
        "<script",
        "<link",
        "src=\"http",
        "src=\"//",
        "url(",
        "@import",
    ] {
        assert!(!html.contains(outside), "the report loads {outside}");
    }
    // The HAR is whole: the run kept every exchange for it.
    let har: serde_json::Value = serde_json::from_slice(&files["reports/run.har"]).expect("JSON");
    assert!(har["log"]["entries"].as_array().expect("entries").len() > 100);
    let manifest = Manifest::parse(&files["manifest.json"]).expect("a manifest");
    let results: serde_json::Value =
        serde_json::from_slice(&files["reports/results.json"]).expect("JSON");
    assert_eq!(
        manifest.spec_sha256,
        results["spec"]["sha256"].as_str().expect("sha")
    );
    assert_eq!(
        manifest.features_sha256,
        results["features"]["sha256"].as_str().expect("sha")
    );
    let listing = String::from_utf8(files["features.sha256"].clone()).expect("UTF-8");
    assert!(
        listing
            .lines()
            .any(|l| l.ends_with("  features/create.feature")),
        "{listing}"
    );
    let pem = std::fs::read_to_string(&secret).expect("read");
    let body = pem.lines().nth(1).expect("a PEM body");
    for (name, bytes) in &files {
        assert!(
            !String::from_utf8_lossy(bytes).contains(body),
            "{name} holds the private key"
        );
    }
}

#[test]
fn every_kind_of_tampering_is_found_and_named() {
    let folder = Folder::new("tamper");
    let (secret, public) = keygen(&folder, "vendor");
    let bundle = embedded_bundle(&folder, &secret);
    let changed = folder.join("changed.tar.gz");

    let cases: Vec<(&str, Tampering, &str)> = vec![
        (
            "a byte of the HTML report",
            Box::new(|files| {
                flip_a_byte(files.get_mut("reports/report.html").expect("html"), 5000);
            }),
            "changed: reports/report.html: its SHA-256 is not the manifest's",
        ),
        (
            "a byte of the manifest",
            Box::new(|files| {
                let manifest = files.get_mut("manifest.json").expect("manifest");
                let at = String::from_utf8_lossy(manifest)
                    .find("\"sha256\": \"")
                    .expect("a digest");
                flip_a_byte(manifest, at + 12);
            }),
            "changed: manifest.json or manifest.sig: the signature does not verify",
        ),
        (
            "a byte of the signature",
            Box::new(|files| flip_a_byte(files.get_mut("manifest.sig").expect("sig"), 3)),
            "changed: manifest.json or manifest.sig: the signature does not verify",
        ),
        (
            "the verdict in the results",
            Box::new(|files| {
                let results = files.get_mut("reports/results.json").expect("results");
                let text = String::from_utf8_lossy(results).replacen(
                    "\"outcome\": \"passed\",\n  \"exit_code\": 0",
                    "\"outcome\": \"failed\",\n  \"exit_code\": 1",
                    1,
                );
                *results = text.into_bytes();
            }),
            "changed: reports/results.json: its SHA-256 is not the manifest's",
        ),
        (
            "a file added",
            Box::new(|files| {
                files.insert(
                    "reports/extra.html".to_owned(),
                    b"<p>all passed</p>".to_vec(),
                );
            }),
            "changed: reports/extra.html: in the bundle, and not in the manifest",
        ),
        (
            "a file removed",
            Box::new(|files| {
                files.remove("reports/junit.xml");
            }),
            "changed: reports/junit.xml: listed in the manifest, and not in the bundle",
        ),
    ];
    for (what, change, says) in cases {
        repack(&bundle, &changed, change);
        let (code, out, err) = verify(&changed, Some(&public));
        assert_eq!(code, Some(1), "{what}: {out}{err}");
        assert!(out.contains(says), "{what}: {says}\n{out}");
        assert!(out.contains("result: NOT VERIFIED"), "{what}: {out}");
    }

    // Signed again by the same key, the results saying a verdict their
    // scenarios do not earn: the verdict is recomputed, and disagrees.
    let mut files = open(&bundle).expect("reads");
    let manifest = Manifest::parse(&files["manifest.json"]).expect("a manifest");
    let results = files.get_mut("reports/results.json").expect("results");
    let mut value: serde_json::Value = serde_json::from_slice(results).expect("JSON");
    let failed = value["scenarios"]
        .as_array_mut()
        .expect("scenarios")
        .first_mut()
        .expect("a scenario");
    failed["outcome"] = "failed".into();
    *results = serde_json::to_vec_pretty(&value).expect("JSON");
    reseal(&changed, files, manifest, &secret);
    let (code, out, _) = verify(&changed, Some(&public));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("changed: reports/results.json: says passed (exit code 0), and its scenarios earn failed (exit code 1)"),
        "{out}"
    );
    assert!(
        out.contains("changed: manifest.json: says passed (exit code 0), and the results' scenarios earn failed"),
        "{out}"
    );
    assert!(out.contains("signature: good"), "{out}");
}

#[test]
fn what_is_no_bundle_and_a_wrong_or_missing_key_are_refused_with_exit_2() {
    let folder = Folder::new("refused");
    let (secret, public) = keygen(&folder, "vendor");
    let (_, other_public) = keygen(&folder, "stranger");
    let bundle = embedded_bundle(&folder, &secret);
    let bytes = std::fs::read(&bundle).expect("read");

    let refused = |file: &Path, key: Option<&Path>, says: &str| {
        let (code, out, err) = verify(file, key);
        assert_eq!(code, Some(2), "{says}: {out}{err}");
        assert!(err.contains(says), "{says}\n{err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    let write = |name: &str, bytes: &[u8]| {
        let file = folder.join(name);
        std::fs::write(&file, bytes).expect("written");
        file
    };
    refused(
        &write("text.tar.gz", b"not an archive at all"),
        Some(&public),
        "not a payconf evidence bundle (not a gzip-compressed archive)",
    );
    refused(
        &write("empty.tar.gz", b""),
        Some(&public),
        "not a gzip-compressed archive",
    );
    for cut in [bytes.len() / 2, bytes.len() - 4] {
        refused(
            &write(&format!("cut-{cut}.tar.gz"), &bytes[..cut]),
            Some(&public),
            "cut short: the archive ends before its end",
        );
    }
    // A gzip of something that is no tar, and a tar with no manifest.
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gzip, &[7_u8; 4000]).expect("written");
    refused(
        &write("noise.tar.gz", &gzip.finish().expect("gzip")),
        Some(&public),
        "damaged: not a well-formed gzip-compressed tar archive",
    );
    let no_manifest = folder.join("no-manifest.tar.gz");
    repack(&bundle, &no_manifest, |files| {
        files.remove("manifest.json");
    });
    refused(
        &no_manifest,
        Some(&public),
        "not a payconf evidence bundle: it holds no manifest.json",
    );
    // A path that climbs out, written as a raw tar header would carry it.
    let climbing = folder.join("climbing.tar.gz");
    {
        let file = std::fs::File::create(&climbing).expect("created");
        let gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        let mut tar = tar::Builder::new(gzip);
        let mut header = tar::Header::new_gnu();
        header.as_gnu_mut().expect("gnu").name[..9].copy_from_slice(b"../escape");
        header.set_size(2);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append(&header, &b"hi"[..]).expect("appended");
        tar.into_inner().expect("tar").finish().expect("gzip");
    }
    refused(
        &climbing,
        Some(&public),
        "not a plain relative one (../escape)",
    );
    assert!(!folder.0.parent().expect("tmp").join("escape").exists());

    // A header that claims 300 MiB: refused before a byte of it is held.
    let claiming = folder.join("claiming.tar.gz");
    {
        let file = std::fs::File::create(&claiming).expect("created");
        let mut gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        let mut header = tar::Header::new_ustar();
        header.set_path("reports/run.har").expect("a path");
        header.set_size(300 << 20);
        header.set_mode(0o644);
        header.set_cksum();
        std::io::Write::write_all(&mut gzip, header.as_bytes()).expect("written");
        gzip.finish().expect("gzip");
    }
    refused(&claiming, Some(&public), "larger than any evidence bundle");

    refused(&bundle, Some(&other_public), "not by the key given");
    refused(&bundle, Some(&folder.join("absent.pub")), "--key");
    refused(&bundle, Some(&secret), "not an Ed25519 public key");
    refused(
        &folder.join("absent.tar.gz"),
        Some(&public),
        "cannot be read",
    );
}

#[test]
fn a_run_asked_for_evidence_without_a_key_does_not_start() {
    let folder = Folder::new("nokey");
    let bundle = folder.join("evidence.tar.gz");
    let output = payconf_run_with(&["--evidence", path(&bundle), "--tags", "@core"], &[]);
    assert_eq!(output.code, Some(2), "{}", output.stdout);
    assert!(
        output
            .stderr
            .contains("--evidence signs the bundle, and no signing key was given"),
        "{}",
        output.stderr
    );
    let output = payconf_run_with(
        &["--evidence", path(&bundle), "--tags", "@core"],
        &[(
            "PAYCONF_SIGNING_KEY",
            "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n",
        )],
    );
    assert_eq!(output.code, Some(2), "{}", output.stdout);
    assert!(
        output
            .stderr
            .contains("PAYCONF_SIGNING_KEY: not an Ed25519 private key"),
        "{}",
        output.stderr
    );
    assert!(!output.stderr.contains("c2VjcmV0"), "{}", output.stderr);
    assert!(!bundle.exists());
    let nowhere = folder.join("missing/evidence.tar.gz");
    let output = payconf_run_with(&["--evidence", path(&nowhere), "--tags", "@core"], &[]);
    assert_eq!(output.code, Some(2), "{}", output.stdout);
    assert!(output.stderr.contains("--evidence "), "{}", output.stderr);
    assert!(
        output.stderr.contains("does not exist"),
        "{}",
        output.stderr
    );
    // The key as a CI secret: its PEM in the variable.
    let (secret, public) = keygen(&folder, "ci");
    let pem = std::fs::read_to_string(&secret).expect("read");
    let results = TempFile(folder.join("results.json"));
    let output = payconf_run_with(
        &[
            "--evidence",
            path(&bundle),
            "--tags",
            "@core",
            "--results",
            path(&results.0),
        ],
        &[("PAYCONF_SIGNING_KEY", &pem)],
    );
    assert_eq!(output.code, Some(0), "{}{}", output.stdout, output.stderr);
    let (code, out, _) = verify(&bundle, Some(&public));
    assert_eq!(code, Some(0), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_run_s_bundle_holds_its_screenshots() {
    let test = "a_browser_run_s_bundle_holds_its_screenshots";
    let Some(_permit) = crate::support::runner::browser_turn(test).await else {
        return;
    };
    let folder = Folder::new("screenshots");
    let (secret, public) = keygen(&folder, "vendor");
    let bundle = folder.join("evidence.tar.gz");
    let args: Vec<String> = [
        "--acs-driver",
        "browser",
        "--tags",
        "@core and @req:TDS-04",
        "--evidence",
        path(&bundle),
        "--signing-key",
        path(&secret),
    ]
    .map(str::to_owned)
    .to_vec();
    let output = crate::support::runner::payconf_run_async(args).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let files = open(&bundle).expect("the bundle reads");
    let shots: Vec<&String> = files
        .keys()
        .filter(|name| name.starts_with("screenshots/"))
        .collect();
    assert!(!shots.is_empty(), "{:?}", files.keys().collect::<Vec<_>>());
    for shot in &shots {
        assert!(shot.ends_with(".png"), "{shot}");
        assert!(
            files[*shot].starts_with(b"\x89PNG\r\n\x1a\n"),
            "{shot} is a PNG"
        );
    }
    let (code, out, _) = verify(&bundle, Some(&public));
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn what_a_bundle_says_cannot_command_the_terminal_or_the_ci_log() {
    let folder = Folder::new("hostile");
    let (secret, public) = keygen(&folder, "vendor");
    let bundle = embedded_bundle(&folder, &secret);
    let mut files = open(&bundle).expect("reads");
    let mut manifest = Manifest::parse(&files["manifest.json"]).expect("a manifest");
    manifest.payconf = "0.1.0\u{1b}]0;owned\u{7}\n::error file=x::forged by the bundle".to_owned();
    manifest.started_at = "\u{1b}[2J\r::warning::cleared".to_owned();
    files.insert(
        "reports/\u{1b}[31mred\n::error::name.txt".to_owned(),
        b"added".to_vec(),
    );
    reseal(&bundle, files, manifest, &secret);
    let (code, out, err) = verify(&bundle, Some(&public));
    assert_eq!(code, Some(0), "{out}{err}");
    for said in [&out, &err] {
        assert!(
            !said.contains('\u{1b}') && !said.contains('\u{7}') && !said.contains('\r'),
            "{said:?}"
        );
        assert!(
            said.lines().all(|line| !line.starts_with("::")),
            "a line the CI log would take for a command: {said}"
        );
    }
}
