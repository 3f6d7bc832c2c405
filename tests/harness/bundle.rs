//! The evidence bundle: a run's `--evidence` archive verifies with `payconf
//! verify` and the signer's public key, holds the whole run (a browser
//! run's screenshots among it) and reads offline; every kind of tampering
//! (a report, the manifest, the signature, a file added or removed, the
//! verdict in the results, even signed again) is found and named.

use payconf::runner::bundle::{archive::open, manifest::Manifest};

use crate::support::{
    bundles::{Tampering, embedded_bundle, flip_a_byte, keygen, path, repack, reseal, verify},
    runner::Folder,
};

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
        "target: the embedded reference implementation (payconf's own sandbox, not your server)",
        "verdict: passed (exit code 0), recomputed from ",
        "spec: the one this payconf carries",
        "features: the ones this payconf carries",
        "result: VERIFIED,",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    // Without --key: whole, by its own key, and said to be only that: never
    // VERIFIED, exit code 3.
    let (code, out, _) = verify(&bundle, None);
    assert_eq!(code, Some(3), "{out}");
    assert!(out.contains("(the bundle's own signer.pub,"), "{out}");
    assert!(
        out.contains("result: INTACT, SIGNER UNCHECKED,") && !out.contains("result: VERIFIED"),
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
    let results = payconf::runner::record::RunRecord::parse(
        "reports/results.json",
        &files["reports/results.json"],
    )
    .expect("the results read back");
    assert_eq!(manifest.spec_sha256, results.spec.sha256);
    assert_eq!(manifest.features_sha256, results.features.sha256);
    let listing = String::from_utf8(files["features.sha256"].clone()).expect("UTF-8");
    assert!(
        listing
            .lines()
            .any(|l| l.len() == 64 + 2 + "create.feature".len() && l.ends_with("  create.feature")),
        "{listing}"
    );
    // The listing is what the manifest's features digest is of.
    assert_eq!(
        payconf_spec::digest::sha256_hex(listing.as_bytes()),
        manifest.features_sha256
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

    // Signed again by the same key, a run of payconf's own sandbox said in
    // the manifest to have checked a server: the results say otherwise.
    let files = open(&bundle).expect("reads");
    let mut manifest = Manifest::parse(&files["manifest.json"]).expect("a manifest");
    manifest.target = "https://psp.example/".to_owned();
    reseal(&changed, files, manifest, &secret);
    let (code, out, _) = verify(&changed, Some(&public));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(
            "changed: manifest.json: names the target https://psp.example/, and the results \
             name the embedded reference implementation"
        ),
        "{out}"
    );

    // Signed again by the same key, a scenario whose outcome payconf never
    // writes: refused, never counted (it once counted as a skip).
    let mut files = open(&bundle).expect("reads");
    let manifest = Manifest::parse(&files["manifest.json"]).expect("a manifest");
    let results = files.get_mut("reports/results.json").expect("results");
    let mut value: serde_json::Value = serde_json::from_slice(results).expect("JSON");
    value["scenarios"][0]["outcome"] = "fail3d".into();
    *results = serde_json::to_vec_pretty(&value).expect("JSON");
    reseal(&changed, files, manifest, &secret);
    let (code, out, _) = verify(&changed, Some(&public));
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("has the outcome fail3d, which payconf never writes"),
        "{out}"
    );
    assert!(out.contains("result: NOT VERIFIED"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_run_s_bundle_holds_its_screenshots() {
    let test = "a_browser_run_s_bundle_holds_its_screenshots";
    if !crate::support::runner::browser_or_skip(test) {
        return;
    }
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

/// A bundle whose results were changed and which was sealed again by
/// someone else's key, its signer.pub replaced: whole by its own key, and
/// so never VERIFIED without the maker's key (exit code 3, the signer said
/// to be unchecked); with the maker's key, given or trusted by
/// configuration (`PAYCONF_VERIFY_KEY`), refused as signed by another.
#[test]
fn a_bundle_sealed_again_by_another_key_is_verified_only_against_the_makers() {
    let folder = Folder::new("bundle-resealed");
    let (secret, public) = keygen(&folder, "vendor");
    let (forger, _) = keygen(&folder, "forger");
    let bundle = embedded_bundle(&folder, &secret);
    let forged = folder.join("forged.tar.gz");
    let files = open(&bundle).expect("reads");
    let manifest = Manifest::parse(&files["manifest.json"]).expect("a manifest");
    reseal(&forged, files, manifest, &forger);

    let (code, out, _) = verify(&forged, None);
    assert_eq!(code, Some(3), "{out}");
    assert!(!out.contains("result: VERIFIED"), "{out}");
    assert!(out.contains("result: INTACT, SIGNER UNCHECKED"), "{out}");

    let (code, out, err) = verify(&forged, Some(&public));
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("not by the key given"), "{err}");

    let configured = std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
        .args(["verify", path(&forged)])
        .env("PAYCONF_VERIFY_KEY", &public)
        .output()
        .expect("payconf runs");
    assert_eq!(configured.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&configured.stderr).contains("not by the key given"),
        "{configured:?}"
    );
    let (code, out, _) = verify(&bundle, Some(&public));
    assert_eq!(code, Some(0), "the maker's own bundle: {out}");
}
