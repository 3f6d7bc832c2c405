//! `payconf bench --hostile N`: the generated-input check of `@robustness`
//! (ROB-04), measured as users run it: `payconf run --tags @req:ROB-04`
//! against an in-process reference implementation, with N generated bodies
//! for create and N for submit, each scenario's time read from `--results`.

use std::process::Command;

use payconf_reference::{ReferenceConfig, RunningServer};

/// Runs the measurement and prints its figures.
pub async fn hostile(requests: usize) -> Result<(), String> {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .map_err(|e| format!("cannot start the reference implementation: {e}"))?;
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
async fn measure(server: &RunningServer, requests: usize) -> Result<Vec<(String, f64)>, String> {
    let program = super::processes::payconf()?;
    let scratch =
        std::env::temp_dir().join(format!("payconf-bench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let target = scratch.join("target.toml");
    let results = scratch.join("results.json");
    let file = format!(
        "{}[robustness]\nhostile_requests = {requests}\n",
        super::issuer_pages::target_file(server.base_url.as_str())
    );
    std::fs::write(&target, file).map_err(|e| format!("{}: {e}", target.display()))?;
    let mut command = Command::new(program);
    command
        .args(["run", "--tags", "@req:ROB-04", "--seed", "1", "--target"])
        .arg(&target)
        .arg("--results")
        .arg(&results)
        .env_remove("PAYCONF_ACS_DRIVER");
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("cannot run payconf: {e}"))?;
    let read = std::fs::read_to_string(&results);
    let _ = std::fs::remove_dir_all(&scratch);
    if !output.status.success() {
        return Err(format!(
            "the generated-input scenarios did not pass:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let results: serde_json::Value = read
        .map_err(|e| format!("no results file: {e}"))
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))?;
    Ok(results["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| Some((s["name"].as_str()?.to_owned(), s["duration_ms"].as_f64()?)))
        .collect())
}
