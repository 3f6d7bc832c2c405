//! The target's settings read, overridden, checked and shown.

use super::*;

/// A target file with everything a run needs (other modules' tests start
/// from it too).
pub(crate) const COMPLETE: &str = r#"
    base_url = "https://sandbox.example/pay"
    api_key = "file-key"
    shop_login = "SHOP"
    [cards.frictionless]
    number = "4111111111111111"
    exp_month = "05"
    exp_year = "30"
    cvv = "999"
    [cards.three_ds]
    number = "5555555555554444"
    exp_month = "12"
    exp_year = "30"
    cvv = "123"
    [acs]
    driver = "form"
    fields = { otp = "123456" }
"#;

fn file(text: &str) -> TargetFile {
    toml::from_str(text).expect("valid TOML")
}

/// The target a target file's text resolves to, for other modules' tests
/// (`COMPLETE`, or a variation of it).
pub(crate) fn target(text: &str) -> TargetConfig {
    file(text).resolve().expect("a complete target")
}

/// The flags here stand for flags or their variables alike: clap gives a
/// flag its PAYCONF_* variable's value when it is not on the command line
/// (tests/harness/runs_not_carried_out.rs proves that order with the real binary).
#[test]
fn flags_win_over_the_file_and_the_file_fills_the_rest() {
    let flags = TargetOverrides {
        api_key: Some("flag-key".into()),
        shop_login: Some("FLAG_SHOP".into()),
        ..TargetOverrides::default()
    };
    let target = file(COMPLETE)
        .overridden(&flags)
        .resolve()
        .expect("complete");
    assert_eq!(target.api_key.expose(), "flag-key");
    assert_eq!(target.shop_login, "FLAG_SHOP");
    assert_eq!(target.base_url.as_str(), "https://sandbox.example/pay");
    assert_eq!(target.currency, "EUR");
    assert_eq!(target.acs.driver, AcsDriver::Form);
}

