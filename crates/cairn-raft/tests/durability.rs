//! The storage under a running openraft node, on the engine's crash-simulating file system:
//! every write openraft acknowledged survives a power cut, snapshots and log purges included.
//!
//! One node is a whole cluster here (it elects itself), so no network is needed: that keeps
//! the storage the only thing under test. The multi-node service has its own tests (cairn-kv).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_raft::{LogStore, NodeId, Request, StateMachine, TypeConfig};
use cairndb::fs::{CrashOptions, MemFs};
use cairndb::options::Options;
use openraft::error::{InstallSnapshotError, RPCError, RaftError, Unreachable};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};
use openraft::storage::{RaftLogStorage, RaftLogStorageExt, RaftStateMachine};
use openraft::{
    BasicNode, CommittedLeaderId, Config, Entry, EntryPayload, LogId, RaftLogReader, ServerState,
    SnapshotPolicy,
};

type Raft = openraft::Raft<TypeConfig>;

/// The network of a one-node cluster: there is nobody to call.
struct Alone;

type RpcResult<T, E = openraft::error::Infallible> =
    Result<T, RPCError<NodeId, BasicNode, RaftError<NodeId, E>>>;

// openraft's RPC error type, whatever its size.
#[allow(clippy::result_large_err)]
fn nobody<T, E: std::error::Error>() -> RpcResult<T, E> {
    Err(RPCError::Unreachable(Unreachable::new(
        &std::io::Error::other("a one-node cluster has no peers"),
    )))
}

impl RaftNetworkFactory<TypeConfig> for Alone {
    type Network = Alone;

    async fn new_client(&mut self, _target: NodeId, _node: &BasicNode) -> Alone {
        Alone
    }
}

impl RaftNetwork<TypeConfig> for Alone {
    async fn append_entries(
        &mut self,
        _rpc: AppendEntriesRequest<TypeConfig>,
        _option: RPCOption,
    ) -> RpcResult<AppendEntriesResponse<NodeId>> {
        nobody()
    }

    async fn install_snapshot(
        &mut self,
        _rpc: InstallSnapshotRequest<TypeConfig>,
        _option: RPCOption,
    ) -> RpcResult<InstallSnapshotResponse<NodeId>, InstallSnapshotError> {
        nobody()
    }

    async fn vote(
        &mut self,
        _rpc: VoteRequest<NodeId>,
        _option: RPCOption,
    ) -> RpcResult<VoteResponse<NodeId>> {
        nobody()
    }
}

/// A bound on every wait below: they wait for this process's own tasks, so reaching it means
/// something hangs.
const HANG: Duration = Duration::from_secs(60);

/// Starts node 1 on `log` and `sm`; on a fresh store it initializes the one-node cluster. Returns
/// once the node leads.
async fn start(log: LogStore, sm: StateMachine, snapshot_every: u64) -> Raft {
    let config = Config {
        snapshot_policy: SnapshotPolicy::LogsSinceLast(snapshot_every),
        max_in_snapshot_log_to_keep: 4,
        purge_batch_size: 1,
        ..Config::default()
    };
    let raft = Raft::new(
        1,
        Arc::new(config.validate().expect("config")),
        Alone,
        log,
        sm,
    )
    .await
    .expect("start raft");
    if !raft.is_initialized().await.expect("is_initialized") {
        let members: BTreeSet<NodeId> = [1].into_iter().collect();
        raft.initialize(members).await.expect("initialize");
    }
    raft.wait(Some(HANG))
        .state(ServerState::Leader, "the only node leads")
        .await
        .expect("leader");
    raft
}

fn put(key: &str, value: &str) -> Request {
    Request::Put {
        key: key.into(),
        value: value.into(),
    }
}

/// What a writer sent, and what it was told succeeded.
#[derive(Debug, Clone)]
enum Op {
    Put(String, String),
    Delete(String),
    /// A delete sent, whatever its outcome: a write in flight at the cut may or may not
    /// survive it.
    DeleteSent(String),
}

/// The writers' operations up to the power cut, and the file system the cut left.
#[derive(Default)]
struct Record {
    ops: Vec<Op>,
    acks: usize,
    cut: Option<(MemFs, Vec<Op>)>,
}

impl Record {
    /// Records `op`; the `cut_after`-th acknowledgement takes the cut.
    fn note(&mut self, op: Op, cut_after: usize, cut: impl FnOnce() -> MemFs) {
        let acked = !matches!(op, Op::DeleteSent(_));
        self.ops.push(op);
        if acked {
            self.acks += 1;
            if self.acks == cut_after {
                self.cut = Some((cut(), self.ops.clone()));
            }
        }
    }
}

