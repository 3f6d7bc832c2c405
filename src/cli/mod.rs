//! The command line: flags are documented where they are defined, and
//! `main` turns every outcome into an exit code.

use std::{net::SocketAddr, path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

use crate::{logging::LogStyle, runner::result::Verdict};

mod bench;
mod carry_out;
mod run;

pub use bench::{BenchArgs, BenchMode};
pub use run::RunArgs;
use run::run_options;

/// Conformance harness for the hosted payment service contract.
#[derive(Debug, Parser)]
#[command(
    name = "payconf",
    version,
    about,
    propagate_version = true,
    mut_subcommands = env_values_hidden
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The help names a flag's variable and never shows its value, in every
/// command: some are secrets (`PAYCONF_API_KEY`), and a help text is pasted
/// into tickets and CI logs.
fn env_values_hidden(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| arg.hide_env_values(true))
        .mut_subcommands(env_values_hidden)
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a server against the conformance scenarios (the reference
    /// implementation, in-process, when no base URL is given).
    Run(Box<RunArgs>),
    /// Print the test plan of a run, and send nothing: every requirement and
    /// scenario, whether it applies under the target file's declaration and
    /// the selection, and what would make it apply. Takes `run`'s flags.
    Plan(Box<RunArgs>),
    /// Compare two runs' results files (`--results`) requirement by
    /// requirement, print a Markdown summary fit for a pull-request comment,
    /// and exit 1 when a requirement regressed.
    Diff(DiffArgs),
    /// Check an evidence bundle (`run --evidence`) offline: its signature,
    /// every file's SHA-256, the verdict recomputed from its results, and
    /// whether its spec and features are the ones this payconf carries.
    /// Exit 0 verified, 1 changed, 2 unreadable or the wrong key.
    Verify(VerifyArgs),
    /// Make an Ed25519 key pair for signing evidence bundles: PREFIX.key
    /// (PKCS#8 PEM, readable by you only; keep it secret, as
    /// PAYCONF_SIGNING_KEY in CI) and PREFIX.pub (give it to whoever verifies).
    Keygen(KeygenArgs),
    /// Run the reference implementation as a local payment sandbox.
    Serve(ServeArgs),
    /// Write the service's documentation, generated from the spec and the
    /// features: an HTML site entered at OUT/index.html, and the same as Markdown.
    Docs(DocsArgs),
    /// Print the completions of a shell: `payconf completions bash >
    /// /etc/bash_completion.d/payconf` (zsh: a file `_payconf` on $fpath;
    /// fish: ~/.config/fish/completions/payconf.fish).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write a man page for payconf and for each of its commands into DIR
    /// (`man -l DIR/payconf-run.1`, or DIR on MANPATH as man1/).
    Man(OutFolder),
    /// Write the JSON Schemas of the target file, the waivers file and the
    /// results file into DIR, for editors (Taplo, Even Better TOML) and tools.
    Schemas(OutFolder),
    /// Measure the reference implementation under load: create and
    /// create+submit throughput and latency, memory per live payment, and
    /// the runner's time and memory.
    Bench(BenchArgs),
    /// The processes `payconf bench` starts; not for users.
    #[command(hide = true)]
    BenchHelper {
        /// Which.
        #[command(subcommand)]
        helper: BenchHelper,
    },
}

/// The processes `payconf bench` starts.
#[derive(Debug, Subcommand)]
pub enum BenchHelper {
    /// The bare hyper server of `--baseline`, answering BODY to every request.
    Baseline {
        /// The answer's body.
        #[arg(long)]
        body: String,
    },
    /// Runs `payconf ARGS` and prints its wall time and peak resident memory.
    Measure {
        /// The measured command's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Arguments of `payconf diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// The earlier run's results file.
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The later run's results file.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
}

/// Arguments of `payconf verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The bundle, as `payconf run --evidence` wrote it.
    #[arg(value_name = "FILE")]
    pub bundle: PathBuf,
    /// The signer's public key (PEM, as `payconf keygen` writes it), as its
    /// maker handed it over: only against it is a bundle VERIFIED. Without
    /// it, the bundle's own signer.pub proves the bundle whole but not who
    /// made it: INTACT, exit code 3
    #[arg(long, value_name = "PUBLIC", env = "PAYCONF_VERIFY_KEY")]
    pub key: Option<PathBuf>,
}

/// Flags of `payconf keygen`. Where it writes is a position or `--out`,
/// as every command that writes takes it.
#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    /// Where to write the pair: PREFIX.key and PREFIX.pub (default
    /// payconf-signing).
    #[arg(value_name = "PREFIX", conflicts_with = "out")]
    pub prefix: Option<PathBuf>,
    /// The same, as a flag.
    #[arg(long, value_name = "PREFIX")]
    pub out: Option<PathBuf>,
}

