//! The Raft network's answer to an append the target refuses as too large: `PayloadTooLarge`
//! with a hint of half as many entries (so that openraft sends fewer), not `Unreachable`.

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::routing::post;
use axum::{Json, Router};
use cairn_kv::network::Network;
use cairn_kv::{Request, TypeConfig};
use openraft::error::RPCError;
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::AppendEntriesRequest;
use openraft::{BasicNode, CommittedLeaderId, Entry, EntryPayload, LogId, Vote};

#[tokio::test]
async fn an_oversized_append_asks_for_fewer_entries() {
    // A target whose append route takes bodies of at most 1 KiB.
    let app = Router::new()
        .route(
            "/raft/append",
            post(|Json(_): Json<serde_json::Value>| async { "unreachable in this test" }),
        )
        .layer(DefaultBodyLimit::max(1024));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let entries: Vec<Entry<TypeConfig>> = (1..=6u64)
        .map(|i| Entry {
            log_id: LogId::new(CommittedLeaderId::new(1, 1), i),
            payload: EntryPayload::Normal(Request::Put {
                key: format!("k{i}"),
                value: "v".repeat(1000),
            }),
        })
        .collect();
    let rpc = AppendEntriesRequest {
        vote: Vote::new_committed(1, 1),
        prev_log_id: None,
        entries,
        leader_commit: None,
    };
    let node = BasicNode {
        addr: addr.to_string(),
    };
    let mut conn = Network::new().new_client(2, &node).await;
    let got = conn
        .append_entries(rpc, RPCOption::new(Duration::from_secs(10)))
        .await;
    match got {
        Err(RPCError::PayloadTooLarge(p)) => assert_eq!(p.entries_hint(), 3),
        other => panic!("want PayloadTooLarge, got {other:?}"),
    }
}
