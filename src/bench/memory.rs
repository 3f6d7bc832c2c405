//! The reference implementation's memory: what a live payment costs, and
//! whether sweeping expired payments pauses the service. Both run the
//! service in-process, so that the resident memory read is its own.

use super::error::BenchError;
use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use payconf_reference::{ReferenceConfig, RunningServer};
use tokio::task::JoinSet;

use super::{
    Target,
    load::{Scenario, connect, create_request, run_scenario, send},
};

/// Fills a fresh service with `count` live payments and prints the
/// resident memory they take. Run first, in a process that has served
/// nothing yet, so the allocator's footprint from other runs does not count.
pub(super) async fn live_payments(count: usize, connections: usize) -> Result<(), BenchError> {
    let (server, target) = start_reference(Duration::from_secs(3600)).await?;
    let before = resident_bytes().unwrap_or(0);
    let started = Instant::now();
    let made = fill(&target, count, connections).await?;
    let took = started.elapsed();
    let after = resident_bytes().unwrap_or(0);
    println!(
        "live payments    {made} created in {:.1} s; resident memory {:.0} MiB, {:.0} MiB of it for the payments: {:.0} bytes a live payment",
        took.as_secs_f64(),
        after as f64 / 1_048_576.0,
        after.saturating_sub(before) as f64 / 1_048_576.0,
        after.saturating_sub(before) as f64 / made.max(1) as f64,
    );
    let _ = server.shutdown().await;
    Ok(())
}

/// Creates go on while up to 400,000 payments expire and are swept shard by
/// shard; their latency shows whether the service paused.
pub(super) async fn sweeping(count: usize, connections: usize) -> Result<(), BenchError> {
    let lifetime = Duration::from_secs(8);
    let (server, target) = start_reference(lifetime).await?;
    let made = fill(&target, count.min(400_000), connections).await?;
    let window = lifetime + Duration::from_secs(6);
    let samples = run_scenario(
        target.address,
        &target.host,
        None,
        Scenario::Create,
        connections,
        window,
    )
    .await?;
    println!("while sweeping {made} expired payments:");
    println!("{}", samples.figures().line("create", "req", ""));
    let _ = server.shutdown().await;
    Ok(())
}

/// Resident memory of this process, in bytes (Linux).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Creates `count` payments as fast as `connections` connections allow.
async fn fill(target: &Target, count: usize, connections: usize) -> Result<u64, BenchError> {
    let address = target.address;
    let per = count.div_ceil(connections);
    let mut tasks = JoinSet::new();
    for i in 0..connections {
        let host = Arc::clone(&target.host);
        let n = per.min(count.saturating_sub(i * per));
        tasks.spawn(async move {
            let mut sender = connect(address, None).await?;
            let mut made = 0_u64;
            for _ in 0..n {
                if let Some((200, _)) = send(&mut sender, create_request(&host)).await {
                    made += 1;
                }
            }
            Ok::<_, BenchError>(made)
        });
    }
    let mut made = 0;
    while let Some(result) = tasks.join_next().await {
        made += result??;
    }
    Ok(made)
}

/// Starts the reference implementation in-process with this token lifetime.
async fn start_reference(lifetime: Duration) -> Result<(RunningServer, Target), BenchError> {
    let config = ReferenceConfig {
        token_lifetime: lifetime,
        ..ReferenceConfig::default()
    };
    let server = RunningServer::start(config)
        .await
        .map_err(BenchError::start("the reference implementation"))?;
    let target = Target::of(&server.base_url)?;
    Ok((server, target))
}
