//! `payconf verify FILE [--key PUBLIC]`: an evidence bundle checked
//! offline, on any machine, without the suite's server: the manifest's
//! signature by the key one was given, every file's SHA-256 against the
//! manifest (and no file the manifest does not list), the verdict
//! recomputed from the results' scenarios by the rule the run follows and
//! compared with what the results and the manifest say, and whether the
//! spec and features are the ones this payconf carries.
//!
//! VERIFIED only against a key the verifier trusts: given with `--key`, or
//! by configuration (`PAYCONF_VERIFY_KEY`). Without one, the bundle is
//! checked whole against its own `signer.pub`, which anyone who changes a
//! bundle can replace with their own: it is said to be INTACT, signer
//! unchecked, never VERIFIED.
//!
//! Exit 0 when everything holds against a trusted key; 3 when everything
//! holds but no key was trusted; 1 when the bundle was changed (each
//! finding names its file); 2 when the file is no bundle this payconf can
//! read (not an archive, cut short, another format), or the key is
//! missing, unreadable or not the one that signed it. Everything the
//! bundle says is printed made harmless ([`crate::runner::neutral`]).

use std::{collections::BTreeMap, path::Path, process::ExitCode};

use base64::Engine;
use ed25519_dalek::{Signature, VerifyingKey};
use payconf_spec::{contract::Contract, digest::sha256_hex, features::Features};

use crate::runner::{
    bundle::{
        MANIFEST, RESULTS, SIGNATURE, SIGNER,
        archive::{Unusable, open},
        keys::{KeyError, id, parse_public, trusted_key},
        manifest::{FORMAT, FORMAT_VERSION, Manifest},
    },
    neutral::inline,
    result::{RunRecord, Verdict},
};

/// A bundle that cannot be verified at all: exit code 2.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The key given is missing or no key.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The file is no bundle this payconf reads.
    #[error("{path}: {why}")]
    Unusable {
        /// The file.
        path: String,
        /// Why.
        why: Unusable,
    },
    /// A file every bundle holds is missing.
    #[error("{path}: not a payconf evidence bundle: it holds no {missing}")]
    Incomplete {
        /// The file.
        path: String,
        /// Which.
        missing: &'static str,
    },
    /// It was made in another bundle format.
    #[error("{path}: {said}, and this payconf reads {FORMAT} format {FORMAT_VERSION}")]
    OtherFormat {
        /// The file.
        path: String,
        /// What its manifest says it is.
        said: String,
    },
    /// Another key signed it than the one given.
    #[error(
        "{path}: signed by key {signed}, not by the key given ({given}): ask its maker for their \
         public key, or check that --key names it"
    )]
    WrongKey {
        /// The file.
        path: String,
        /// The id of the key in the bundle.
        signed: String,
        /// The id of the key given.
        given: String,
    },
}

/// What the check found wrong with a bundle it could read.
struct Findings(Vec<String>);

impl Findings {
    fn add(&mut self, file: &str, what: impl std::fmt::Display) {
        self.0.push(format!("{}: {what}", inline(file)));
    }
}

