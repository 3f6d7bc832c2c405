//! What a release archive carries beside the binary, generated from the
//! command line's own definition so that it cannot drift from it: shell
//! completions for bash, zsh and fish (clap_complete) and a man page for
//! `payconf` and for each of its commands (clap_mangen), from the
//! `clap::Command` the caller gives (`cli::Cli::command()`). `payconf
//! completions SHELL` prints a shell's; `payconf man DIR` writes the pages;
//! `share/` holds them all, as the archive takes them, checked against the
//! command line by a test.

use std::path::{Path, PathBuf};

use clap_complete::Shell;

/// The shells completions are made for, each with its file's name.
pub const SHELLS: [(Shell, &str); 3] = [
    (Shell::Bash, "payconf.bash"),
    (Shell::Zsh, "_payconf"),
    (Shell::Fish, "payconf.fish"),
];

/// The command line as users see it: the hidden commands (the processes
/// `payconf bench` starts) left out, which the generators would list.
fn for_users(full: clap::Command) -> clap::Command {
    let visible: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    let mut command = clap::Command::new(full.get_name().to_owned())
        .bin_name("payconf")
        .args(full.get_arguments().cloned())
        .subcommands(visible)
        .subcommand_required(full.is_subcommand_required_set());
    if let Some(version) = full.get_version() {
        command = command.version(version.to_owned());
    }
    if let Some(about) = full.get_about() {
        command = command.about(about.clone());
    }
    if let Some(about) = full.get_long_about() {
        command = command.long_about(about.clone());
    }
    command
}

/// A shell's completions.
pub fn completions(cli: clap::Command, shell: Shell) -> String {
    let mut command = for_users(cli);
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "payconf", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The man pages: `payconf.1`, then `payconf-COMMAND.1` for each command
/// a user runs (not the hidden ones).
pub fn man_pages(cli: clap::Command) -> Vec<(String, String)> {
    let root = for_users(cli);
    let mut pages = vec![("payconf.1".to_owned(), render(root.clone()))];
    for command in root.get_subcommands() {
        let name = format!("payconf-{}", command.get_name());
        let page = command.clone().name(name.clone()).bin_name(name.clone());
        pages.push((format!("{name}.1"), render(page)));
    }
    pages
}

fn render(command: clap::Command) -> String {
    let mut out = Vec::new();
    // Rendering into memory cannot fail.
    let _ = clap_mangen::Man::new(command).render(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Every file of `share/`: relative path and text.
pub fn all(cli: &clap::Command) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = SHELLS
        .iter()
        .map(|(shell, name)| {
            (
                Path::new("completions").join(name),
                completions(cli.clone(), *shell),
            )
        })
        .collect();
    files.extend(
        man_pages(cli.clone())
            .into_iter()
            .map(|(name, text)| (Path::new("man/man1").join(name), text)),
    );
    files
}

/// Writes the man pages under `dir`; the files written.
pub fn write_man(cli: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    man_pages(cli)
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).map(|()| path)
        })
        .collect()
}
