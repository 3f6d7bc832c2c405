//! No secret leaves a run: API keys, payment tokens in headers, full card
//! numbers and security codes appear in none of what `payconf run` writes,
//! console, logs and every report, even with every log level on.
//!
//! The run uses planted secrets of its own against a reference
//! implementation configured with them, and every byte of every artifact is
//! searched for each.

use crate::support::runner::{TempFile, browser_or_skip};
use payconf::runner::Format;
use payconf_reference::{ReferenceConfig, RunningServer};

const API_KEY: &str = "planted-api-key-5c1e9b7d";
/// The key of the lifecycle's second shop, given as PAYCONF_SECOND_SHOP_API_KEY.
const SECOND_KEY: &str = "planted-second-key-8d2f";
const ISSUER_CODE: &str = "otp-Kq7Zx9Wm";
/// An issuer code as short as real ones: masked wherever it stands alone.
const SHORT_ISSUER_CODE: &str = "4321";
const CVV: &str = "0428";
const CARDS: [(&str, &str); 3] = [
    ("4012888888881881", "frictionless"),
    ("5105105105105100", "three_ds"),
    ("4000056655665556", "declined"),
];

/// Whether `needle` stands in `haystack` on its own, not inside a longer
/// run of letters or digits (a 4-digit code is inside many numbers).
fn stands_alone(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + needle.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric())
            && !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// Where a payment token stands whole after a `paymentToken` header name.
fn token_in_header(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    lower.match_indices("paymenttoken").find_map(|(i, _)| {
        let rest = &lower[i + "paymenttoken".len()..];
        let rest = rest.trim_start_matches(['"', '\'', ':', ' ', '=']);
        let candidate: String = rest.chars().take(36).collect();
        uuid::Uuid::parse_str(&candidate)
            .ok()
            .map(|_| text[i..i + 60.min(text.len() - i)].to_owned())
    })
}