/// Checks the bundle at `path`, with the public key at `key` when given;
/// prints what it found and returns the exit code.
pub fn verify(path: &Path, key: Option<&Path>) -> Result<ExitCode, VerifyError> {
    let shown = path.display().to_string();
    let trusted = key.map(trusted_key).transpose()?;
    let mut files = open(path).map_err(|why| VerifyError::Unusable {
        path: shown.clone(),
        why,
    })?;
    let mut take = |name: &'static str| {
        files.remove(name).ok_or(VerifyError::Incomplete {
            path: shown.clone(),
            missing: name,
        })
    };
    let (manifest_bytes, signature, signer) = (take(MANIFEST)?, take(SIGNATURE)?, take(SIGNER)?);
    let signer = std::str::from_utf8(&signer).ok().and_then(parse_public);

    let mut findings = Findings(Vec::new());
    let signed_by = match (&trusted, &signer) {
        (Some(given), _) => *given,
        (None, Some(own)) => *own,
        (None, None) => {
            findings.add(SIGNER, "not a public key: the bundle was changed");
            return Ok(conclude(&shown, &findings, Signer::Unchecked));
        }
    };
    let verified = read_signature(&signature)
        .is_some_and(|signature| signed_by.verify_strict(&manifest_bytes, &signature).is_ok());
    if !verified {
        if let (Some(given), Some(own)) = (&trusted, &signer) {
            if given != own {
                return Err(VerifyError::WrongKey {
                    path: shown,
                    signed: id(own),
                    given: id(given),
                });
            }
        }
        findings.add(
            &format!("{MANIFEST} or {SIGNATURE}"),
            "the signature does not verify: the manifest or its signature was changed",
        );
    }
    let Some(manifest) = Manifest::parse(&manifest_bytes) else {
        findings.add(MANIFEST, "not a manifest of payconf's");
        return Ok(conclude(&shown, &findings, Signer::Unchecked));
    };
    if manifest.format != FORMAT || manifest.format_version != FORMAT_VERSION {
        return Err(VerifyError::OtherFormat {
            path: shown,
            said: format!(
                "{} format {}",
                inline(&manifest.format),
                manifest.format_version
            ),
        });
    }

    say_signature(&shown, &manifest, verified, &signed_by, trusted.is_some());
    check_files(&manifest, &mut files, &mut findings);
    check_verdict(&manifest, &files, &mut findings);
    say_provenance(&manifest);
    let signer = if trusted.is_some() {
        Signer::Trusted
    } else {
        Signer::Unchecked
    };
    Ok(conclude(&shown, &findings, signer))
}

/// The bundle's maker and start, and whether its signature verifies, by
/// which key (`given` with `--key`, or the bundle's own).
fn say_signature(
    shown: &str,
    manifest: &Manifest,
    verified: bool,
    signed_by: &VerifyingKey,
    given: bool,
) {
    println!(
        "bundle: {shown}, made by payconf {}, run started {}",
        inline(&manifest.payconf),
        inline(&manifest.started_at)
    );
    println!(
        "signature: {}, by key {}{}",
        if verified { "good" } else { "BAD" },
        id(signed_by),
        if given {
            " (the key given with --key)"
        } else {
            " (the bundle's own signer.pub, which proves the bundle whole, not who signed it)"
        }
    );
}

/// Whether the key the signature was checked with is one the verifier
/// trusts, or only the bundle's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signer {
    Trusted,
    Unchecked,
}

/// Base64 of 64 bytes, as `manifest.sig` holds it.
fn read_signature(bytes: &[u8]) -> Option<Signature> {
    let text = std::str::from_utf8(bytes).ok()?.trim();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(text)
        .ok()?;
    Signature::from_slice(&raw).ok()
}

/// Every file the manifest lists is there with its SHA-256 and size, and
/// nothing else is.
fn check_files(
    manifest: &Manifest,
    files: &mut BTreeMap<String, Vec<u8>>,
    findings: &mut Findings,
) {
    let mut matched = 0;
    for listed in &manifest.files {
        match files.get(&listed.path) {
            None => findings.add(
                &listed.path,
                "listed in the manifest, and not in the bundle",
            ),
            Some(bytes)
                if sha256_hex(bytes) != listed.sha256 || bytes.len() as u64 != listed.bytes =>
            {
                findings.add(
                    &listed.path,
                    "its SHA-256 is not the manifest's: the file was changed",
                );
            }
            Some(_) => matched += 1,
        }
    }
    let listed: Vec<&str> = manifest.files.iter().map(|f| f.path.as_str()).collect();
    for extra in files.keys().filter(|path| !listed.contains(&path.as_str())) {
        findings.add(
            extra,
            "in the bundle, and not in the manifest: it was added",
        );
    }
    println!(
        "files: {matched} of {} match their SHA-256 in the manifest",
        manifest.files.len()
    );
}

