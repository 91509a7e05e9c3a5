//! A 3-node cluster in one process, over HTTP on 127.0.0.1: replication, linearizable reads
//! through any node, the leader stopped during service (a new one takes over with every
//! acknowledged write; then eight clients write at once, so the leader may group their writes
//! into shared entries), and the stopped node restarted from its directory after the leader has
//! purged the log it lacks, so that it can only catch up by receiving a snapshot. Then a node
//! is removed from the voters and added back.
//!
//! Waits are on openraft's metrics (bounded, never a fixed sleep).

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use cairn_kv::api::ReadMode;
use cairn_kv::batcher::Batching;
use cairn_kv::client::Client;
use cairn_kv::node::{loopback_config, start, NodeConfig, RunningNode};
use cairn_kv::NodeId;
use tempfile::TempDir;

const WAIT: Duration = Duration::from_secs(60);

/// A free port below Linux's ephemeral range (32768 and up), so that no outgoing connection
/// takes it while its node is down.
fn listen_addr() -> SocketAddr {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    loop {
        let port = rng.gen_range(20_000..32_000);
        if let Ok(l) = std::net::TcpListener::bind(("127.0.0.1", port)) {
            return l.local_addr().unwrap();
        }
    }
}

async fn start_node(id: NodeId, dir: &Path, listen: SocketAddr) -> RunningNode {
    let mut raft = loopback_config();
    // Snapshot often and keep no log behind a snapshot, so that a node that was away must
    // receive a snapshot.
    raft.snapshot_policy = openraft::SnapshotPolicy::LogsSinceLast(50);
    raft.max_in_snapshot_log_to_keep = 0;
    raft.purge_batch_size = 1;
    start(NodeConfig {
        id,
        listen,
        dir: dir.join(id.to_string()),
        raft,
        batching: Batching::default(),
    })
    .await
    .expect("node starts")
}

async fn leader_of(nodes: &[&RunningNode], not: Option<NodeId>) -> NodeId {
    let m = nodes[0]
        .app
        .raft
        .wait(Some(WAIT))
        .metrics(
            |m| m.current_leader.is_some() && m.current_leader != not,
            "a leader",
        )
        .await
        .expect("a leader is elected");
    m.current_leader.unwrap()
}

/// Waits until every node has applied `index`, then checks their state machines are equal.
async fn converged(nodes: &[&RunningNode], index: u64) -> Vec<(String, String)> {
    let mut states = Vec::new();
    for n in nodes {
        n.app
            .raft
            .wait(Some(WAIT))
            .applied_index_at_least(Some(index), "applied")
            .await
            .expect("the node applies the log");
        states.push(n.app.sm.scan("", None, usize::MAX).expect("scan"));
    }
    for (n, s) in nodes.iter().zip(&states) {
        assert_eq!(
            s, &states[0],
            "node {} differs from node {}",
            n.app.id, nodes[0].app.id
        );
    }
    states.swap_remove(0)
}

fn last_applied(n: &RunningNode) -> u64 {
    n.app
        .raft
        .metrics()
        .borrow()
        .last_applied
        .map_or(0, |l| l.index)
}

async fn write_range(client: &mut Client, from: u32, to: u32) {
    for i in from..to {
        client
            .put(&format!("k{i:04}"), &format!("v{i}"))
            .await
            .expect("the write is acknowledged");
    }
}