/// A secret as written and in the forms a server or page re-encodes it in:
/// URL-encoded, base64 (standard and URL-safe), hexadecimal.
fn encoded_forms(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    let engines = [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let mut forms = vec![
        secret.to_owned(),
        url::form_urlencoded::byte_serialize(secret.as_bytes()).collect(),
    ];
    forms.extend(engines.iter().map(|engine| engine.encode(secret)));
    forms.push(secret.bytes().map(|b| format!("{b:02x}")).collect());
    forms.sort();
    forms.dedup();
    forms
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_secret_appears_in_any_output_or_report() {
    assert_no_leak("form", ISSUER_CODE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_planted_secret_appears_with_the_browser_driver() {
    if browser_or_skip("no_planted_secret_appears_with_the_browser_driver") {
        assert_no_leak("browser", ISSUER_CODE).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_issuer_code_appears_in_no_output_or_report() {
    assert_no_leak("form", SHORT_ISSUER_CODE).await;
}

/// A whole run with planted secrets and every report, searched for them
/// and for their encoded forms.
async fn assert_no_leak(driver: &str, issuer_code: &str) {
    let mut config_text = format!(
        "token_lifetime_secs = 1\nissuer_code = \"{issuer_code}\"\n\
         [[merchants]]\nshop_login = \"PLANTED_SHOP\"\napi_key = \"{API_KEY}\"\n\
         settlement_delay_secs = 1\n\
         [[merchants]]\nshop_login = \"PLANTED_WAREHOUSE\"\napi_key = \"{SECOND_KEY}\"\n\
         settlement = \"separated\"\n"
    );
    for (number, behaviour) in CARDS {
        config_text.push_str(&format!(
            "[[cards]]\nnumber = \"{number}\"\nbehaviour = \"{behaviour}\"\n"
        ));
    }
    let config = ReferenceConfig::from_toml(&config_text).expect("a valid configuration");
    let server = RunningServer::start(config).await.expect("server starts");
    let base = server.base_url.as_str().trim_end_matches('/').to_owned();

    let mut target = format!(
        "base_url = \"{base}\"\nshop_login = \"PLANTED_SHOP\"\ntoken_lifetime_secs = 1\n\
         success_url = \"{base}/merchant/PLANTED_SHOP/success\"\n\
         failure_url = \"{base}/merchant/PLANTED_SHOP/failure\"\n"
    );
    for (number, name) in CARDS {
        target.push_str(&format!(
            "[cards.{name}]\nnumber = \"{number}\"\nexp_month = \"12\"\nexp_year = \"99\"\ncvv = \"{CVV}\"\n"
        ));
    }
    target.push_str(&format!(
        "[acs]\ndriver = \"{driver}\"\nfields = {{ otp = \"{issuer_code}\" }}\n\
         [lifecycle]\nsettlement = \"unified\"\nsettles_within_secs = 10\n\
         [lifecycle.second_shop]\nshop_login = \"PLANTED_WAREHOUSE\"\n"
    ));
    let target = TempFile::new("target.toml", &target);

    let dir = std::env::temp_dir().join(format!("payconf-redaction-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("folder");
    // Every format there is: a new one is checked for leaks as it lands.
    let reports = Format::ALL.map(Format::file_name);
    let mut args: Vec<String> = vec![
        "run".into(),
        "--target".into(),
        target.0.display().to_string(),
        "--tags".into(),
        "@core or @reference".into(),
    ];
    for format in Format::ALL {
        args.push(format.flag().to_owned());
        args.push(dir.join(format.file_name()).display().to_string());
    }
    // And the evidence bundle, every file of it.
    let pair = payconf::runner::bundle::keys::keygen(&dir.join("signing")).expect("a key pair");
    let bundle = dir.join("evidence.tar.gz");
    args.extend([
        "--evidence".to_owned(),
        bundle.display().to_string(),
        "--signing-key".to_owned(),
        pair.secret.clone(),
    ]);
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
            .args(&args)
            .env("PAYCONF_API_KEY", API_KEY)
            .env("PAYCONF_SECOND_SHOP_API_KEY", SECOND_KEY)
            .env("PAYCONF_LOG", "trace")
            .env_remove("PAYCONF_BASE_URL")
            .env_remove("PAYCONF_SHOP_LOGIN")
            .output()
            .expect("payconf runs")
    })
    .await
    .expect("the run thread finishes");

    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        &stderr[stderr.len().saturating_sub(4000)..]
    );
    let mut artifacts = vec![("stdout".to_owned(), stdout), ("stderr".to_owned(), stderr)];
    for name in reports {
        let text = std::fs::read_to_string(dir.join(name)).expect("report written");
        assert!(!text.is_empty(), "{name} is empty");
        artifacts.push((name.to_owned(), text));
    }
    let bundled = payconf::runner::bundle::archive::open(&bundle).expect("the bundle reads");
    assert!(bundled.len() > Format::ALL.len(), "{:?}", bundled.keys());
    for (name, bytes) in bundled {
        if !name.ends_with(".png") {
            let text = String::from_utf8(bytes).expect("the bundle's text files are UTF-8");
            artifacts.push((format!("evidence.tar.gz:{name}"), text));
        }
    }
    let signing_pem = std::fs::read_to_string(&pair.secret).expect("the key reads");
    let _ = std::fs::remove_dir_all(&dir);

    // The run did exchange the secrets: the cards were paid and shown masked.
    let html = &artifacts
        .iter()
        .find(|(n, _)| n == "report.html")
        .expect("html")
        .1;
    assert!(
        html.contains("401288******1881"),
        "card numbers are shown masked"
    );

    let mut leaks = Vec::new();
    for (name, text) in &artifacts {
        let long = (issuer_code.len() >= 6).then_some(issuer_code);
        for secret in [Some(API_KEY), Some(SECOND_KEY), long]
            .into_iter()
            .flatten()
            .chain(CARDS.iter().map(|(number, _)| *number))
        {
            for form in encoded_forms(secret) {
                if text.contains(&form) {
                    leaks.push(format!("{name}: {form} (of {secret})"));
                }
            }
        }
        if stands_alone(text, CVV) {
            leaks.push(format!("{name}: the CVV"));
        }
        if long.is_none() && stands_alone(text, issuer_code) {
            leaks.push(format!("{name}: the issuer code {issuer_code}"));
        }
        for line in signing_pem.lines().filter(|l| !l.starts_with("-----")) {
            if text.contains(line) {
                leaks.push(format!("{name}: the evidence signing key"));
            }
        }
        if let Some(place) = token_in_header(text) {
            leaks.push(format!("{name}: a payment token in a header: {place}"));
        }
    }
    assert!(leaks.is_empty(), "secrets leaked: {leaks:#?}");
}

#[test]
fn the_leak_detectors_find_what_they_look_for() {
    assert!(stands_alone(r#"{"CVV":"0428"}"#, CVV));
    assert!(!stands_alone("id 104281", CVV));
    assert!(token_in_header("paymentToken: 3f1c2b4a-1111-4222-8333-944455556666").is_some());
    assert!(token_in_header("paymentToken: 3f1c2b4a…").is_none());
}
