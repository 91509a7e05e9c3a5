//! Starting and stopping a node: its CairnDB storage, its openraft instance and its HTTP server.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use openraft::storage::{RaftLogStorage, RaftStateMachine};
use openraft::Config;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::api::{router, App, LocalReads};
use crate::batcher::{Batching, Writes};
use crate::network::Network;
use crate::{NodeId, Raft, TypeConfig};

/// What a node needs to start.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// The node's id in the cluster.
    pub id: NodeId,
    /// Where its HTTP server listens (port 0: any free port; [`RunningNode::addr`] says which).
    pub listen: SocketAddr,
    /// Its storage directory (`cairn_raft::open`; unused by [`start_with`]).
    pub dir: PathBuf,
    /// openraft's configuration (timeouts, snapshot policy).
    pub raft: Config,
    /// How client writes are grouped into log entries.
    pub batching: Batching,
}

/// Settings for a cluster on one machine or a LAN. Heartbeats every 150 ms (openraft also
/// takes this as the time limit of an append RPC, which includes the follower's fsync);
/// elections after 500-1000 ms of silence (openraft's defaults: 50 ms and 150-300 ms); snapshot
/// chunks of 1 MiB, each allowed 10 s (the last one includes the follower's ingestion; the
/// default is 200 ms).
pub fn loopback_config() -> Config {
    Config {
        cluster_name: "cairn-kv".into(),
        heartbeat_interval: 150,
        election_timeout_min: 500,
        election_timeout_max: 1000,
        install_snapshot_timeout: 10_000,
        snapshot_max_chunk_size: 1 << 20,
        ..Config::default()
    }
}

/// A started node.
#[derive(Debug)]
pub struct RunningNode {
    /// The node's handles (Raft and state machine).
    pub app: Arc<App>,
    /// The address its server listens on.
    pub addr: SocketAddr,
    stop: oneshot::Sender<()>,
    server: JoinHandle<std::io::Result<()>>,
}

/// Any error of starting or stopping a node.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Opens the node's storage, starts openraft on it and serves the HTTP API.
///
/// # Errors
/// Invalid openraft or batching configuration, storage open errors, a port that cannot be bound.
pub async fn start(config: NodeConfig) -> Result<RunningNode, BoxError> {
    config.raft.clone().validate()?;
    config.batching.validate()?;
    let (log, sm) = cairn_raft::open(&config.dir, cairndb::options::Options::default())?;
    let reads = Arc::new(sm.clone());
    start_with(config, log, sm, reads).await
}

/// As [`start`] on storage opened by the caller: any openraft log store and state machine of
/// this service's type configuration, and the reads the API serves from that state machine.
/// `config.dir` is not used. This is how the service runs on another storage for a
/// comparison (docs/design/raft.md, "Measured").
///
/// # Errors
/// Invalid openraft or batching configuration, a port that cannot be bound.
pub async fn start_with<L, S>(
    config: NodeConfig,
    log: L,
    sm: S,
    reads: Arc<dyn LocalReads>,
) -> Result<RunningNode, BoxError>
where
    L: RaftLogStorage<TypeConfig>,
    S: RaftStateMachine<TypeConfig>,
{
    config.batching.validate()?;
    let raft_config = Arc::new(config.raft.validate()?);
    let raft = Raft::new(config.id, raft_config, Network::new(), log, sm).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let writes = Writes::start(Arc::new(raft.clone()), config.batching);
    let app = Arc::new(App {
        id: config.id,
        raft,
        writes,
        sm: reads,
    });
    let (stop, stopped) = oneshot::channel::<()>();
    let routes = router(app.clone());
    let server = tokio::spawn(async move {
        axum::serve(listener, routes)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    Ok(RunningNode {
        app,
        addr,
        stop,
        server,
    })
}

impl RunningNode {
    /// Stops openraft, then the server, and waits for both; the storage closes when the last
    /// handle goes.
    ///
    /// # Errors
    /// A task that panicked or a server that failed.
    pub async fn stop(self) -> Result<(), BoxError> {
        self.app.raft.shutdown().await?;
        let _ = self.stop.send(());
        self.server.await??;
        Ok(())
    }
}
