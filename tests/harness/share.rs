//! What a release archive carries beside the binary (`share/`): the shell
//! completions and the man pages, what the command line generates, checked
//! in unchanged; the bash completions are valid bash and complete every
//! command; there is a page for every command a user runs.

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn cli() -> clap::Command {
    <payconf::cli::Cli as clap::CommandFactory>::command()
}

#[test]
fn share_holds_what_the_command_line_generates() {
    for (relative, text) in payconf::share::all(&cli()) {
        let path = Path::new(ROOT).join("share").join(&relative);
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == text,
            "{} is not what the command line generates: run `cargo run -- completions SHELL` \
             and `cargo run -- man share/man/man1` (or PAYCONF_BLESS=1 cargo test share::)",
            path.display()
        );
    }
}

/// `PAYCONF_BLESS=1` writes `share/` as the command line generates it.
#[test]
fn bless_share_when_asked() {
    if std::env::var_os("PAYCONF_BLESS").is_none() {
        return;
    }
    for (relative, text) in payconf::share::all(&cli()) {
        let path = Path::new(ROOT).join("share").join(&relative);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder");
        std::fs::write(&path, text).expect("written");
    }
}

#[test]
fn the_bash_completions_are_bash_and_complete_every_command() {
    let bash = payconf::share::completions(cli(), clap_complete::Shell::Bash);
    let file = Path::new(ROOT).join("share/completions/payconf.bash");
    let checked = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
        .expect("bash runs");
    assert!(checked.status.success(), "{checked:?}");
    let completed = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {}; COMP_WORDS=(payconf ''); COMP_CWORD=1; _payconf payconf '' payconf; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file.display()
        ))
        .output()
        .expect("bash runs");
    let words = String::from_utf8_lossy(&completed.stdout);
    for command in [
        "run",
        "plan",
        "serve",
        "docs",
        "schemas",
        "completions",
        "man",
        "verify",
    ] {
        assert!(
            words.lines().any(|w| w == command),
            "{command} not completed: {words}"
        );
    }
    assert!(
        !bash.contains("bench-helper"),
        "hidden commands stay hidden"
    );
}

#[test]
fn every_command_a_user_runs_has_its_man_page() {
    let pages = payconf::share::man_pages(cli());
    let names: Vec<&str> = pages.iter().map(|(name, _)| name.as_str()).collect();
    for command in [
        "payconf.1",
        "payconf-run.1",
        "payconf-plan.1",
        "payconf-serve.1",
        "payconf-verify.1",
        "payconf-man.1",
    ] {
        assert!(names.contains(&command), "{command} missing: {names:?}");
    }
    assert!(
        !names.iter().any(|n| n.contains("bench-helper")),
        "{names:?}"
    );
    let (_, run) = pages
        .iter()
        .find(|(name, _)| name == "payconf-run.1")
        .expect("run's page");
    assert!(
        run.starts_with(".ie \\n(.g .ds Aq") || run.contains(".TH payconf-run 1"),
        "{run}"
    );
    assert!(run.contains("\\-\\-target"), "the flags are on the page");
}
