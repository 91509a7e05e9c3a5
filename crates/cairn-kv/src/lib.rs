//! A replicated key-value service: openraft 0.9.25 nodes that talk HTTP/JSON on loopback or a
//! LAN, each keeping its Raft log and state machine in CairnDB (`cairn-raft`).
//!
//! - [`node`]: starts a node (storage, Raft, HTTP server) and stops it.
//! - [`api`]: the HTTP API: Raft's RPCs between nodes, the key-value API, cluster membership.
//! - [`batcher`]: group commit: concurrent client writes go into Raft as one entry.
//! - [`network`]: openraft's network (the client side of Raft's RPCs).
//! - [`client`]: a client that finds the leader and follows redirects.
//! - [`bench`]: a write load with latency percentiles (`cairn-kv bench`).
//!
//! Binaries: `cairn-kv-server` runs one node; `cairn-kv` is the command-line client;
//! `scripts/raft-cluster.sh` starts a local 3-node cluster. `docs/design/raft.md` describes the
//! API and its consistency.

pub mod api;
pub mod batcher;
pub mod bench;
pub mod client;
pub mod network;
pub mod node;

pub use cairn_raft::{NodeId, Request, Response, TypeConfig};

/// The openraft handle of a node.
pub type Raft = openraft::Raft<TypeConfig>;
