//! openraft's network: Raft's three RPCs (append entries, vote, install snapshot) as HTTP POSTs
//! of JSON to the target node's `/raft/...` routes (served by [`crate::api`]).
//!
//! A connection failure is `Unreachable` (openraft backs off before retrying that node); any
//! other transport failure, including the RPC's time limit, is a `Network` error (retried at
//! once); an error the remote Raft returned is a `RemoteError`. An append whose body the
//! target refuses as too large (HTTP 413: over [`crate::api::RAFT_BODY_LIMIT`], possible when
//! entries hold grouped writes) is `PayloadTooLarge` with a hint of half as many entries, so
//! that openraft sends fewer at a time instead of resending the same payload.

use std::error::Error;

use openraft::error::{
    InstallSnapshotError, NetworkError, PayloadTooLarge, RPCError, RaftError, RemoteError,
    Unreachable,
};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};
use openraft::BasicNode;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{NodeId, TypeConfig};

/// Makes one [`Connection`] per target node; they share one HTTP client (and its pool).
#[derive(Debug, Clone)]
pub struct Network {
    http: reqwest::Client,
}

impl Default for Network {
    fn default() -> Self {
        Network::new()
    }
}

impl Network {
    /// A network with a fresh HTTP client. Proxies from the environment are ignored: nodes talk
    /// to each other directly.
    pub fn new() -> Self {
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap_or_default();
        Network { http }
    }
}

/// The RPC client of one target node.
#[derive(Debug)]
pub struct Connection {
    http: reqwest::Client,
    target: NodeId,
    addr: String,
}

type RpcResult<T, E> = Result<T, RPCError<NodeId, BasicNode, RaftError<NodeId, E>>>;

impl Connection {
    /// Posts `req` to `route`. `entries`: the number of log entries an append carries (None for
    /// the other RPCs), for the hint of a refused oversized append.
    async fn call<Req, Resp, E>(
        &self,
        route: &str,
        req: &Req,
        entries: Option<usize>,
        option: &RPCOption,
    ) -> RpcResult<Resp, E>
    where
        Req: Serialize,
        Resp: DeserializeOwned,
        E: Error + DeserializeOwned,
    {
        let url = format!("http://{}/raft/{route}", self.addr);
        let sent = self
            .http
            .post(url)
            .json(req)
            .timeout(option.hard_ttl())
            .send()
            .await;
        let reply = match sent {
            Ok(reply) => reply,
            Err(e) if e.is_connect() => return Err(RPCError::Unreachable(Unreachable::new(&e))),
            Err(e) => return Err(RPCError::Network(NetworkError::new(&e))),
        };
        if let (Some(n), reqwest::StatusCode::PAYLOAD_TOO_LARGE) = (entries, reply.status()) {
            let hint = (n as u64 / 2).max(1);
            return Err(RPCError::PayloadTooLarge(
                PayloadTooLarge::new_entries_hint(hint),
            ));
        }
        if let Err(e) = reply.error_for_status_ref() {
            // Not a Raft reply (a body over the limit, a node shutting down): unreachable, so
            // that openraft backs off instead of resending at once.
            return Err(RPCError::Unreachable(Unreachable::new(&e)));
        }
        let result: Result<Resp, RaftError<NodeId, E>> = reply
            .json()
            .await
            .map_err(|e| RPCError::Network(NetworkError::new(&e)))?;
        result.map_err(|e| RPCError::RemoteError(RemoteError::new(self.target, e)))
    }
}

impl RaftNetworkFactory<TypeConfig> for Network {
    type Network = Connection;

    async fn new_client(&mut self, target: NodeId, node: &BasicNode) -> Connection {
        Connection {
            http: self.http.clone(),
            target,
            addr: node.addr.clone(),
        }
    }
}

impl RaftNetwork<TypeConfig> for Connection {
    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> RpcResult<AppendEntriesResponse<NodeId>, openraft::error::Infallible> {
        let entries = rpc.entries.len();
        self.call("append", &rpc, Some(entries), &option).await
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<TypeConfig>,
        option: RPCOption,
    ) -> RpcResult<InstallSnapshotResponse<NodeId>, InstallSnapshotError> {
        self.call("snapshot", &rpc, None, &option).await
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<NodeId>,
        option: RPCOption,
    ) -> RpcResult<VoteResponse<NodeId>, openraft::error::Infallible> {
        self.call("vote", &rpc, None, &option).await
    }
}
