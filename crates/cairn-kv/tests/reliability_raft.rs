//! Reliability suite `raft`: a 3-node cluster of `cairn-kv-server` processes on 127.0.0.1,
//! written to without pause by four clients at once (so that leaders group their writes into
//! shared entries, `cairn_kv::batcher`) while each case injects one fault:
//!
//! 0. the leader is killed (SIGKILL) and restarted;
//! 1. a follower is killed and restarted;
//! 2. a follower is killed, the leader writes and purges past the follower's log, and the
//!    follower is restarted: it can only catch up by receiving a snapshot (asserted);
//! 3. a follower is removed from the voters and added back (learner, then voter).
//!
//! After each case: every acknowledged write is read back through a linearizable scan on the
//! leader (`acked_lost` counts the missing or changed), and once all three nodes have applied
//! the leader's log their state machines are compared (`divergent_states`). Times from a
//! leader's kill to the acknowledgement of the first write sent after it are printed as a
//! `MEASURED raft` line (measured, not asserted). Nodes run with `--snapshot-every 50 --keep-logs 0`, so snapshots are built,
//! sent and installed throughout.
//!
//! Waits are bounded polls of openraft's metrics over HTTP (the nodes are other processes);
//! no wait orders events by time. A node that exits on its own fails the suite at once.
//!
//! The cases are not drawn from seeds: case `i` injects fault `i % 4`, so
//! `CAIRN_RELIABILITY_REPLAY` (which runs one case, numbered 0) repeats a leader kill.

#[path = "../../cairndb/tests/common/reliability.rs"]
mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cairn_kv::api::ReadMode;
use cairn_kv::client::Client;
use common::{Suite, Volume};
use tokio::sync::watch;

const IDS: [u64; 3] = [1, 2, 3];
const POLL: Duration = Duration::from_millis(20);
const LIMIT: Duration = Duration::from_secs(120);

struct Node {
    addr: String,
    dir: PathBuf,
    child: Option<Child>,
}

struct Cluster {
    nodes: BTreeMap<u64, Node>,
}