impl KeygenArgs {
    /// The prefix the pair is written to.
    pub fn prefix(&self) -> PathBuf {
        self.prefix
            .clone()
            .or_else(|| self.out.clone())
            .unwrap_or_else(|| PathBuf::from("payconf-signing"))
    }
}

/// The folder a command writes into: a position or `--out`, as every
/// command that writes takes it; one of the two, not both.
#[derive(Debug, clap::Args)]
#[group(id = "folder", required = true, multiple = false)]
pub struct OutFolder {
    /// The folder to write into; created if missing.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The same, as a flag.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

impl OutFolder {
    /// The folder given (clap requires one).
    pub fn path(&self) -> &std::path::Path {
        self.dir
            .as_deref()
            .or(self.out.as_deref())
            .unwrap_or(std::path::Path::new("."))
    }
}

/// Flags of `payconf docs`.
#[derive(Debug, clap::Args)]
pub struct DocsArgs {
    /// Where it writes.
    #[command(flatten)]
    pub folder: OutFolder,
    /// What to write.
    #[arg(long, value_enum, default_value_t = crate::docs::Format::Both)]
    pub format: crate::docs::Format,
    /// Read the features from this directory instead of the embedded ones.
    #[arg(long, value_name = "DIR")]
    pub features: Option<PathBuf>,
    /// Read the spec from this file instead of the embedded one.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Read the Arazzo workflows from this file instead of the embedded ones.
    #[arg(long, value_name = "FILE")]
    pub workflows: Option<PathBuf>,
}

/// Flags of `payconf serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Back-office configuration (TOML); built-in defaults without it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Serve HTTPS with this certificate (PEM, its chain after it): HTTP/2
    /// and HTTP/1.1 by ALPN, and the pages' addresses `https://`. Needs
    /// --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Keep profiles, payments and notifications owed in this SQLite file
    /// (created when missing), so a restart loses nothing; memory only
    /// without it.
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// Let notifications go to this loopback or private range (CIDR, such
    /// as 10.0.0.0/8) while listening beyond loopback; repeatable.
    /// Link-local and cloud metadata addresses are never allowed.
    #[arg(long = "allow-outbound", value_name = "CIDR")]
    pub allow_outbound: Vec<payconf_reference::Cidr>,
    /// Serve the demo checkout (/demo/checkout) while listening beyond
    /// loopback too; on loopback it is always served.
    #[arg(long)]
    pub demo: bool,
}

/// `payconf serve`'s options, from its flags.
fn serve_options(args: ServeArgs) -> crate::serve::ServeOptions {
    let tls = match (args.tls_cert, args.tls_key) {
        (Some(cert), Some(key)) => Some(crate::serve::TlsFiles { cert, key }),
        // clap requires each with the other.
        _ => None,
    };
    crate::serve::ServeOptions {
        addr: args.addr,
        config: args.config,
        tls,
        data: args.data,
        allow_outbound: args.allow_outbound,
        demo: args.demo,
    }
}

/// Runs a parsed command line and returns the process's exit code.
pub fn main(cli: Cli) -> ExitCode {
    // Held to the end: dropping it writes the lines still queued.
    let _logging = crate::logging::init(match cli.command {
        Command::Serve(_) => LogStyle::Service,
        _ => LogStyle::Command,
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("payconf: cannot start the async runtime: {error}");
            return Verdict::NotRun.into();
        }
    };
    let is_run = matches!(cli.command, Command::Run(_));
    let result = match cli.command {
        Command::Run(args) => run_options(args, false)
            .and_then(|options| runtime.block_on(carry_out::carry_out(options)))
            .map_err(anyhow::Error::from),
        Command::Plan(args) => run_options(args, true)
            .and_then(|options| runtime.block_on(carry_out::carry_out(options)))
            .map_err(anyhow::Error::from),
        Command::Serve(args) => runtime
            .block_on(crate::serve::serve(serve_options(args)))
            .map_err(anyhow::Error::from),
        Command::Docs(args) => docs(&args),
        Command::Schemas(args) => schemas(&args),
        Command::Completions { shell } => {
            crate::stdout::say(&crate::share::completions(
                <Cli as clap::CommandFactory>::command(),
                shell,
            ));
            Ok(ExitCode::SUCCESS)
        }
        Command::Man(args) => man(&args),
        Command::Diff(args) => crate::diff::diff(&args.old, &args.new).map_err(anyhow::Error::from),
        Command::Verify(args) => {
            crate::verify::verify(&args.bundle, args.key.as_deref()).map_err(anyhow::Error::from)
        }
        Command::Keygen(args) => keygen(&args),
        Command::Bench(args) => run_bench(&runtime, args),
        Command::BenchHelper { helper } => run_bench_helper(&runtime, helper),
    };
    result.unwrap_or_else(|error| {
        eprintln!(
            "payconf: {}",
            crate::runner::neutral::block(&format!("{error:#}"))
        );
        if is_run {
            eprintln!(
                "{}",
                crate::runner::result_line(crate::runner::Ending::NotRun)
            );
        }
        // Usage, configuration, an unreachable target: nothing was
        // judged, so no command's failure is the target's.
        Verdict::NotRun.into()
    })
}