/// Four writers put (and now and then delete) their own keys through openraft while snapshots
/// are built and the log is purged; the power is cut at a random instant of the workload. On
/// the file system the cut leaves, the node restarts and every acknowledged write is there:
/// each acknowledged put readable with its value unless a delete of its key was acknowledged
/// (then the key is gone) or was in flight at the cut (then either is right).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_power_cuts() {
    let mut purged_cycles = 0;
    for cycle in 0..6u64 {
        let mem = MemFs::new();
        let dir = Path::new("/raft");
        let (log, sm) =
            cairn_raft::open_with_fs(mem.shared(), dir, Options::default()).expect("open");
        let raft = start(log, sm, 16).await;
        // Cut after a number of acknowledgements that differs per cycle, the writers still
        // running: the writer whose acknowledgement reaches the count takes the cut while it
        // holds the record, so the cut follows every recorded acknowledgement and precedes the
        // ones not recorded yet.
        let cut_after = 40 + 35 * cycle as usize;
        let options = if cycle % 2 == 0 {
            CrashOptions::synced_only()
        } else {
            CrashOptions::random(cycle)
        };
        let record = Arc::new(Mutex::new(Record::default()));
        let writers: Vec<_> = (0..4)
            .map(|t| {
                let (raft, record, mem) = (raft.clone(), record.clone(), mem.clone());
                let note = move |op: Op| {
                    record
                        .lock()
                        .unwrap()
                        .note(op, cut_after, || mem.crash_clone(options))
                };
                tokio::spawn(async move {
                    for i in 0..60 {
                        let key = format!("c{cycle}-t{t}-{i}");
                        let value = format!("v{i}");
                        if raft.client_write(put(&key, &value)).await.is_err() {
                            return;
                        }
                        note(Op::Put(key.clone(), value));
                        if i % 5 == 4 {
                            note(Op::DeleteSent(key.clone()));
                            let delete = Request::Delete { key: key.clone() };
                            if raft.client_write(delete).await.is_err() {
                                return;
                            }
                            note(Op::Delete(key));
                        }
                    }
                })
            })
            .collect();
        tokio::time::timeout(HANG, async {
            while record.lock().unwrap().cut.is_none() {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        })
        .await
        .expect("the writers make progress");
        if raft.metrics().borrow().purged.is_some() {
            purged_cycles += 1;
        }
        raft.shutdown().await.expect("shutdown");
        for w in writers {
            w.await.expect("writer");
        }
        let (cut, before_cut) = record.lock().unwrap().cut.take().expect("cut");

        let (log, sm) =
            cairn_raft::open_with_fs(cut.shared(), dir, Options::default()).expect("reopen");
        let raft = start(log, sm.clone(), 16).await;
        raft.ensure_linearizable()
            .await
            .expect("every committed entry applied");
        let mut expect: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut in_flight: BTreeSet<String> = BTreeSet::new();
        for op in &before_cut {
            match op {
                Op::Put(k, v) => {
                    expect.insert(k.clone(), Some(v.clone()));
                }
                Op::DeleteSent(k) => {
                    in_flight.insert(k.clone());
                }
                Op::Delete(k) => {
                    in_flight.remove(k);
                    expect.insert(k.clone(), None);
                }
            }
        }
        for (key, value) in &expect {
            let got = sm.get(key).expect("get");
            let deleted_in_flight = in_flight.contains(key) && got.is_none();
            assert!(
                got.as_ref() == value.as_ref() || deleted_in_flight,
                "cycle {cycle}: {key} is {got:?} after the power cut, acknowledged {value:?}"
            );
        }
        raft.shutdown().await.expect("shutdown");
    }
    assert!(
        purged_cycles >= 3,
        "snapshots and purges were under way in {purged_cycles} of 6 cycles"
    );
}

/// openraft purges the log a received snapshot covers before the snapshot is installed. With
/// the power cut at that moment, the log still holds every entry the state machine has not
/// applied, and the store opens (the purge is durable only as far as the applied index).
#[tokio::test]
async fn a_purge_ahead_of_the_state_machine_survives_a_power_cut() {
    let mem = MemFs::new();
    let dir = Path::new("/raft");
    let id = |i: u64| LogId::new(CommittedLeaderId::new(1, 0), i);
    let entries: Vec<Entry<TypeConfig>> = (1..=10)
        .map(|i| Entry {
            log_id: id(i),
            payload: EntryPayload::Normal(put(&format!("k{i}"), "v")),
        })
        .collect();
    let (mut log, mut sm) =
        cairn_raft::open_with_fs(mem.shared(), dir, Options::default()).expect("open");
    log.blocking_append(entries.clone()).await.expect("append");
    sm.apply(entries[..3].to_vec()).await.expect("apply");
    log.purge(id(8)).await.expect("purge");
    let cut = mem.crash_clone(CrashOptions::synced_only());
    drop((log, sm));
    let (mut log, mut sm) =
        cairn_raft::open_with_fs(cut.shared(), dir, Options::default()).expect("reopen");
    let (applied, _) = sm.applied_state().await.expect("applied");
    assert_eq!(
        applied,
        Some(id(3)),
        "the applies before the purge are durable"
    );
    let state = log.get_log_state().await.expect("log state");
    assert_eq!(state.last_purged_log_id, Some(id(3)));
    let kept = log.try_get_log_entries(4..).await.expect("entries");
    assert_eq!(kept.len(), 7, "entries 4..=10 are there to apply");
}