/// A free port below Linux's ephemeral range (32768 and up), so that no outgoing connection
/// takes it while its node is down.
fn free_port() -> u16 {
    use rand::Rng;
    let mut rng = rand::thread_rng();
    loop {
        let port = rng.gen_range(20_000..32_000);
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

impl Cluster {
    fn new(root: &Path) -> Cluster {
        let nodes = IDS
            .iter()
            .map(|id| {
                let node = Node {
                    addr: format!("127.0.0.1:{}", free_port()),
                    dir: root.join(id.to_string()),
                    child: None,
                };
                (*id, node)
            })
            .collect();
        Cluster { nodes }
    }

    fn start(&mut self, id: u64) {
        let node = self.nodes.get_mut(&id).unwrap();
        let log = File::options()
            .create(true)
            .append(true)
            .open(node.dir.with_extension("log"))
            .expect("log file");
        let child = Command::new(env!("CARGO_BIN_EXE_cairn-kv-server"))
            .args(["--id", &id.to_string(), "--listen", &node.addr])
            .arg("--dir")
            .arg(&node.dir)
            .args(["--snapshot-every", "50", "--keep-logs", "0"])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("spawn cairn-kv-server");
        node.child = Some(child);
    }

    /// Panics when a started node has exited on its own (a port taken, a failed open).
    fn check_alive(&mut self) {
        for (id, n) in &mut self.nodes {
            if let Some(c) = n.child.as_mut() {
                if let Ok(Some(status)) = c.try_wait() {
                    let log =
                        std::fs::read_to_string(n.dir.with_extension("log")).unwrap_or_default();
                    panic!("node {id} exited ({status}):\n{log}");
                }
            }
        }
    }

    /// SIGKILL, then reap.
    fn kill(&mut self, id: u64) {
        let mut child = self
            .nodes
            .get_mut(&id)
            .unwrap()
            .child
            .take()
            .expect("running");
        child.kill().expect("kill -9");
        child.wait().expect("reap");
    }

    fn addrs(&self) -> Vec<String> {
        self.nodes.values().map(|n| n.addr.clone()).collect()
    }

    fn live(&self) -> Vec<u64> {
        self.nodes
            .iter()
            .filter(|(_, n)| n.child.is_some())
            .map(|(id, _)| *id)
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for n in self.nodes.values_mut() {
            if let Some(mut c) = n.child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

async fn metrics(client: &Client, addr: &str) -> Option<serde_json::Value> {
    client.metrics(addr).await.ok()
}

fn index(m: &serde_json::Value, field: &str) -> Option<u64> {
    match &m[field] {
        serde_json::Value::Null => None,
        serde_json::Value::Number(n) => n.as_u64(),
        v => v["index"].as_u64(),
    }
}

/// Runs `poll` every [`POLL`] until it yields; a hang limit of [`LIMIT`] (no speed is checked:
/// the waits are for other processes, which nothing can signal to this one).
async fn poll_until<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    mut poll: impl FnMut() -> F,
) -> T {
    let wait = async {
        loop {
            if let Some(v) = poll().await {
                return v;
            }
            tokio::time::sleep(POLL).await;
        }
    };
    tokio::time::timeout(LIMIT, wait)
        .await
        .unwrap_or_else(|_| panic!("hang: no {what} within {LIMIT:?}"))
}

/// Polls until `f` holds for the metrics of the node at `addr`; the metrics then.
async fn until(
    client: &Client,
    addr: &str,
    what: &str,
    f: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    poll_until(&format!("{what} on {addr}"), || async {
        metrics(client, addr).await.filter(|m| f(m))
    })
    .await
}

/// Waits until node `id` answers; fails at once if it exited.
async fn up(cluster: &mut Cluster, client: &Client, id: u64) {
    let addr = cluster.nodes[&id].addr.clone();
    let cluster = std::cell::RefCell::new(cluster);
    poll_until(&format!("answer from node {id}"), || async {
        let m = metrics(client, &addr).await;
        if m.is_none() {
            cluster.borrow_mut().check_alive();
        }
        m
    })
    .await;
}

/// The id of a live node that reports itself leader.
async fn leader(cluster: &Cluster, client: &Client) -> u64 {
    poll_until("leader", || async {
        for id in cluster.live() {
            if let Some(m) = metrics(client, &cluster.nodes[&id].addr).await {
                if m["current_leader"].as_u64() == Some(id) && m["state"] == "Leader" {
                    return Some(id);
                }
            }
        }
        None
    })
    .await
}

/// An acknowledged write: key, value, when it was sent and when it was acknowledged.
type Ack = (String, String, Instant, Instant);

/// Clients of a [`Writer`].
const CLIENTS: u64 = 4;

/// [`CLIENTS`] clients, client `c` writing `w<case>-<c>-<n>` = `v<n>` without pause until told
/// to stop; publishes the count acked (all clients together, in the order acknowledged).
struct Writer {
    acked: Arc<Mutex<Vec<Ack>>>,
    count: watch::Receiver<usize>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<u64>,
}

impl Writer {
    fn start(addrs: Vec<String>, case: u64) -> Writer {
        let acked = Arc::new(Mutex::new(Vec::new()));
        let (count_tx, count) = watch::channel(0usize);
        let count_tx = Arc::new(count_tx);
        let (stop, stop_rx) = watch::channel(false);
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let (log, count_tx, stop_rx) = (acked.clone(), count_tx.clone(), stop_rx.clone());
                let mut client = Client::new(addrs.clone());
                tokio::spawn(async move {
                    let mut failures = 0;
                    let mut n = 0u64;
                    while !*stop_rx.borrow() {
                        let (k, v) = (format!("w{case:04}-{c}-{n:06}"), format!("v{n}"));
                        n += 1;
                        let sent = Instant::now();
                        match client.put(&k, &v).await {
                            Ok(()) => {
                                let mut l = log.lock().unwrap();
                                l.push((k, v, sent, Instant::now()));
                                count_tx.send_replace(l.len());
                            }
                            Err(_) => failures += 1,
                        }
                    }
                    failures
                })
            })
            .collect();
        let task = tokio::spawn(async move {
            let mut failures = 0;
            for c in clients {
                failures += c.await.expect("writer client");
            }
            failures
        });
        Writer {
            acked,
            count,
            stop,
            task,
        }
    }

    fn acked(&self) -> usize {
        *self.count.borrow()
    }

    /// Waits for `more` acknowledgements after now.
    async fn progress(&mut self, more: usize) {
        let target = self.acked() + more;
        tokio::time::timeout(LIMIT, self.count.wait_for(|n| *n >= target))
            .await
            .expect("writes make progress")
            .expect("writer alive");
    }

    async fn finish(self) -> (Vec<Ack>, u64) {
        self.stop.send_replace(true);
        let failures = self.task.await.expect("writer");
        let acked = std::mem::take(&mut *self.acked.lock().unwrap());
        (acked, failures)
    }
}

#[derive(Default)]
struct Counts {
    cases: u64,
    leader_kills: u64,
    follower_kills: u64,
    snapshot_catchups: u64,
    membership_changes: u64,
    acked_writes: u64,
    acked_lost: u64,
    divergent_states: u64,
    write_failures: u64,
    failover_ms: Vec<u64>,
}

async fn case(cluster: &mut Cluster, i: u64, c: &mut Counts) {
    let probe = Client::new(cluster.addrs());
    let leader_id = leader(cluster, &probe).await;
    let follower = *IDS.iter().find(|id| **id != leader_id).unwrap();
    let mut writer = Writer::start(cluster.addrs(), i);
    writer.progress(30).await;
    match i % 4 {
        0 => {
            cluster.kill(leader_id);
            let killed = Instant::now();
            // The first acknowledgement of a write sent after the kill (with four clients, one
            // received just before the kill may be recorded just after it).
            let first = loop {
                writer.progress(1).await;
                let acked = writer.acked.lock().unwrap();
                if let Some(at) = acked.iter().filter(|a| a.2 >= killed).map(|a| a.3).min() {
                    break at;
                }
            };
            c.failover_ms
                .push(first.duration_since(killed).as_millis() as u64);
            writer.progress(30).await;
            cluster.start(leader_id);
            up(cluster, &probe, leader_id).await;
            c.leader_kills += 1;
        }
        1 => {
            cluster.kill(follower);
            writer.progress(30).await;
            cluster.start(follower);
            up(cluster, &probe, follower).await;
            c.follower_kills += 1;
        }
        2 => {
            let addr = cluster.nodes[&follower].addr.clone();
            let m = until(&probe, &addr, "metrics", |_| true).await;
            cluster.kill(follower);
            let last = index(&m, "last_log_index").unwrap_or(0);
            let leader_addr = cluster.nodes[&leader_id].addr.clone();
            until(&probe, &leader_addr, "a purge past the follower", |m| {
                index(m, "purged").is_some_and(|p| p > last)
            })
            .await;
            cluster.start(follower);
            up(cluster, &probe, follower).await;
            until(&probe, &addr, "a snapshot past its log", |m| {
                index(m, "snapshot").is_some_and(|s| s > last)
            })
            .await;
            let installs = probe.storage(&addr).await.expect("storage report")["snapshot_installs"]
                .as_u64()
                .unwrap_or(0);
            assert!(
                installs >= 1,
                "the follower caught up without installing a snapshot"
            );
            c.snapshot_catchups += 1;
        }
        _ => {
            let mut admin = Client::new(cluster.addrs());
            let rest = IDS.iter().copied().filter(|id| *id != follower).collect();
            admin.set_voters(&rest).await.expect("remove a voter");
            writer.progress(30).await;
            let addr = cluster.nodes[&follower].addr.clone();
            admin.add_learner(follower, &addr).await.expect("add back");
            admin
                .set_voters(&IDS.iter().copied().collect())
                .await
                .expect("voter again");
            c.membership_changes += 1;
        }
    }
    writer.progress(30).await;
    let (acked, failures) = writer.finish().await;
    c.write_failures += failures;
    c.acked_writes += acked.len() as u64;

    // Every acknowledged write, through a linearizable scan on the leader.
    let mut reader = Client::new(cluster.addrs());
    let from = format!("w{i:04}-");
    let to = format!("w{:04}-", i + 1);
    let got: BTreeMap<String, String> = reader
        .scan(&from, Some(&to), usize::MAX >> 1, ReadMode::Linearizable)
        .await
        .expect("scan")
        .into_iter()
        .collect();
    for (k, v, _, _) in &acked {
        if got.get(k) != Some(v) {
            c.acked_lost += 1;
        }
    }

    // All three nodes apply the leader's log; their state machines must be equal.
    let leader_id = leader(cluster, &probe).await;
    let m = until(&probe, &cluster.nodes[&leader_id].addr, "metrics", |_| true).await;
    let applied = index(&m, "last_applied").unwrap_or(0);
    let mut states = Vec::new();
    for id in IDS {
        let addr = cluster.nodes[&id].addr.clone();
        until(&probe, &addr, "catching up", |m| {
            index(m, "last_applied").is_some_and(|a| a >= applied)
        })
        .await;
        let mut one = Client::new(vec![addr]);
        let all = one
            .scan("", None, usize::MAX >> 1, ReadMode::Stale)
            .await
            .expect("stale scan");
        states.push(all);
    }
    if states.iter().any(|s| s != &states[0]) {
        c.divergent_states += 1;
    }
    c.cases += 1;
}

fn suite(volume: Volume) {
    let suite = Suite::new("raft", volume, 8);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cluster = Cluster::new(dir.path());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    for id in IDS {
        cluster.start(id);
    }
    let mut init = Client::new(cluster.addrs());
    let voters = cluster
        .nodes
        .iter()
        .map(|(id, n)| (*id, n.addr.clone()))
        .collect();
    rt.block_on(async {
        for id in IDS {
            up(&mut cluster, &init, id).await;
        }
        init.init(&voters).await.expect("init");
    });
    let mut c = Counts::default();
    let mut i = 0;
    let cases = suite.run(|_seed| {
        rt.block_on(case(&mut cluster, i, &mut c));
        cluster.check_alive();
        i += 1;
    });
    drop(cluster);
    c.failover_ms.sort_unstable();
    if !c.failover_ms.is_empty() {
        // A measurement, not a count: printed apart from the RELIABILITY line.
        println!(
            "MEASURED raft failover_ms={:?} median_ms={} (leader SIGKILL to the acknowledgement of the first write sent after it)",
            c.failover_ms,
            c.failover_ms[c.failover_ms.len() / 2]
        );
    }
    suite.finish(
        cases,
        &[
            ("cases", c.cases),
            ("leader_kills", c.leader_kills),
            ("follower_kills", c.follower_kills),
            ("snapshot_catchups", c.snapshot_catchups),
            ("membership_changes", c.membership_changes),
            ("acked_writes", c.acked_writes),
            ("write_failures", c.write_failures),
            ("acked_lost", c.acked_lost),
            ("divergent_states", c.divergent_states),
        ],
        &["acked_lost", "divergent_states"],
        &[
            ("cases", cases),
            ("acked_writes", cases * 90),
            ("leader_kills", cases / 4),
            ("snapshot_catchups", cases / 4),
        ],
    );
}

#[test]
fn raft_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn raft_full() {
    suite(Volume::Full);
}
