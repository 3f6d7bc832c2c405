//! `payconf bench`'s flags, and the one thing they ask to measure.

/// Flags of `payconf bench`. At most one of the flags that measure
/// something else instead (`--issuer-pages`, `--payment-pages`,
/// `--hostile`, `--bundles`, `--volley`) is taken: two are refused.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("instead").multiple(false))]
pub struct BenchArgs {
    /// Concurrent connections of the load client.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub connections: u64,
    /// Seconds each throughput scenario runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub duration: u64,
    /// Live payments to create for the memory measurement (0: skip it).
    #[arg(long, default_value_t = 1_000_000)]
    pub live_payments: usize,
    /// Measure a running service at this address instead of a `payconf
    /// serve` the benchmark starts.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<url::Url>,
    /// Also measure a bare hyper server answering a create answer's bytes,
    /// taking turns with the service under the same load client, and give
    /// every throughput as a ratio to it.
    #[arg(long)]
    pub baseline: bool,
    /// Rounds the scenarios take turns in (baseline, create, create+submit,
    /// then again), each a share of `--duration`.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
    /// Measure the browser driver instead: Chromium's start, and each issuer
    /// scenario against every issuer page style of the reference implementation.
    #[arg(long, group = "instead")]
    pub issuer_pages: bool,
    /// Measure the standard payment page instead: the buyer's journey on the
    /// sandbox's page (form driver and browser) and in its lightbox, opened
    /// from a shop's page of its own.
    #[arg(long, group = "instead")]
    pub payment_pages: bool,
    /// Measure the generated-input check of @robustness instead: this many
    /// generated bodies for create and as many for submit, against an
    /// in-process reference implementation.
    #[arg(long, group = "instead", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub hostile: Option<u64>,
    /// Measure evidence bundles instead: a whole run against the embedded
    /// reference implementation with and without `run --evidence FILE`, the
    /// bundle's size, and `payconf verify` of it, ROUNDS rounds (5 when not
    /// given). Not `--evidence`, which names a file in `payconf run`.
    #[arg(long, group = "instead", value_name = "ROUNDS", num_args = 0..=1,
          default_missing_value = "5", value_parser = clap::value_parser!(u64).range(1..=1_000))]
    pub bundles: Option<u64>,
    /// Measure the robustness profile's volleys instead: how close together
    /// 20 requests sent at once reach a server on loopback, over plain
    /// HTTP, TLS with HTTP/1.1 and TLS with HTTP/2, beside requests simply
    /// sent together, ROUNDS volleys of each (30 when not given).
    #[arg(long, group = "instead", value_name = "ROUNDS", num_args = 0..=1,
          default_missing_value = "30", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub volley: Option<u64>,
}

/// What `payconf bench` measures, from its flags.
#[derive(Debug)]
pub enum BenchMode {
    /// The service under load (the default).
    Service(crate::bench::BenchOptions),
    /// `--issuer-pages`: the browser driver on every issuer page style.
    IssuerPages,
    /// `--payment-pages`: the buyer's journey on the payment page.
    PaymentPages,
    /// `--hostile N`: the generated-input check.
    Hostile(usize),
    /// `--bundles [ROUNDS]`: writing and verifying an evidence bundle.
    Evidence(usize),
    /// `--volley [ROUNDS]`: how close together a volley's requests arrive.
    Volley(usize),
}

impl BenchArgs {
    /// The one thing these flags measure (clap refuses two).
    pub fn mode(self) -> BenchMode {
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if self.issuer_pages {
            BenchMode::IssuerPages
        } else if self.payment_pages {
            BenchMode::PaymentPages
        } else if let Some(n) = self.hostile {
            BenchMode::Hostile(count(n))
        } else if let Some(rounds) = self.bundles {
            BenchMode::Evidence(count(rounds))
        } else if let Some(rounds) = self.volley {
            BenchMode::Volley(count(rounds))
        } else {
            BenchMode::Service(crate::bench::BenchOptions {
                connections: count(self.connections),
                duration: std::time::Duration::from_secs(self.duration),
                live_payments: self.live_payments,
                base_url: self.base_url,
                baseline: self.baseline,
                rounds: count(self.rounds),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn mode(args: &[&str]) -> Result<BenchMode, clap::Error> {
        let cli = Cli::try_parse_from(["payconf", "bench"].iter().chain(args))?;
        match cli.command {
            Command::Bench(args) => Ok(args.mode()),
            other => panic!("not bench: {other:?}"),
        }
    }

    #[test]
    fn each_flag_names_its_measurement_and_none_the_service_under_load() {
        assert!(matches!(mode(&[]), Ok(BenchMode::Service(_))));
        assert!(matches!(
            mode(&["--issuer-pages"]),
            Ok(BenchMode::IssuerPages)
        ));
        assert!(matches!(
            mode(&["--payment-pages"]),
            Ok(BenchMode::PaymentPages)
        ));
        assert!(matches!(
            mode(&["--hostile", "7"]),
            Ok(BenchMode::Hostile(7))
        ));
        assert!(matches!(mode(&["--bundles"]), Ok(BenchMode::Evidence(5))));
        assert!(matches!(mode(&["--volley", "3"]), Ok(BenchMode::Volley(3))));
        // `--evidence` names a file in `payconf run`: no bench flag shares it.
        assert!(mode(&["--evidence"]).is_err());
    }

    #[test]
    fn two_measurements_at_once_are_refused_not_one_silently_taken() {
        let pairs: [&[&str]; 3] = [
            &["--hostile", "5", "--volley", "3"],
            &["--issuer-pages", "--bundles", "2"],
            &["--payment-pages", "--volley"],
        ];
        for pair in pairs {
            let error = mode(pair).expect_err("refused");
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ArgumentConflict,
                "{pair:?}"
            );
        }
    }
}