/// `payconf bench`: the measurement its flags name.
fn run_bench(runtime: &tokio::runtime::Runtime, args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.mode() {
        BenchMode::Hostile(n) => runtime.block_on(crate::bench::hostile(n)),
        BenchMode::Volley(rounds) => runtime.block_on(crate::bench::volley(rounds)),
        BenchMode::Evidence(rounds) => crate::bench::evidence(rounds),
        BenchMode::IssuerPages => runtime.block_on(crate::bench::issuer_pages()),
        BenchMode::PaymentPages => runtime.block_on(crate::bench::payment_pages()),
        BenchMode::Service(options) => runtime.block_on(crate::bench::bench(options)),
    }
    .map(|()| ExitCode::SUCCESS)
    .map_err(anyhow::Error::msg)
}

/// The processes `payconf bench` starts of itself: the bare server it
/// measures against, and a measured child.
fn run_bench_helper(
    runtime: &tokio::runtime::Runtime,
    helper: BenchHelper,
) -> anyhow::Result<ExitCode> {
    match helper {
        BenchHelper::Baseline { body } => runtime
            .block_on(crate::bench::serve_baseline(body))
            .map(|()| ExitCode::SUCCESS),
        BenchHelper::Measure { args } => crate::bench::measure_child(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(anyhow::Error::msg),
    }
}

/// `payconf keygen`: the pair written, and what each file is for.
fn keygen(args: &KeygenArgs) -> anyhow::Result<ExitCode> {
    let pair = crate::runner::bundle::keys::keygen(&args.prefix())?;
    println!("key: {}", pair.id);
    println!(
        "private: {} (keep it secret: give it to payconf run --signing-key, or its contents as {})",
        pair.secret,
        crate::runner::bundle::keys::SIGNING_KEY_VARIABLE
    );
    println!(
        "public: {} (hand it over with the bundles: payconf verify FILE --key {})",
        pair.public, pair.public
    );
    Ok(ExitCode::SUCCESS)
}

/// `payconf man`: writes the man pages and names them.
fn man(folder: &OutFolder) -> anyhow::Result<ExitCode> {
    let dir = folder.path();
    name_written(
        "the man pages",
        dir,
        crate::share::write_man(<Cli as clap::CommandFactory>::command(), dir),
    )
}

/// `payconf schemas`: writes the schemas and names them.
fn schemas(folder: &OutFolder) -> anyhow::Result<ExitCode> {
    let dir = folder.path();
    name_written("the schemas", dir, crate::schemas::write(dir))
}

/// Each file written into `dir`, a line each, or why `what` could not be.
fn name_written(
    what: &str,
    dir: &std::path::Path,
    written: std::io::Result<Vec<PathBuf>>,
) -> anyhow::Result<ExitCode> {
    let written =
        written.map_err(|e| anyhow::anyhow!("cannot write {what} into {}: {e}", dir.display()))?;
    for path in written {
        crate::stdout::say(&format!("{}\n", path.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// `payconf docs`: builds the site and says where it went.
fn docs(args: &DocsArgs) -> anyhow::Result<ExitCode> {
    let contract = match &args.spec {
        Some(path) => payconf_spec::contract::Contract::load(path)?,
        None => payconf_spec::contract::Contract::embedded()?,
    };
    let features = match &args.features {
        Some(dir) => payconf_spec::features::Features::load_dir(dir)?,
        None => payconf_spec::features::Features::embedded()?,
    };
    let requirements = payconf_spec::requirements::Requirements::embedded()?;
    let workflows = match &args.workflows {
        Some(path) => crate::docs::workflows::Workflows::load(path),
        None => crate::docs::workflows::Workflows::embedded(),
    }?;
    let site = crate::docs::Site::build(&contract, &features, &requirements, &workflows)?;
    let out = args.folder.path();
    let written = site.write(out, args.format)?;
    let entry = out.join(if args.format == crate::docs::Format::Markdown {
        "index.md"
    } else {
        "index.html"
    });
    println!("{} files written; open {}", written.len(), entry.display());
    Ok(ExitCode::SUCCESS)
}