/// The verdict the results' scenarios earn is the one the results and the
/// manifest say.
fn check_verdict(manifest: &Manifest, files: &BTreeMap<String, Vec<u8>>, findings: &mut Findings) {
    let Some(bytes) = files.get(RESULTS) else {
        findings.add(RESULTS, "missing: no verdict can be recomputed");
        return;
    };
    let past = match RunRecord::parse(RESULTS, bytes) {
        Ok(past) => past,
        Err(error) => {
            findings.add(RESULTS, format!("cannot be read back ({error})"));
            return;
        }
    };
    let earned = past.earned();
    let counts = past.scenario_counts();
    let checked = past.target.checked().to_string();
    if !manifest.target.is_empty() && manifest.target != checked {
        findings.add(
            MANIFEST,
            format!(
                "names the target {}, and the results name {}",
                inline(&manifest.target),
                inline(&checked)
            ),
        );
    }
    println!("target: {}", inline(&checked));
    if past.outcome != earned || past.exit_code != earned.exit_code() {
        findings.add(
            RESULTS,
            format!(
                "says {} (exit code {}), and its scenarios earn {} (exit code {})",
                past.outcome.name(),
                past.exit_code,
                earned.name(),
                earned.exit_code()
            ),
        );
    }
    if Verdict::named(&manifest.verdict) != Some(earned) || manifest.exit_code != earned.exit_code()
    {
        findings.add(
            MANIFEST,
            format!(
                "says {} (exit code {}), and the results' scenarios earn {}",
                inline(&manifest.verdict),
                manifest.exit_code,
                earned.name()
            ),
        );
    }
    println!(
        "verdict: {} (exit code {}), recomputed from {} scenarios: {} passed, {} flaky, {} failed, \
         {} waived, {} not judged, {} skipped",
        earned.name(),
        earned.exit_code(),
        counts.total(),
        counts.passed,
        counts.flaky,
        counts.failed,
        counts.waived,
        counts.errors,
        counts.skipped
    );
}

/// Whether the spec and features are the ones this payconf carries.
fn say_provenance(manifest: &Manifest) {
    for (what, bundled, carried) in [
        ("spec", &manifest.spec_sha256, Contract::embedded_sha256()),
        (
            "features",
            &manifest.features_sha256,
            Features::embedded_sha256(),
        ),
    ] {
        let short = |hex: &str| inline(hex.get(..12).unwrap_or(hex)).into_owned();
        let (the, other) = if what == "spec" {
            ("the one", "another spec")
        } else {
            ("the ones", "other features")
        };
        if *bundled == carried {
            println!(
                "{what}: {the} this payconf carries (sha256 {})",
                short(bundled)
            );
        } else {
            println!(
                "{what}: not {the} this payconf carries (sha256 {}; this payconf's {}): the run \
                 was of {other}",
                short(bundled),
                short(&carried)
            );
        }
    }
}

/// The last lines, and the exit code.
fn conclude(shown: &str, findings: &Findings, signer: Signer) -> ExitCode {
    match (findings.0.is_empty(), signer) {
        (true, Signer::Trusted) => {
            println!("result: VERIFIED, {shown} is as signed (exit code 0)");
            return ExitCode::SUCCESS;
        }
        (true, Signer::Unchecked) => {
            println!(
                "result: INTACT, SIGNER UNCHECKED, {shown} is whole as its own key signed it, \
                 but anyone who changes a bundle can sign it again with a key of theirs: give \
                 --key (or PAYCONF_VERIFY_KEY) the public key its maker handed you (exit code 3)"
            );
            return ExitCode::from(3);
        }
        (false, _) => {}
    }
    for finding in &findings.0 {
        println!("changed: {finding}");
    }
    println!(
        "result: NOT VERIFIED, {} (exit code 1)",
        match findings.0.len() {
            1 => "1 finding".to_owned(),
            n => format!("{n} findings"),
        }
    );
    ExitCode::from(1)
}
