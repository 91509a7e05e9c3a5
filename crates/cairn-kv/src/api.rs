//! The HTTP API of a node.
//!
//! Between nodes (JSON bodies, openraft's types): `POST /raft/append`, `/raft/vote`,
//! `/raft/snapshot`.
//!
//! For clients:
//!
//! | route | does |
//! |---|---|
//! | `PUT /kv/{key}` (body: the value) | replicated write; `{"value": ...}` once applied on the leader |
//! | `DELETE /kv/{key}` | replicated delete |
//! | `GET /kv/{key}?read=linearizable` (default) | read after the leader confirms it still leads and has applied everything committed (openraft's `ensure_linearizable`) |
//! | `GET /kv/{key}?read=stale` | this node's state machine as it is: any node, may lag |
//! | `GET /scan?from=&to=&limit=&read=` | keys in `[from, to)`, at most `limit` (default 1000) |
//! | `POST /cluster/init` (body `{"1": "127.0.0.1:21001", ...}`) | initializes the cluster with these voters |
//! | `POST /cluster/learner` (body `{"id": 4, "addr": "..."}`) | adds a learner, returns once it has caught up |
//! | `POST /cluster/voters` (body `[1, 2, 4]`) | makes these nodes the voters |
//! | `GET /cluster/metrics` | openraft's metrics of this node (leader, term, log and applied ids, membership) |
//! | `GET /cluster/storage` | `{"snapshot_installs": N}`: snapshots this node installed since it started |
//!
//! Raft's routes take bodies up to 64 MiB (snapshot chunks are 1 MiB of bytes, several times
//! that in JSON); the others axum's default, 2 MiB.
//!
//! A write or linearizable read sent to a node that does not lead gets status 421 and
//! `{"leader_id": .., "leader_addr": ..}` (either may be null during an election); the
//! [`crate::client::Client`] follows it. Other failures are status 503 with `{"error": ...}`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response as HttpResponse};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use openraft::error::{CheckIsLeaderError, ForwardToLeader, RaftError};
use openraft::raft::{AppendEntriesRequest, InstallSnapshotRequest, VoteRequest};
use openraft::BasicNode;
use serde::{Deserialize, Serialize};

use crate::batcher::{Failure, WriteError, Writes};
use crate::node::BoxError;
use crate::{NodeId, Raft, Request, TypeConfig};

/// The reads a node serves from its own state machine (after the read barrier, if any).
/// `cairn_raft::StateMachine` has them; another storage started with
/// [`crate::node::start_with`] brings its own.
pub trait LocalReads: Send + Sync + 'static {
    /// The value of `key`.
    ///
    /// # Errors
    /// The storage's read errors.
    fn get(&self, key: &str) -> Result<Option<String>, BoxError>;
    /// The keys in `[from, to)` (`to` None: to the end) and their values, at most `limit`.
    ///
    /// # Errors
    /// The storage's read errors.
    fn scan(
        &self,
        from: &str,
        to: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>, BoxError>;
    /// Snapshots this node installed since it started.
    fn snapshot_installs(&self) -> u64;
}

impl LocalReads for cairn_raft::StateMachine {
    fn get(&self, key: &str) -> Result<Option<String>, BoxError> {
        Ok(cairn_raft::StateMachine::get(self, key)?)
    }

    fn scan(
        &self,
        from: &str,
        to: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, String)>, BoxError> {
        Ok(cairn_raft::StateMachine::scan(self, from, to, limit)?)
    }

    fn snapshot_installs(&self) -> u64 {
        cairn_raft::StateMachine::snapshot_installs(self)
    }
}

/// What the handlers share: the node's Raft handle, its write queue and its state machine (for
/// reads).
#[derive(Clone)]
pub struct App {
    /// This node's id.
    pub id: NodeId,
    /// The node's openraft handle.
    pub raft: Raft,
    /// Client writes, grouped into entries ([`crate::batcher`]).
    pub writes: Writes<WriteError>,
    /// The node's state machine, read directly by reads.
    pub sm: Arc<dyn LocalReads>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The body of a 421 reply: where the leader is, as far as this node knows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NotLeader {
    /// The leader's id, if known.
    pub leader_id: Option<NodeId>,
    /// The leader's address, if known.
    pub leader_addr: Option<String>,
}

/// The body of a value reply.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ValueReply {
    /// The value (absent key: null).
    pub value: Option<String>,
}

/// The body of a learner request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Learner {
    /// Its node id.
    pub id: NodeId,
    /// Its address, `host:port`.
    pub addr: String,
}

/// How a read is served.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReadMode {
    /// After the leader confirms its leadership and applies what is committed.
    #[default]
    Linearizable,
    /// From this node's state machine as it is.
    Stale,
}

#[derive(Debug, Deserialize)]
struct ReadQuery {
    #[serde(default)]
    read: ReadMode,
}

#[derive(Debug, Deserialize)]
struct ScanQuery {
    #[serde(default)]
    from: String,
    to: Option<String>,
    limit: Option<usize>,
    #[serde(default)]
    read: ReadMode,
}

/// The largest body of a Raft RPC.
pub const RAFT_BODY_LIMIT: usize = 64 << 20;