#[test]
fn expiry_written_as_integers_reads_as_two_digits() {
    let text = COMPLETE
        .replace(r#"exp_month = "05""#, "exp_month = 5")
        .replace(r#"exp_year = "30""#, "exp_year = 30");
    let target = file(&text).resolve().expect("complete");
    let card = target
        .cards
        .frictionless
        .as_ref()
        .expect("a frictionless card");
    assert_eq!(
        (card.exp_month.as_str(), card.exp_year.as_str()),
        ("05", "30")
    );
}

#[test]
fn api_paths_go_under_a_base_address_with_a_path() {
    let target = file(COMPLETE).resolve().expect("complete");
    assert_eq!(
        target.api_url("/api/v1/payment/create/").as_str(),
        "https://sandbox.example/pay/api/v1/payment/create/"
    );
}

fn refusal(text: &str) -> String {
    file(text).resolve().expect_err("incomplete").setting
}

#[test]
fn missing_and_invalid_settings_are_named() {
    assert_eq!(refusal(""), "base_url");
    assert_eq!(refusal("base_url = \"sandbox.example\""), "base_url");
    assert_eq!(refusal("base_url = \"ftp://sandbox.example\""), "base_url");
    let without = |key: &str| COMPLETE.replace(&format!("{key} ="), &format!("# {key} ="));
    assert_eq!(refusal(&without("api_key")), "api_key");
    assert_eq!(refusal(&without("shop_login")), "shop_login");
    assert_eq!(
        refusal(&COMPLETE.replace("exp_month = \"05\"", "exp_month = \"5\"")),
        "cards.frictionless.exp_month"
    );
    // A path from the base URL's origin begins with `/`; `thanks` alone is
    // neither that nor an absolute URL.
    let unanchored_page = COMPLETE.replace(
        "shop_login = \"SHOP\"",
        "shop_login = \"SHOP\"\nsuccess_url = \"thanks\"",
    );
    assert_eq!(refusal(&unanchored_page), "success_url");
}

#[test]
fn every_problem_of_the_settings_is_named_at_once() {
    let text = COMPLETE
        .replace("api_key =", "# api_key =")
        .replace("exp_month = \"05\"", "exp_month = \"5\"")
        .replace(
            "shop_login = \"SHOP\"",
            "shop_login = \"SHOP\"\namount = \"1\"\nfailure_url = \"nowhere\"",
        );
    let error = file(&text).resolve().expect_err("four problems");
    let named: Vec<&str> = error.problems().map(|p| p.setting.as_str()).collect();
    assert_eq!(
        named,
        [
            "api_key",
            "amount",
            "failure_url",
            "cards.frictionless.exp_month"
        ]
    );
    assert!(
        error
            .to_string()
            .starts_with("4 settings need a change:\n  api_key: missing"),
        "{error}"
    );
}

#[test]
fn the_merchants_pages_follow_the_base_url_they_are_written_from() {
    let text = COMPLETE.replace(
        "shop_login = \"SHOP\"",
        "shop_login = \"SHOP\"\nsuccess_url = \"/merchant/SHOP/success\"\n\
         failure_url = \"{base_url}/merchant/SHOP/failure\"",
    );
    let mut moved = file(&text);
    moved.base_url = Some("http://127.0.0.1:9999/gateway".to_owned());
    let target = moved.resolve().expect("complete");
    assert_eq!(
        target.success_url.map(String::from).as_deref(),
        Some("http://127.0.0.1:9999/merchant/SHOP/success")
    );
    assert_eq!(
        target.failure_url.map(String::from).as_deref(),
        Some("http://127.0.0.1:9999/gateway/merchant/SHOP/failure")
    );
}

#[test]
fn the_browser_driver_and_steps_read_from_the_target_file() {
    let text = COMPLETE.replace(
        "driver = \"form\"",
        "driver = \"browser\"\nsteps = [{ type = \"#code\", field = \"otp\" }, { click = \"#go\" }]\nbrowser = { chromedriver = \"/opt/cd\" }",
    );
    let target = file(&text).resolve().expect("complete");
    assert_eq!(target.acs.driver, AcsDriver::Browser);
    assert_eq!(target.acs.steps.len(), 2);
    assert_eq!(target.acs.browser.chromedriver.as_deref(), Some("/opt/cd"));
    let unknown_field = COMPLETE.replace(
        "driver = \"form\"",
        "driver = \"form\"\nsteps = [{ type = \"#code\", field = \"passcode\" }]",
    );
    assert_eq!(refusal(&unknown_field), "acs.steps[0].field");
}

#[test]
fn the_buyer_and_the_transaction_prefix_come_from_the_target_file() {
    let defaults = file(COMPLETE).resolve().expect("complete");
    assert_eq!(
        (defaults.buyer_name.as_str(), defaults.buyer_email.as_str()),
        (DEFAULT_BUYER_NAME, DEFAULT_BUYER_EMAIL)
    );
    assert_eq!(defaults.transaction_prefix, DEFAULT_TRANSACTION_PREFIX);
    let own = COMPLETE.replace(
        "shop_login = \"SHOP\"",
        "shop_login = \"SHOP\"\nbuyer_name = \"Ada\"\nbuyer_email = \"ada@shop.test\"\ntransaction_prefix = \"ci-\"",
    );
    let own = file(&own).resolve().expect("complete");
    assert_eq!(own.buyer_email, "ada@shop.test");
    assert_eq!(own.transaction_prefix, "ci-");
    let set = |line: &str| {
        COMPLETE.replace(
            "shop_login = \"SHOP\"",
            &format!("shop_login = \"SHOP\"\n{line}"),
        )
    };
    assert_eq!(refusal(&set("buyer_email = \" \"")), "buyer_email");
    assert_eq!(
        refusal(&set(&format!(
            "transaction_prefix = \"{}\"",
            "x".repeat(33)
        ))),
        "transaction_prefix"
    );
}

#[test]
fn submit_carries_the_api_key_unless_the_target_says_not_to() {
    assert!(
        file(COMPLETE)
            .resolve()
            .expect("complete")
            .submit_authorization
    );
    let off = COMPLETE.replace(
        "shop_login = \"SHOP\"",
        "shop_login = \"SHOP\"\nsubmit_authorization = false",
    );
    assert!(!file(&off).resolve().expect("complete").submit_authorization);
}

#[test]
fn the_driver_flag_wins_over_the_environment() {
    let env = |name: &str| (name == "PAYCONF_ACS_DRIVER").then(|| "browser".to_owned());
    assert_eq!(
        driver_override(None, env).expect("valid"),
        Some(AcsDriver::Browser)
    );
    assert_eq!(
        driver_override(Some("form"), env).expect("valid"),
        Some(AcsDriver::Form)
    );
    assert_eq!(driver_override(None, |_| None).expect("valid"), None);
    let err = driver_override(Some("selenium"), env).expect_err("unknown driver");
    assert_eq!(err.setting, "--acs-driver");
}

#[test]
fn unknown_settings_are_refused() {
    let err = TargetFile::load(Path::new("/nonexistent/target.toml")).expect_err("no file");
    assert_eq!(err.setting, "--target");
    assert!(toml::from_str::<TargetFile>("base_ur = \"x\"").is_err());
}

#[test]
fn debug_output_hides_keys_cards_and_codes() {
    let target = file(COMPLETE).resolve().expect("complete");
    let shown = format!("{target:?}");
    let cvvs = target.cards().map(|(_, card)| card.cvv.expose().to_owned());
    for secret in target
        .secrets()
        .into_iter()
        .chain(target.card_numbers())
        .chain(cvvs)
    {
        assert!(!shown.contains(&secret), "{secret} in {shown}");
    }
}

#[test]
fn notifications_are_read_checked_and_their_secret_taken_from_the_environment() {
    let with = |section: &str| format!("{COMPLETE}\n[notifications]\n{section}\n");
    let target = file(&with("")).resolve().expect("defaults");
    let settings = target.notifications.expect("declared");
    assert_eq!(settings.listen.to_string(), "127.0.0.1:0");
    assert!(settings.url.is_none() && settings.signing_secret.is_none());
    assert_eq!(settings.within, notifications::DEFAULT_WITHIN);
    assert!(
        file(COMPLETE)
            .resolve()
            .expect("complete")
            .notifications
            .is_none()
    );

    for (section, setting) in [
        ("listen = \"localhost:80\"", "notifications.listen"),
        ("listen = \"0.0.0.0:8089\"", "notifications.url"),
        (
            "listen = \"127.0.0.1:0\"\nurl = \"http://host.docker.internal:8089/\"",
            "notifications.listen",
        ),
        (
            "listen = \"0.0.0.0:8089\"\nurl = \"http://10.0.0.5:8089/hook?x=1\"",
            "notifications.url",
        ),
        ("url = \"ftp://x/\"", "notifications.url"),
        ("within_secs = 0", "notifications.within_secs"),
        (
            "retry_within_secs = 3601",
            "notifications.retry_within_secs",
        ),
        ("signing_secret = \"\"", "notifications.signing_secret"),
    ] {
        assert_eq!(refusal(&with(section)), setting, "{section}");
    }
    let behind_nat = file(&with(
        "listen = \"0.0.0.0:8089\"\nurl = \"http://host.docker.internal:9000/hooks\"",
    ))
    .resolve()
    .expect("a url for a listener on every interface");
    let settings = behind_nat.notifications.expect("declared");
    assert_eq!(settings.url.expect("url").port(), Some(9000));

    let flags = TargetOverrides {
        notification_secret: Some("from-the-environment".into()),
        ..TargetOverrides::default()
    };
    let target = file(&with("signing_secret = \"from-the-file\""))
        .overridden(&flags)
        .resolve()
        .expect("complete");
    let secret = target
        .notifications
        .as_ref()
        .and_then(|n| n.signing_secret.as_ref());
    assert_eq!(secret.map(Secret::expose), Some("from-the-environment"));
    assert!(
        target
            .secrets()
            .contains(&"from-the-environment".to_owned()),
        "the signing secret is masked wherever it appears"
    );
    assert_eq!(target.summary()["notifications"]["signing_secret"], "***");
}

/// The sandbox tells payconf's conformance runs' payments from a shop's
/// own by the prefix payconf gives their shop transaction IDs by default.
#[test]
fn the_sandbox_knows_the_prefix_of_payconfs_runs() {
    assert_eq!(
        payconf_reference::CONFORMANCE_PREFIX,
        DEFAULT_TRANSACTION_PREFIX
    );
}

#[test]
fn the_embedded_target_s_secrets_hold_the_key_of_each_of_its_shops() {
    let target = super::reference_defaults(url::Url::parse("http://127.0.0.1/").expect("a URL"));
    let secrets = target.secrets();
    for key in [
        payconf_reference::DEFAULT_API_KEY,
        super::SEPARATED_SHOP_KEY,
        super::EXPIRING_SHOP_KEY,
    ] {
        assert!(secrets.iter().any(|s| s == key), "{key} in {secrets:?}");
    }
}