/// Writes `from..to` from `clients` clients at once (so that the leader may group them into
/// shared entries, `cairn_kv::batcher`; how many share one depends on timing and is not
/// asserted), each acknowledged.
async fn write_concurrently(addrs: &BTreeMap<NodeId, String>, from: u32, to: u32, clients: u32) {
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let mut client = Client::new(addrs.values().cloned().collect());
            tokio::spawn(async move {
                for i in (from + c..to).step_by(clients as usize) {
                    client
                        .put(&format!("k{i:04}"), &format!("v{i}"))
                        .await
                        .expect("the write is acknowledged");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("writer task");
    }
}

fn expected(upto: u32) -> Vec<(String, String)> {
    (0..upto)
        .map(|i| (format!("k{i:04}"), format!("v{i}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_replicate_fail_over_catch_up_by_snapshot_and_change_membership() {
    let dir = TempDir::new().unwrap();
    let mut nodes = BTreeMap::new();
    for id in 1..=3 {
        nodes.insert(id, start_node(id, dir.path(), listen_addr()).await);
    }
    let addrs: BTreeMap<NodeId, String> = nodes
        .iter()
        .map(|(id, n)| (*id, n.addr.to_string()))
        .collect();
    let mut client = Client::new(addrs.values().cloned().collect());
    client.init(&addrs).await.expect("init");
    let all: Vec<&RunningNode> = nodes.values().collect();
    let leader = leader_of(&all, None).await;

    // Replication, and reads through any node.
    write_range(&mut client, 0, 100).await;
    for id in 1..=3 {
        let mut via = Client::new(vec![addrs[&id].clone()]);
        let got = via
            .get("k0042", ReadMode::Linearizable)
            .await
            .expect("read");
        assert_eq!(
            got.as_deref(),
            Some("v42"),
            "a linearizable read through node {id}"
        );
    }
    client.delete("k0099").await.expect("delete");
    client.put("k0099", "v99").await.expect("put");
    let index = last_applied(nodes.get(&leader).unwrap());
    assert_eq!(converged(&all, index).await, expected(100));

    // The leader stops; the other two elect a leader that has every acknowledged write.
    let old = nodes.remove(&leader).unwrap();
    let old_addr = old.addr;
    let old_last = old.app.raft.metrics().borrow().last_log_index.unwrap();
    old.stop().await.expect("stop");
    let rest: Vec<&RunningNode> = nodes.values().collect();
    let new_leader = leader_of(&rest, Some(leader)).await;
    assert_ne!(new_leader, leader);
    let got = client
        .scan("", None, 10_000, ReadMode::Linearizable)
        .await
        .expect("scan on the new leader");
    assert_eq!(
        got,
        expected(100),
        "every acknowledged write survives the failover"
    );
    write_concurrently(&addrs, 100, 300, 8).await;
    // Large values, so that the snapshot the stopped node needs (about 5 MB) spans several
    // chunks and is larger than an HTTP body may be by default.
    let big: Vec<(String, String)> = (0..12)
        .map(|j| {
            // Random letters: the table's block compression must not shrink them away.
            let v: String = (0..400_000)
                .map(|_| {
                    rand::Rng::sample(&mut rand::thread_rng(), rand::distributions::Alphanumeric)
                        as char
                })
                .collect();
            (format!("big{j:02}"), v)
        })
        .collect();
    for (k, v) in &big {
        client.put(k, v).await.expect("a large write");
    }
    let big_index = last_applied(&nodes[&new_leader]);
    write_range(&mut client, 300, 360).await;

    // The log the stopped node lacks is purged on the new leader: it must take a snapshot.
    let purged = nodes[&new_leader]
        .app
        .raft
        .wait(Some(WAIT))
        .metrics(
            |m| {
                m.purged.is_some_and(|p| p.index > old_last)
                    && m.snapshot.is_some_and(|s| s.index >= big_index)
            },
            "the log the stopped node lacks is purged, and the snapshot holds the large values",
        )
        .await
        .expect("the leader purges behind its snapshot")
        .purged
        .unwrap();
    assert!(purged.index > old_last);
    let back = start_node(leader, dir.path(), old_addr).await;
    nodes.insert(leader, back);
    let all: Vec<&RunningNode> = nodes.values().collect();
    let index = last_applied(&nodes[&new_leader]);
    let mut with_big = big.clone();
    with_big.extend(expected(360));
    assert_eq!(converged(&all, index).await, with_big);
    assert!(
        nodes[&leader].app.sm.snapshot_installs() >= 1,
        "the restarted node caught up by installing a snapshot"
    );

    // Membership: a follower leaves the voters, writes go on, it comes back.
    let follower = *nodes.keys().find(|id| **id != new_leader).unwrap();
    let voters: BTreeSet<NodeId> = nodes.keys().copied().filter(|id| *id != follower).collect();
    client.set_voters(&voters).await.expect("remove a voter");
    write_range(&mut client, 360, 380).await;
    client
        .add_learner(follower, &addrs[&follower].clone())
        .await
        .unwrap_or_else(|e| {
            panic!(
                "re-add {follower} ({}) as learner: {e}",
                nodes[&follower].addr
            )
        });
    let voters: BTreeSet<NodeId> = nodes.keys().copied().collect();
    client
        .set_voters(&voters)
        .await
        .expect("make it a voter again");
    write_range(&mut client, 380, 400).await;
    let all: Vec<&RunningNode> = nodes.values().collect();
    let leader = leader_of(&all, None).await;
    let index = last_applied(&nodes[&leader]);
    let mut with_big = big;
    with_big.extend(expected(400));
    assert_eq!(converged(&all, index).await, with_big);
    let members = nodes[&leader]
        .app
        .raft
        .metrics()
        .borrow()
        .membership_config
        .clone();
    let now: BTreeSet<NodeId> = members.membership().voter_ids().collect();
    assert_eq!(now, voters);

    for (_, n) in nodes {
        n.stop().await.expect("stop");
    }
}
