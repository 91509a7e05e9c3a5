//! [`Client`]: the key-value API over HTTP, sent to the leader.
//!
//! The client starts at the first address it was given. A 421 reply names the leader, and the
//! client resends there; a node that cannot be reached, or a 421 without a known leader (an
//! election is on), makes it try the next address after a short pause, up to a bounded number
//! of attempts. Writes are resent after a failure (no reply, or a 503 during a leader change),
//! so a put or delete may be applied twice. Alone that changes nothing (both are idempotent),
//! but with several clients writing one key, a resent write may land after another client's
//! later one. Each request gives up after 10 s.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::api::{Learner, NotLeader, ReadMode, ValueReply};
use crate::NodeId;

/// Attempts per call before giving up.
const ATTEMPTS: usize = 50;
/// The pause before trying another node when no leader is known.
const PAUSE: Duration = Duration::from_millis(100);

/// A failed call.
#[derive(Debug)]
pub enum ClientError {
    /// No node answered as leader within the attempts.
    NoLeader(String),
    /// A node answered with an error.
    Server(StatusCode, String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::NoLeader(last) => write!(f, "no leader answered: {last}"),
            ClientError::Server(status, body) => write!(f, "server replied {status}: {body}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// A client of a cluster.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    addrs: Vec<String>,
    current: usize,
}

impl Client {
    /// A client of the nodes at `addrs` (`host:port`; at least one).
    ///
    /// # Panics
    /// If `addrs` is empty.
    pub fn new(addrs: Vec<String>) -> Self {
        assert!(
            !addrs.is_empty(),
            "a client needs at least one node address"
        );
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        Client {
            http,
            addrs,
            current: 0,
        }
    }

    /// The node addresses the client knows.
    pub fn addrs(&self) -> &[String] {
        &self.addrs
    }

    /// The address the client sends to now (the leader, once found).
    pub fn current(&self) -> &str {
        &self.addrs[self.current]
    }

    fn move_to(&mut self, addr: &str) {
        match self.addrs.iter().position(|a| a == addr) {
            Some(i) => self.current = i,
            None => {
                self.addrs.push(addr.to_string());
                self.current = self.addrs.len() - 1;
            }
        }
    }

    /// `http://<current node>/<segments, each percent-encoded>?<query>`.
    fn url(&self, segments: &[&str], query: &[(&str, &str)]) -> Result<Url, ClientError> {
        let mut url = Url::parse(&format!("http://{}/", self.current()))
            .map_err(|e| ClientError::NoLeader(format!("bad address {}: {e}", self.current())))?;
        url.path_segments_mut()
            .map_err(|()| ClientError::NoLeader(format!("bad address {}", self.current())))?
            .pop_if_empty()
            .extend(segments);
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(url)
    }

    async fn call<B: Serialize, T: DeserializeOwned>(
        &mut self,
        method: Method,
        segments: &[&str],
        query: &[(&str, &str)],
        body: Option<&B>,
        raw: Option<&str>,
    ) -> Result<T, ClientError> {
        let mut last = String::new();
        for _ in 0..ATTEMPTS {
            let url = self.url(segments, query)?;
            let mut req = self.http.request(method.clone(), url);
            if let Some(b) = body {
                req = req.json(b);
            }
            if let Some(r) = raw {
                req = req.body(r.to_string());
            }
            let reply = match req.send().await {
                Ok(reply) => reply,
                Err(e) => {
                    last = e.to_string();
                    self.current = (self.current + 1) % self.addrs.len();
                    tokio::time::sleep(PAUSE).await;
                    continue;
                }
            };
            let status = reply.status();
            if status == StatusCode::MISDIRECTED_REQUEST {
                let to: NotLeader = reply
                    .json()
                    .await
                    .map_err(|e| ClientError::Server(status, e.to_string()))?;
                last = format!("{} is not the leader", self.current());
                match to.leader_addr {
                    Some(addr) if addr != self.current() => self.move_to(&addr),
                    _ => {
                        self.current = (self.current + 1) % self.addrs.len();
                        tokio::time::sleep(PAUSE).await;
                    }
                }
                continue;
            }
            if status == StatusCode::SERVICE_UNAVAILABLE {
                // Leadership changing under the request: try again.
                last = reply.text().await.unwrap_or_default();
                tokio::time::sleep(PAUSE).await;
                continue;
            }
            if !status.is_success() {
                let text = reply.text().await.unwrap_or_default();
                return Err(ClientError::Server(status, text));
            }
            return reply
                .json()
                .await
                .map_err(|e| ClientError::Server(status, e.to_string()));
        }
        Err(ClientError::NoLeader(last))
    }

    /// Sets `key` to `value`; returns once the leader has applied it.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn put(&mut self, key: &str, value: &str) -> Result<(), ClientError> {
        let _: ValueReply = self
            .call::<(), _>(Method::PUT, &["kv", key], &[], None, Some(value))
            .await?;
        Ok(())
    }

    /// Removes `key`.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn delete(&mut self, key: &str) -> Result<(), ClientError> {
        let _: ValueReply = self
            .call::<(), _>(Method::DELETE, &["kv", key], &[], None, None)
            .await?;
        Ok(())
    }

