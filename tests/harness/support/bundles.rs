//! Evidence bundles for the tests: keys and bundles made by the real
//! `payconf`, `payconf verify` run, and bundles changed on purpose (packed
//! again as they are, or signed again by their maker).

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

use super::runner::{Folder, payconf_run_with};

/// A bundle's files by path.
pub type Files = BTreeMap<String, Vec<u8>>;

/// A change made to a bundle's files.
pub type Tampering = Box<dyn FnOnce(&mut Files)>;

/// Runs `payconf` with `args`: its exit code, stdout and stderr.
pub fn payconf(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(args)
        .env_remove("PAYCONF_SIGNING_KEY")
        .env_remove("PAYCONF_VERIFY_KEY")
        .output()
        .expect("payconf runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A key pair made by `payconf keygen` in `folder`, as `name.key`, `name.pub`.
pub fn keygen(folder: &Folder, name: &str) -> (PathBuf, PathBuf) {
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
pub fn embedded_bundle(folder: &Folder, key: &Path) -> PathBuf {
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

pub fn verify(bundle: &Path, key: Option<&Path>) -> (Option<i32>, String, String) {
    let mut args = vec!["verify", path(bundle)];
    if let Some(key) = key {
        args.extend(["--key", path(key)]);
    }
    payconf(&args)
}

/// The bundle's files rewritten as `change` says, packed again (the
/// manifest and signature as they were, unless `change` touches them).
pub fn repack(from: &Path, to: &Path, change: impl FnOnce(&mut BTreeMap<String, Vec<u8>>)) {
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
pub fn reseal(to: &Path, files: Files, manifest: Manifest, secret: &Path) {
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

pub fn flip_a_byte(bytes: &mut [u8], at: usize) {
    bytes[at] ^= 0x01;
}
