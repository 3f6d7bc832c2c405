//! `payconf bench --hostile N`: the generated-input check of `@robustness`
//! (ROB-04), measured as users run it: `payconf run --tags @req:ROB-04`
//! against an in-process reference implementation, with N generated bodies
//! for create and N for submit, each scenario's time read from `--results`.

use super::error::BenchError;
use payconf_reference::{ReferenceConfig, RunningServer};

/// Runs the measurement and prints its figures.
pub async fn hostile(requests: usize) -> Result<(), BenchError> {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .map_err(BenchError::start("the reference implementation"))?;
    let measured = measure(&server, requests).await;
    let _ = server.shutdown().await;
    let scenarios = measured?;
    println!(
        "payconf bench --hostile {requests}: {} CPUs; seed 1",
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    for (name, millis) in scenarios {
        let rate = requests as f64 / (millis / 1000.0).max(f64::EPSILON);
        println!("{rate:>8.0} requests/s  {millis:>7.0} ms  {name}");
    }
    Ok(())
}

/// (scenario name, milliseconds) of each ROB-04 scenario.
async fn measure(
    server: &RunningServer,
    requests: usize,
) -> Result<Vec<(String, f64)>, BenchError> {
    let file = format!(
        "{}[robustness]\nhostile_requests = {requests}\n",
        super::issuer_pages::target_file(server.base_url.as_str())
    );
    let args = ["--tags", "@req:ROB-04", "--seed", "1"];
    let failed = "the generated-input scenarios did not pass";
    let (record, _) = super::processes::run_recorded(&args, &file, failed).await?;
    Ok(record
        .scenarios
        .into_iter()
        .map(|s| (s.name, s.duration_ms as f64))
        .collect())
}
