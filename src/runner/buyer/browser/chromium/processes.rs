//! The browser's processes, as one process group: ChromeDriver is started
//! as the leader of a group of its own, and Chromium with every helper it
//! forks (zygotes, renderers, the GPU and network services) stays in it.
//! The group is what payconf measures (memory), what it cuts back (a
//! renderer over the bound) and what it ends: every process of it is killed,
//! and waited for, before the profile folder is removed, so no process
//! recreates files in a folder being removed.
//!
//! Read from `/proc`, so on Linux only; elsewhere nothing is measured and
//! ending the group is a kill of the leader.

use std::time::{Duration, Instant};

use nix::{
    sys::signal::{Signal, killpg},
    unistd::Pid,
};

/// The process group of one browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessGroup {
    /// The group's id: ChromeDriver's process id.
    id: i32,
}

/// One process of the group, as `/proc` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Member {
    pid: i32,
    /// Memory it holds, in bytes: its anonymous resident memory where the
    /// kernel tells it, else its resident size.
    resident: u64,
    /// Whether it has exited and waits to be reaped (a zombie holds no memory).
    exited: bool,
}

impl ProcessGroup {
    /// The group ChromeDriver leads, by its process id.
    pub fn led_by(pid: u32) -> Option<Self> {
        i32::try_from(pid).ok().map(|id| Self { id })
    }

    /// The memory every live process of the group holds, in bytes;
    /// `None` where `/proc` cannot be read.
    pub fn resident_bytes(&self) -> Option<u64> {
        let members = self.members()?;
        Some(
            members
                .iter()
                .filter(|m| !m.exited)
                .map(|m| m.resident)
                .sum(),
        )
    }

    /// Kills the group's renderers (the processes that run pages), which
    /// ends their pages as crashed; the browser itself goes on. Returns how
    /// many were killed.
    pub fn kill_renderers(&self) -> usize {
        let Some(members) = self.members() else {
            return 0;
        };
        members
            .iter()
            .filter(|m| !m.exited && is_renderer(m.pid))
            .filter(|m| nix::sys::signal::kill(Pid::from_raw(m.pid), Signal::SIGKILL).is_ok())
            .count()
    }

    /// Kills every process of the group and waits, at most `bound`, until
    /// none is left alive. Returns whether none is.
    pub async fn end(&self, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        loop {
            // Sent again each round: a process forked while the first
            // signal was delivered joins the group after it.
            let _ = killpg(Pid::from_raw(self.id), Signal::SIGKILL);
            let alive = match self.members() {
                Some(members) => members.iter().any(|m| !m.exited),
                // Without /proc, the group's own answer: no process left.
                None => killpg(Pid::from_raw(self.id), None).is_ok(),
            };
            if !alive {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Every process whose group is this one.
    fn members(&self) -> Option<Vec<Member>> {
        let entries = std::fs::read_dir("/proc").ok()?;
        let page = page_size();
        let mut members = Vec::new();
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<i32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            let Some(fields) = stat_fields(&stat) else {
                continue;
            };
            if fields.group != self.id {
                continue;
            }
            // Its own memory (heap, scripts' objects), not the libraries and
            // shared memory every process of the browser maps: those would
            // count once per process.
            let resident = anonymous_pages(pid)
                .unwrap_or(fields.resident_pages)
                .saturating_mul(page);
            members.push(Member {
                pid,
                resident,
                exited: matches!(fields.state, 'Z' | 'X'),
            });
        }
        Some(members)
    }
}

/// The browser's memory, measured beside a journey.
#[derive(Clone, Copy, Debug)]
pub struct MemoryWatch {
    group: ProcessGroup,
    limit: u64,
}

impl MemoryWatch {
    /// A watch on `group`'s memory against `limit` bytes.
    pub fn new(group: ProcessGroup, limit: u64) -> Self {
        Self { group, limit }
    }

    /// Measures the browser every `period` until its processes hold more
    /// than the bound; then ends its pages (their renderers are killed, and
    /// the next journey starts in a new window) and returns what they held.
    pub async fn until_over(self, period: Duration) -> Option<u64> {
        loop {
            tokio::time::sleep(period).await;
            let used = self.group.resident_bytes()?;
            if used > self.limit {
                self.group.kill_renderers();
                return Some(used);
            }
        }
    }
}

/// What payconf reads of `/proc/PID/stat`.
#[derive(Debug, PartialEq, Eq)]
struct StatFields {
    state: char,
    group: i32,
    resident_pages: u64,
}

/// The fields after the command name, which is in parentheses and may hold
/// spaces and parentheses of its own: read from the last `)`.
fn stat_fields(stat: &str) -> Option<StatFields> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (3), ppid (4), pgrp (5), ... rss (24).
    Some(StatFields {
        state: fields.first()?.chars().next()?,
        group: fields.get(2)?.parse().ok()?,
        resident_pages: fields.get(21)?.parse().ok()?,
    })
}

/// The resident pages of `/proc/PID/statm` that no file or shared mapping
/// backs: resident less shared.
fn anonymous_pages(pid: i32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let mut fields = statm.split_whitespace().skip(1);
    let resident: u64 = fields.next()?.parse().ok()?;
    let shared: u64 = fields.next()?.parse().ok()?;
    Some(resident.saturating_sub(shared))
}

/// Whether the process runs pages. Chromium rewrites the command lines of
/// the processes its zygote forks into one string, arguments separated by
/// spaces, so both separators count.
fn is_renderer(pid: i32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|cmdline| {
            cmdline
                .split(|b| *b == 0 || *b == b' ')
                .any(|arg| arg == b"--type=renderer")
        })
        .unwrap_or(false)
}

fn page_size() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|size| u64::try_from(size).ok())
        .unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_is_read_after_a_name_with_spaces_and_parentheses() {
        let stat = "4242 (Web Content (x)) S 1 4240 4240 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 \
                    1 0 100 123456789 512 18446744073709551615";
        assert_eq!(
            stat_fields(stat),
            Some(StatFields {
                state: 'S',
                group: 4240,
                resident_pages: 512,
            })
        );
        assert_eq!(stat_fields("garbage"), None);
    }

    #[tokio::test]
    async fn a_group_is_measured_and_ended_with_every_process_in_it() {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .expect("sh runs");
        let group = ProcessGroup::led_by(child.id().expect("running")).expect("a pid");
        // The shell and its two sleeps, once forked.
        let deadline = Instant::now() + Duration::from_secs(5);
        while group.members().map_or(0, |m| m.len()) < 3 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(group.resident_bytes().is_some_and(|bytes| bytes > 0));
        let ended = tokio::spawn(async move { group.end(Duration::from_secs(5)).await });
        let _ = child.wait().await;
        assert!(
            ended.await.expect("joined"),
            "a process of the group lived on"
        );
        assert!(
            group.members().expect("/proc").iter().all(|m| m.exited),
            "{:?}",
            group.members()
        );
    }
}