    /// The value of `key`, read as `mode` says.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn get(&mut self, key: &str, mode: ReadMode) -> Result<Option<String>, ClientError> {
        let query = [("read", mode_name(mode))];
        let reply: ValueReply = self
            .call::<(), _>(Method::GET, &["kv", key], &query, None, None)
            .await?;
        Ok(reply.value)
    }

    /// The value of `key` on the node at `addr` as it is there (a stale read of one node).
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn get_from(&self, addr: &str, key: &str) -> Result<Option<String>, ClientError> {
        let mut one = Client::new(vec![addr.to_string()]);
        one.http = self.http.clone();
        one.get(key, ReadMode::Stale).await
    }

    /// Keys in `[from, to)` (`to` None: to the end), at most `limit`.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn scan(
        &mut self,
        from: &str,
        to: Option<&str>,
        limit: usize,
        mode: ReadMode,
    ) -> Result<Vec<(String, String)>, ClientError> {
        let limit = limit.to_string();
        let mut query = vec![("from", from), ("limit", &limit), ("read", mode_name(mode))];
        if let Some(to) = to {
            query.push(("to", to));
        }
        self.call::<(), _>(Method::GET, &["scan"], &query, None, None)
            .await
    }

    /// Initializes the cluster with these voters (id -> address), through the first node.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn init(&mut self, voters: &BTreeMap<NodeId, String>) -> Result<(), ClientError> {
        let _: serde_json::Value = self
            .call(Method::POST, &["cluster", "init"], &[], Some(voters), None)
            .await?;
        Ok(())
    }

    /// Adds node `id` at `addr` as a learner; returns once it has caught up.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn add_learner(&mut self, id: NodeId, addr: &str) -> Result<(), ClientError> {
        let body = Learner {
            id,
            addr: addr.to_string(),
        };
        let _: serde_json::Value = self
            .call(
                Method::POST,
                &["cluster", "learner"],
                &[],
                Some(&body),
                None,
            )
            .await?;
        Ok(())
    }

    /// Makes exactly these nodes the voters.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn set_voters(&mut self, voters: &BTreeSet<NodeId>) -> Result<(), ClientError> {
        let _: serde_json::Value = self
            .call(
                Method::POST,
                &["cluster", "voters"],
                &[],
                Some(voters),
                None,
            )
            .await?;
        Ok(())
    }

    /// What the storage of the node at `addr` reports (`{"snapshot_installs": N}`: snapshots
    /// installed since it started).
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn storage(&self, addr: &str) -> Result<serde_json::Value, ClientError> {
        self.report(addr, "storage").await
    }

    /// openraft's metrics of the node at `addr`, as JSON.
    ///
    /// # Errors
    /// [`ClientError`].
    pub async fn metrics(&self, addr: &str) -> Result<serde_json::Value, ClientError> {
        self.report(addr, "metrics").await
    }

    /// `GET /cluster/<what>` of the node at `addr` (no leader needed).
    async fn report(&self, addr: &str, what: &str) -> Result<serde_json::Value, ClientError> {
        let reply = self
            .http
            .get(format!("http://{addr}/cluster/{what}"))
            .send()
            .await
            .map_err(|e| ClientError::NoLeader(e.to_string()))?;
        reply
            .json()
            .await
            .map_err(|e| ClientError::Server(StatusCode::OK, e.to_string()))
    }
}

fn mode_name(mode: ReadMode) -> &'static str {
    match mode {
        ReadMode::Linearizable => "linearizable",
        ReadMode::Stale => "stale",
    }
}
