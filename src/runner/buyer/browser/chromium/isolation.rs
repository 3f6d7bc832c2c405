//! How the browser is walled off from the machine: Chromium's own sandbox
//! wherever the machine allows it.
//!
//! Chromium refuses its sandbox to a browser running as root, and CI
//! machines often run payconf as root. There payconf starts ChromeDriver
//! (and so Chromium) as the unprivileged user `nobody`, with a profile
//! folder of its own, and the sandbox on: a page that escaped its renderer
//! would still be a process of `nobody`, in the sandbox's namespaces.
//! Only where no sandboxed start succeeds (no user namespaces, no such
//! user) does the browser run without one, and the run says so, and why.

use std::path::Path;

/// How a browser is started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Chromium's sandbox, as the user payconf runs as.
    Sandboxed,
    /// Chromium's sandbox, as an unprivileged user, because payconf runs as
    /// root.
    SandboxedAs(Account),
    /// No sandbox (`--no-sandbox`), for this reason.
    Unsandboxed(String),
}

/// An unprivileged account the browser runs as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// Its name, for the run's output.
    pub name: String,
    /// Its user id.
    pub uid: u32,
    /// Its group id.
    pub gid: u32,
}

/// The account a browser started by root runs as.
const UNPRIVILEGED: &str = "nobody";

impl Isolation {
    /// The ways to start the browser on this machine, best first: sandboxed
    /// (as `nobody` when payconf runs as root), then without a sandbox.
    pub fn choices() -> Vec<Self> {
        if !running_as_root() {
            return vec![
                Self::Sandboxed,
                Self::Unsandboxed(
                    "Chromium would not start with its sandbox on this machine".to_owned(),
                ),
            ];
        }
        match nix::unistd::User::from_name(UNPRIVILEGED) {
            Ok(Some(user)) if !user.uid.is_root() => vec![
                Self::SandboxedAs(Account {
                    name: user.name,
                    uid: user.uid.as_raw(),
                    gid: user.gid.as_raw(),
                }),
                Self::Unsandboxed(format!(
                    "payconf runs as root, and Chromium would not start with its sandbox as \
                     the user {UNPRIVILEGED}"
                )),
            ],
            _ => vec![Self::Unsandboxed(format!(
                "payconf runs as root, Chromium refuses its sandbox to root, and this \
                 machine has no user {UNPRIVILEGED} to run it as"
            ))],
        }
    }

    /// Chromium's flags for this isolation.
    pub fn chromium_args(&self) -> Vec<String> {
        match self {
            Self::Sandboxed | Self::SandboxedAs(_) => Vec::new(),
            Self::Unsandboxed(_) => vec!["--no-sandbox".to_owned()],
        }
    }

    /// Runs `command` under this isolation, with `profile` (created here)
    /// as the browser's own folder, and its home too when it runs as
    /// another user (whose own home may not exist).
    pub fn prepare(
        &self,
        command: &mut tokio::process::Command,
        profile: &Path,
    ) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(profile)?;
        std::fs::set_permissions(profile, std::fs::Permissions::from_mode(0o700))?;
        if let Self::SandboxedAs(account) = self {
            std::os::unix::fs::chown(profile, Some(account.uid), Some(account.gid))?;
            command
                .uid(account.uid)
                .gid(account.gid)
                .env("HOME", profile);
        }
        Ok(())
    }

    /// Why this way cannot work on this machine, where that can be told
    /// without starting Chromium: its sandbox needs user namespaces (or a
    /// setuid helper beside Chromium), and `unshare` tells in milliseconds
    /// whether the kernel, a seccomp filter or a security module lets the
    /// browser's user create them. `None` when it can work, or when that
    /// cannot be told (no `unshare` on the machine): then starting tells.
    pub async fn unavailable(&self, chromium: &Path) -> Option<String> {
        use std::os::unix::fs::PermissionsExt;
        let account = match self {
            Self::Unsandboxed(_) => return None,
            Self::Sandboxed => None,
            Self::SandboxedAs(account) => Some(account),
        };
        let helper = chromium.with_file_name("chrome-sandbox");
        let setuid = std::fs::metadata(&helper)
            .is_ok_and(|m| m.permissions().mode() & 0o4000 != 0 && m.is_file());
        if setuid {
            return None;
        }
        let mut probe = tokio::process::Command::new("unshare");
        probe
            .args(["--user", "--pid", "--net", "--fork", "true"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if let Some(account) = account {
            probe.uid(account.uid).gid(account.gid);
        }
        let output = tokio::time::timeout(std::time::Duration::from_secs(5), probe.output())
            .await
            .ok()?
            .ok()?;
        if output.status.success() {
            return None;
        }
        let said = String::from_utf8_lossy(&output.stderr);
        let said = said.lines().next().unwrap_or("no reason given").trim();
        let who = account.map_or(String::new(), |a| format!(" to the user {}", a.name));
        Some(format!(
            "user namespaces, which Chromium's sandbox needs, are not available{who} ({})",
            crate::runner::neutral::inline(said)
        ))
    }

    /// How the run describes it: `sandboxed as the user nobody`.
    pub fn said(&self) -> String {
        match self {
            Self::Sandboxed => "sandboxed".to_owned(),
            Self::SandboxedAs(account) => format!("sandboxed, as the user {}", account.name),
            Self::Unsandboxed(why) => format!("WITHOUT its sandbox: {why}"),
        }
    }
}

fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_comes_first_and_going_without_says_why() {
        match Isolation::choices().as_slice() {
            [Isolation::Sandboxed, Isolation::Unsandboxed(why)] => {
                assert!(!running_as_root());
                assert!(why.contains("sandbox"), "{why}");
            }
            [
                Isolation::SandboxedAs(account),
                last @ Isolation::Unsandboxed(why),
            ] => {
                assert!(running_as_root());
                assert_eq!(account.name, UNPRIVILEGED);
                assert_ne!(account.uid, 0);
                assert!(why.contains("payconf runs as root"), "{why}");
                assert_eq!(last.chromium_args(), vec!["--no-sandbox".to_owned()]);
                assert!(
                    last.said()
                        .starts_with("WITHOUT its sandbox: payconf runs as root")
                );
            }
            [Isolation::Unsandboxed(why)] => {
                assert!(running_as_root());
                assert!(why.contains("no user nobody"), "{why}");
            }
            other => panic!("unexpected ways to start the browser: {other:?}"),
        }
    }
}