/// The routes of a node.
pub fn router(app: Arc<App>) -> Router {
    let raft = Router::new()
        .route("/raft/append", post(raft_append))
        .route("/raft/vote", post(raft_vote))
        .route("/raft/snapshot", post(raft_snapshot))
        .layer(DefaultBodyLimit::max(RAFT_BODY_LIMIT));
    Router::new()
        .merge(raft)
        .route("/kv/{key}", put(kv_put).get(kv_get).delete(kv_delete))
        .route("/scan", get(scan))
        .route("/cluster/init", post(cluster_init))
        .route("/cluster/learner", post(cluster_learner))
        .route("/cluster/voters", post(cluster_voters))
        .route("/cluster/metrics", get(cluster_metrics))
        .route("/cluster/storage", get(cluster_storage))
        .with_state(app)
}

async fn raft_append(
    State(app): State<Arc<App>>,
    Json(rpc): Json<AppendEntriesRequest<TypeConfig>>,
) -> impl IntoResponse {
    Json(app.raft.append_entries(rpc).await)
}

async fn raft_vote(
    State(app): State<Arc<App>>,
    Json(rpc): Json<VoteRequest<NodeId>>,
) -> impl IntoResponse {
    Json(app.raft.vote(rpc).await)
}

async fn raft_snapshot(
    State(app): State<Arc<App>>,
    Json(rpc): Json<InstallSnapshotRequest<TypeConfig>>,
) -> impl IntoResponse {
    Json(app.raft.install_snapshot(rpc).await)
}

fn unavailable(e: impl std::fmt::Display) -> HttpResponse {
    let body = serde_json::json!({ "error": e.to_string() });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}

fn not_leader(f: &ForwardToLeader<NodeId, BasicNode>) -> HttpResponse {
    let body = NotLeader {
        leader_id: f.leader_id,
        leader_addr: f.leader_node.as_ref().map(|n| n.addr.clone()),
    };
    (StatusCode::MISDIRECTED_REQUEST, Json(body)).into_response()
}

fn write_error(e: WriteError) -> HttpResponse {
    match e.forward_to_leader() {
        Some(f) => not_leader(f),
        None => unavailable(e),
    }
}

async fn write(app: &App, req: Request) -> HttpResponse {
    match app.writes.write(req).await {
        Ok(reply) => Json(ValueReply { value: reply.value }).into_response(),
        Err(Failure::Write(e)) => write_error(e),
        Err(Failure::Unanswered) => unavailable("the write was not answered (node stopping)"),
    }
}

async fn kv_put(
    State(app): State<Arc<App>>,
    Path(key): Path<String>,
    value: String,
) -> HttpResponse {
    write(&app, Request::Put { key, value }).await
}

async fn kv_delete(State(app): State<Arc<App>>, Path(key): Path<String>) -> HttpResponse {
    write(&app, Request::Delete { key }).await
}

/// Waits, for a linearizable read, until the state machine may be read; a reply on refusal.
async fn read_barrier(app: &App, mode: ReadMode) -> Result<(), HttpResponse> {
    if mode == ReadMode::Stale {
        return Ok(());
    }
    match app.raft.ensure_linearizable().await {
        Ok(_) => Ok(()),
        Err(e) => Err(match &e {
            RaftError::APIError(CheckIsLeaderError::ForwardToLeader(f)) => not_leader(f),
            _ => unavailable(e),
        }),
    }
}

async fn kv_get(
    State(app): State<Arc<App>>,
    Path(key): Path<String>,
    Query(q): Query<ReadQuery>,
) -> HttpResponse {
    if let Err(reply) = read_barrier(&app, q.read).await {
        return reply;
    }
    match app.sm.get(&key) {
        Ok(value) => Json(ValueReply { value }).into_response(),
        Err(e) => unavailable(e),
    }
}

async fn scan(State(app): State<Arc<App>>, Query(q): Query<ScanQuery>) -> HttpResponse {
    if let Err(reply) = read_barrier(&app, q.read).await {
        return reply;
    }
    match app
        .sm
        .scan(&q.from, q.to.as_deref(), q.limit.unwrap_or(1000))
    {
        Ok(pairs) => Json(pairs).into_response(),
        Err(e) => unavailable(e),
    }
}

async fn cluster_init(
    State(app): State<Arc<App>>,
    Json(members): Json<BTreeMap<NodeId, String>>,
) -> HttpResponse {
    let nodes: BTreeMap<NodeId, BasicNode> = members
        .into_iter()
        .map(|(id, addr)| (id, BasicNode { addr }))
        .collect();
    match app.raft.initialize(nodes).await {
        Ok(()) => Json(serde_json::json!({})).into_response(),
        Err(e) => unavailable(e),
    }
}

async fn cluster_learner(
    State(app): State<Arc<App>>,
    Json(learner): Json<Learner>,
) -> HttpResponse {
    let node = BasicNode { addr: learner.addr };
    match app.raft.add_learner(learner.id, node, true).await {
        Ok(_) => Json(serde_json::json!({})).into_response(),
        Err(e) => write_error(e),
    }
}

async fn cluster_voters(
    State(app): State<Arc<App>>,
    Json(voters): Json<BTreeSet<NodeId>>,
) -> HttpResponse {
    match app.raft.change_membership(voters, false).await {
        Ok(_) => Json(serde_json::json!({})).into_response(),
        Err(e) => write_error(e),
    }
}

async fn cluster_metrics(State(app): State<Arc<App>>) -> HttpResponse {
    let metrics = app.raft.metrics().borrow().clone();
    Json(metrics).into_response()
}

async fn cluster_storage(State(app): State<Arc<App>>) -> HttpResponse {
    let body = serde_json::json!({ "snapshot_installs": app.sm.snapshot_installs() });
    Json(body).into_response()
}
