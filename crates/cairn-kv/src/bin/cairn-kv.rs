//! `cairn-kv`: the command-line client of the replicated key-value service.
//!
//! ```text
//! cairn-kv --nodes 127.0.0.1:21001,127.0.0.1:21002,127.0.0.1:21003 put color blue
//! cairn-kv --nodes 127.0.0.1:21001 get color            # linearizable, through the leader
//! cairn-kv --nodes 127.0.0.1:21002 get color --stale    # this node's state as it is
//! cairn-kv --nodes 127.0.0.1:21001 init 1=127.0.0.1:21001 2=127.0.0.1:21002 3=127.0.0.1:21003
//! ```

use std::collections::{BTreeMap, BTreeSet};

use cairn_kv::api::ReadMode;
use cairn_kv::client::Client;
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(about = "Client of CairnDB's replicated key-value service")]
struct Args {
    /// Node addresses, comma-separated; the client finds the leader among them.
    #[arg(long, value_delimiter = ',', required = true)]
    nodes: Vec<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sets KEY to VALUE.
    Put { key: String, value: String },
    /// Prints KEY's value (or "(none)").
    Get {
        key: String,
        /// Read the first node's state as it is, without asking the leader.
        #[arg(long)]
        stale: bool,
    },
    /// Removes KEY.
    Delete { key: String },
    /// Prints keys in [FROM, TO).
    Scan {
        #[arg(long, default_value = "")]
        from: String,
        #[arg(long)]
        to: Option<String>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
        #[arg(long)]
        stale: bool,
    },
    /// Initializes a new cluster with these voters: ID=ADDR ...
    Init { voters: Vec<String> },
    /// Adds node ID at ADDR as a learner (returns once it has caught up).
    AddLearner { id: u64, addr: String },
    /// Makes exactly these node ids the voters.
    Voters { ids: Vec<u64> },
    /// Prints openraft's metrics of the first node.
    Metrics,
    /// Load: CLIENTS concurrent writers put random keys for SECONDS; prints writes/s and the
    /// latency percentiles of acknowledged writes.
    Bench {
        #[arg(long, default_value_t = 16)]
        clients: usize,
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        #[arg(long, default_value_t = 100)]
        value_size: usize,
        #[arg(long, default_value_t = 1_000_000)]
        keys: u64,
    },
}

fn client_nodes(client: &Client) -> Vec<String> {
    client.addrs().to_vec()
}

fn mode(stale: bool) -> ReadMode {
    if stale {
        ReadMode::Stale
    } else {
        ReadMode::Linearizable
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let first = args.nodes[0].clone();
    let mut client = Client::new(args.nodes);
    match args.command {
        Command::Put { key, value } => client.put(&key, &value).await?,
        Command::Get { key, stale } => {
            let value = client.get(&key, mode(stale)).await?;
            println!("{}", value.as_deref().unwrap_or("(none)"));
        }
        Command::Delete { key } => client.delete(&key).await?,
        Command::Scan {
            from,
            to,
            limit,
            stale,
        } => {
            for (k, v) in client
                .scan(&from, to.as_deref(), limit, mode(stale))
                .await?
            {
                println!("{k}\t{v}");
            }
        }
        Command::Init { voters } => {
            let mut members = BTreeMap::new();
            for v in voters {
                let (id, addr) = v
                    .split_once('=')
                    .ok_or_else(|| format!("expected ID=ADDR, got {v}"))?;
                members.insert(id.parse::<u64>()?, addr.to_string());
            }
            client.init(&members).await?;
        }
        Command::AddLearner { id, addr } => client.add_learner(id, &addr).await?,
        Command::Voters { ids } => {
            let set: BTreeSet<u64> = ids.into_iter().collect();
            client.set_voters(&set).await?;
        }
        Command::Bench {
            clients,
            seconds,
            value_size,
            keys,
        } => {
            let nodes = client_nodes(&client);
            let report = cairn_kv::bench::run(nodes, clients, seconds, value_size, keys).await?;
            println!("{report}");
        }
        Command::Metrics => {
            let m = client.metrics(&first).await?;
            println!("{}", serde_json::to_string_pretty(&m)?);
        }
    }
    Ok(())
}
