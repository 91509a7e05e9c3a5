//! `cairn-kv-server`: one node of the replicated key-value service (see `cairn_kv::api` for the
//! HTTP API). Stops cleanly on SIGINT or SIGTERM.
//!
//! ```text
//! cairn-kv-server --id 1 --listen 127.0.0.1:21001 --dir /tmp/cairn-kv/1
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;

use cairn_kv::batcher::Batching;
use cairn_kv::node::{loopback_config, start, NodeConfig};
use clap::Parser;

#[derive(Debug, Parser)]
#[command(about = "One node of CairnDB's replicated key-value service (openraft over HTTP)")]
struct Args {
    /// This node's id (unique in the cluster).
    #[arg(long)]
    id: u64,
    /// Address to listen on, host:port; other nodes and clients use it.
    #[arg(long)]
    listen: SocketAddr,
    /// Storage directory (created if missing).
    #[arg(long)]
    dir: PathBuf,
    /// openraft: a snapshot after this many applied entries since the last one.
    #[arg(long, default_value_t = 5000)]
    snapshot_every: u64,
    /// openraft: log entries kept behind the latest snapshot (a follower further behind gets
    /// the snapshot).
    #[arg(long, default_value_t = 1000)]
    keep_logs: u64,
    /// Group commit: most client writes in one log entry (1: every write is its own entry).
    #[arg(long, default_value_t = Batching::default().max_writes)]
    batch_max_writes: usize,
    /// Group commit: most bytes of keys and values in one log entry.
    #[arg(long, default_value_t = Batching::default().max_bytes)]
    batch_max_bytes: usize,
    /// Group commit: most entries of client writes in Raft and not yet applied.
    #[arg(long, default_value_t = Batching::default().max_in_flight)]
    batch_in_flight: usize,
}

#[tokio::main]
async fn main() -> Result<(), cairn_kv::node::BoxError> {
    let args = Args::parse();
    let mut raft = loopback_config();
    raft.snapshot_policy = openraft::SnapshotPolicy::LogsSinceLast(args.snapshot_every);
    raft.max_in_snapshot_log_to_keep = args.keep_logs;
    let node = start(NodeConfig {
        id: args.id,
        listen: args.listen,
        dir: args.dir,
        raft,
        batching: Batching {
            max_writes: args.batch_max_writes,
            max_bytes: args.batch_max_bytes,
            max_in_flight: args.batch_in_flight,
        },
    })
    .await?;
    println!("node {} listening on {}", args.id, node.addr);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    node.stop().await?;
    println!("node {} stopped", args.id);
    Ok(())
}
