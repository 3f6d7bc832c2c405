//! What is no evidence bundle, and keys that are wrong or missing: refused
//! with exit code 2 and words, never a crash; a run that cannot sign its
//! bundle does not start; and nothing a bundle says commands the terminal
//! or the CI log that `payconf verify` prints to.

use std::path::Path;

use payconf::runner::bundle::{archive::open, manifest::Manifest};

use crate::support::{
    bundles::{embedded_bundle, keygen, path, repack, reseal, verify},
    runner::{Folder, TempFile, payconf_run_with},
};

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
    // The report asked for and the bundle's are the same text.
    let written = std::fs::read(&results.0).expect("the results were written");
    assert_eq!(
        open(&bundle).expect("reads")["reports/results.json"],
        written
    );
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
