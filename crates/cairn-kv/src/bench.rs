//! `cairn-kv bench`: concurrent clients put random keys for a fixed time; the report gives
//! acknowledged writes per second and latency percentiles. Every client is a [`Client`] of its
//! own (it finds the leader itself); a write counts once acknowledged (applied on the leader).
//! It also reads how many entries the leader's log grew by, so that the report says how many
//! writes shared an entry (each entry is one append and one sync on the leader, and the
//! service groups concurrent writes into entries: [`crate::batcher`]).

use std::fmt;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::client::{Client, ClientError};

/// What a run measured.
#[derive(Debug, Clone)]
pub struct Report {
    /// Concurrent clients.
    pub clients: usize,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Acknowledged writes.
    pub writes: u64,
    /// Failed writes (no leader within the client's attempts).
    pub failures: u64,
    /// Latencies of acknowledged writes, microseconds, sorted.
    pub latencies_us: Vec<u64>,
    /// Entries the leader's log grew by during the run (None: the leader changed, or no node
    /// reported one).
    pub log_entries: Option<u64>,
}

impl Report {
    /// The `q` quantile of the latencies, microseconds (0 with no writes).
    pub fn quantile_us(&self, q: f64) -> u64 {
        if self.latencies_us.is_empty() {
            return 0;
        }
        let i = ((self.latencies_us.len() as f64 - 1.0) * q).round() as usize;
        self.latencies_us[i]
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64();
        write!(
            f,
            "clients={} writes={} failures={} secs={secs:.1} writes_per_sec={:.0} \
             p50_us={} p99_us={} p999_us={} max_us={}",
            self.clients,
            self.writes,
            self.failures,
            self.writes as f64 / secs,
            self.quantile_us(0.5),
            self.quantile_us(0.99),
            self.quantile_us(0.999),
            self.latencies_us.last().copied().unwrap_or(0),
        )?;
        match self.log_entries {
            Some(n) => write!(
                f,
                " log_entries={n} writes_per_entry={:.1}",
                self.writes as f64 / n.max(1) as f64
            ),
            None => write!(f, " log_entries=unknown"),
        }
    }
}

/// The leader's id and last log index, as the first node that says it leads reports them.
async fn leader_log(nodes: &[String]) -> Option<(u64, u64)> {
    let client = Client::new(nodes.to_vec());
    for addr in nodes {
        let Ok(m) = client.metrics(addr).await else {
            continue;
        };
        if m["state"] == "Leader" {
            return Some((m["id"].as_u64()?, m["last_log_index"].as_u64()?));
        }
    }
    None
}

/// Runs `clients` writers against `nodes` for `seconds`.
///
/// # Errors
/// A client that fails its first write (no cluster answering).
pub async fn run(
    nodes: Vec<String>,
    clients: usize,
    seconds: u64,
    value_size: usize,
    keys: u64,
) -> Result<Report, ClientError> {
    // One write first, so that every client starts with the leader known to answer.
    Client::new(nodes.clone()).put("bench-warmup", "x").await?;
    let log_before = leader_log(&nodes).await;
    let value = "v".repeat(value_size);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (nodes, value) = (nodes.clone(), value.clone());
        tasks.push(tokio::spawn(async move {
            let mut client = Client::new(nodes);
            // Seeded per client, so that runs repeat.
            let mut rng = SmallRng::seed_from_u64(c as u64 + 1);
            let (mut lat, mut failures) = (Vec::new(), 0u64);
            while Instant::now() < deadline {
                let key = format!("bench{:016}", rng.gen_range(0..keys.max(1)));
                let t = Instant::now();
                match client.put(&key, &value).await {
                    Ok(()) => lat.push(t.elapsed().as_micros() as u64),
                    Err(_) => failures += 1,
                }
            }
            (lat, failures)
        }));
    }
    let mut latencies_us = Vec::new();
    let mut failures = 0;
    for t in tasks {
        let (lat, f) = t.await.expect("bench client");
        latencies_us.extend(lat);
        failures += f;
    }
    latencies_us.sort_unstable();
    let elapsed = start.elapsed();
    let log_entries = match (log_before, leader_log(&nodes).await) {
        // The same leader at both ends (it may have lost and regained leadership in between;
        // a log it truncated meanwhile shows as unknown).
        (Some((id, before)), Some((same, after))) if id == same => after.checked_sub(before),
        _ => None,
    };
    Ok(Report {
        clients,
        elapsed,
        writes: latencies_us.len() as u64,
        failures,
        latencies_us,
        log_entries,
    })
}
