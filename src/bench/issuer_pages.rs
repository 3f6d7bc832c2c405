//! `payconf bench --issuer-pages`: the browser driver, measured as users run
//! it. Chromium's start is timed alone; then, for every issuer page style of
//! the reference implementation, `payconf run --acs-driver browser --tags
//! @issuer` runs as its own process, one scenario at a time (so that no
//! scenario's time includes another's turn with the browser), and each
//! scenario's time is read from its `--results` file.

use super::error::BenchError;
use std::time::{Duration, Instant};

use payconf_reference::{IssuerPage, ReferenceConfig, RunningServer};

use super::processes::run_recorded;
use crate::runner::buyer::browser::chromium::{self, BrowserSettings, Chromium};

/// Runs the measurement and prints its figures.
pub async fn issuer_pages() -> Result<(), BenchError> {
    let settings = BrowserSettings::default();
    let programs = chromium::locate(&settings, |name| std::env::var(name).ok())
        .map_err(BenchError::start("the browser"))?;
    let started = Instant::now();
    let browser = Chromium::start(&programs, &settings, Duration::from_secs(10))
        .await
        .map_err(BenchError::start("the browser"))?;
    let start = started.elapsed();
    browser.close().await;
    println!(
        "payconf bench --issuer-pages: Chromium {}; {} CPUs",
        browser.version,
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    println!(
        "browser start    {:.2} s (ChromeDriver, Chromium, a fresh profile), once a run",
        start.as_secs_f64()
    );
    for style in IssuerPage::ALL {
        let config = ReferenceConfig {
            issuer_page: style,
            ..ReferenceConfig::default()
        };
        let server = RunningServer::start(config)
            .await
            .map_err(BenchError::start("the reference implementation"))?;
        let target = target_file(server.base_url.as_str());
        // The issuer's scenarios: the payment page's have a bench of their own.
        let tags = "@issuer and not @payment-page";
        let measured = measure(&target, "browser", tags, style.name()).await;
        let _ = server.shutdown().await;
        let (durations, wall) = measured?;
        let (slowest, mean) = slowest_and_mean(&durations);
        println!(
            "{:<9}        {} issuer scenarios: {:.0} ms the slowest, {:.0} ms on average; the run {:.2} s wall, browser start included",
            style.name(),
            durations.len(),
            slowest,
            mean,
            wall.as_secs_f64()
        );
    }
    Ok(())
}

/// Runs the scenarios `tags` selects against the target `target` (a target
/// file's text), with `driver`, in a `payconf run` of their own, one at a
/// time; returns each scenario's milliseconds and the run's wall time.
/// `style` names what is measured, in an error.
pub(super) async fn measure(
    target: &str,
    driver: &str,
    tags: &str,
    style: &str,
) -> Result<(Vec<f64>, Duration), BenchError> {
    let args = ["--acs-driver", driver, "--tags", tags, "--concurrency", "1"];
    let failed = format!("the scenarios did not pass against the {style} page");
    let (record, wall) = run_recorded(&args, target, &failed).await?;
    let durations = record
        .scenarios
        .iter()
        .map(|s| s.duration_ms as f64)
        .collect();
    Ok((durations, wall))
}

/// The slowest and the mean of scenarios' milliseconds.
pub(super) fn slowest_and_mean(durations: &[f64]) -> (f64, f64) {
    let slowest = durations.iter().copied().fold(0.0_f64, f64::max);
    let mean = durations.iter().sum::<f64>() / durations.len().max(1) as f64;
    (slowest, mean)
}

/// A target file for the reference implementation's defaults at `base`,
/// for the browser driver.
pub(super) fn target_file(base: &str) -> String {
    use payconf_reference as reference;
    let base = base.trim_end_matches('/');
    let shop = reference::DEFAULT_SHOP_LOGIN;
    let card = |name: &str, number: &str| {
        format!(
            "[cards.{name}]\nnumber = \"{number}\"\nexp_month = \"12\"\nexp_year = \"99\"\ncvv = \"123\"\n"
        )
    };
    format!(
        "base_url = \"{base}\"\napi_key = \"{key}\"\nshop_login = \"{shop}\"\n\
         success_url = \"{base}/merchant/{shop}/success\"\nfailure_url = \"{base}/merchant/{shop}/failure\"\n\
         {frictionless}{three_ds}[acs]\ndriver = \"browser\"\nfields = {{ otp = \"{code}\" }}\n",
        key = reference::DEFAULT_API_KEY,
        frictionless = card("frictionless", reference::DEFAULT_FRICTIONLESS_CARD),
        three_ds = card("three_ds", reference::DEFAULT_THREE_DS_CARD),
        code = reference::DEFAULT_ISSUER_CODE,
    )
}
