//! The CairnDB-specific promises of the Raft storage, beyond openraft's suite: state survives a
//! reopen, a snapshot install replaces the state machine all at once, a damaged snapshot or log
//! record is an error that changes nothing, and stray snapshot files are removed at open.

use std::io::Cursor;
use std::path::Path;

use cairn_raft::{LogStore, Request, Response, StateMachine, TypeConfig};
use openraft::storage::{RaftLogStorage, RaftLogStorageExt, RaftStateMachine};
use openraft::{
    CommittedLeaderId, Entry, EntryPayload, LogId, Membership, RaftLogReader, RaftSnapshotBuilder,
    Vote,
};
use std::collections::BTreeSet;
use tempfile::TempDir;

fn log_id(term: u64, index: u64) -> LogId<u64> {
    LogId::new(CommittedLeaderId::new(term, 0), index)
}

fn put(term: u64, index: u64, key: &str, value: &str) -> Entry<TypeConfig> {
    Entry {
        log_id: log_id(term, index),
        payload: EntryPayload::Normal(Request::Put {
            key: key.into(),
            value: value.into(),
        }),
    }
}

fn delete(term: u64, index: u64, key: &str) -> Entry<TypeConfig> {
    Entry {
        log_id: log_id(term, index),
        payload: EntryPayload::Normal(Request::Delete { key: key.into() }),
    }
}

fn membership(term: u64, index: u64) -> Entry<TypeConfig> {
    let voters: BTreeSet<u64> = [1, 2, 3].into_iter().collect();
    Entry {
        log_id: log_id(term, index),
        payload: EntryPayload::Membership(Membership::new(vec![voters], None)),
    }
}

fn open(dir: &Path) -> (LogStore, StateMachine) {
    cairn_raft::open(dir, cairndb::options::Options::default()).expect("open")
}

fn snapshot_files(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("snapshots"))
        .expect("list")
        .count()
}

/// A `Batch` entry applies its writes first to last, as one entry: later writes of a key win,
/// one reply per write, the applied id is the entry's.
#[tokio::test]
async fn a_batch_entry_applies_its_writes_in_order() {
    let dir = TempDir::new().unwrap();
    let (_log, mut sm) = open(dir.path());
    let w = |k: &str, v: &str| Request::Put {
        key: k.into(),
        value: v.into(),
    };
    let batch = Entry {
        log_id: log_id(1, 2),
        payload: EntryPayload::Normal(Request::Batch {
            writes: vec![
                w("a", "1"),
                w("b", "2"),
                Request::Delete { key: "a".into() },
                w("b", "3"),
                w("c", "4"),
            ],
        }),
    };
    let replies = sm.apply(vec![membership(1, 1), batch]).await.unwrap();
    assert_eq!(replies.len(), 2, "one reply per entry");
    let values: Vec<Option<&str>> = replies[1]
        .batch
        .iter()
        .map(|r| r.value.as_deref())
        .collect();
    assert_eq!(
        values,
        vec![Some("1"), Some("2"), None, Some("3"), Some("4")],
        "one reply per write, in order"
    );
    assert_eq!(sm.get("a").unwrap(), None, "the delete came after the put");
    assert_eq!(
        sm.get("b").unwrap().as_deref(),
        Some("3"),
        "the later put won"
    );
    assert_eq!(sm.get("c").unwrap().as_deref(), Some("4"));
    let (applied, _) = sm.applied_state().await.unwrap();
    assert_eq!(applied, Some(log_id(1, 2)));
}

#[tokio::test]
async fn log_vote_and_state_machine_survive_a_reopen() {
    let dir = TempDir::new().unwrap();
    {
        let (mut log, mut sm) = open(dir.path());
        let entries = vec![
            membership(1, 1),
            put(1, 2, "a", "1"),
            put(1, 3, "b", "2"),
            delete(1, 4, "a"),
            put(2, 5, "c", "3"),
        ];
        log.blocking_append(entries.clone()).await.unwrap();
        log.save_vote(&Vote::new(2, 7)).await.unwrap();
        log.save_committed(Some(log_id(2, 5))).await.unwrap();
        let replies = sm.apply(entries).await.unwrap();
        assert_eq!(replies.len(), 5, "one reply per entry");
        assert_eq!(
            replies[1],
            Response {
                value: Some("1".into()),
                batch: Vec::new(),
            }
        );
        // A clean close follows: the reopen checks what was written (crashes are the raft suite's).
        log.purge(log_id(1, 2)).await.unwrap();
    }
    let (mut log, mut sm) = open(dir.path());
    let state = log.get_log_state().await.unwrap();
    assert_eq!(state.last_purged_log_id, Some(log_id(1, 2)));
    assert_eq!(state.last_log_id, Some(log_id(2, 5)));
    assert_eq!(log.read_vote().await.unwrap(), Some(Vote::new(2, 7)));
    assert_eq!(log.read_committed().await.unwrap(), Some(log_id(2, 5)));
    let left = log.try_get_log_entries(0..).await.unwrap();
    let ids: Vec<u64> = left.iter().map(|e| e.log_id.index).collect();
    assert_eq!(
        ids,
        vec![3, 4, 5],
        "purged entries are gone, later ones kept"
    );
    let (applied, members) = sm.applied_state().await.unwrap();
    assert_eq!(applied, Some(log_id(2, 5)));
    assert_eq!(members.log_id(), &Some(log_id(1, 1)));
    assert_eq!(sm.get("a").unwrap(), None);
    assert_eq!(sm.get("b").unwrap().as_deref(), Some("2"));
    assert_eq!(
        sm.scan("", None, 10).unwrap(),
        vec![
            ("b".to_string(), "2".to_string()),
            ("c".to_string(), "3".to_string())
        ]
    );
    // Truncation removes the tail and keeps the purge record.
    log.truncate(log_id(1, 4)).await.unwrap();
    let state = log.get_log_state().await.unwrap();
    assert_eq!(state.last_log_id, Some(log_id(1, 3)));
    assert_eq!(state.last_purged_log_id, Some(log_id(1, 2)));
}

/// Node A: state {a=1, b=2}, applied up to (1,3), membership at (1,1).
async fn node_a(dir: &Path) -> StateMachine {
    let (_, mut sm) = open(dir);
    sm.apply(vec![
        membership(1, 1),
        put(1, 2, "a", "1"),
        put(1, 3, "b", "2"),
    ])
    .await
    .unwrap();
    sm
}

/// Node B: state {b=old, c=3}, applied up to (1,2).
async fn node_b(dir: &Path) -> StateMachine {
    let (_, mut sm) = open(dir);
    sm.apply(vec![put(1, 1, "b", "old"), put(1, 2, "c", "3")])
        .await
        .unwrap();
    sm
}

#[tokio::test]
async fn installing_a_snapshot_replaces_the_whole_state_machine() {
    let (da, db) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let (mut sm_a, mut sm_b) = (node_a(da.path()).await, node_b(db.path()).await);
    let snap = sm_a
        .get_snapshot_builder()
        .await
        .build_snapshot()
        .await
        .unwrap();
    assert_eq!(snap.meta.last_log_id, Some(log_id(1, 3)));
    // Writes after the build are not in the snapshot.
    sm_a.apply(vec![put(1, 4, "z", "late")]).await.unwrap();

    let mut incoming = sm_b.begin_receiving_snapshot().await.unwrap();
    *incoming = Cursor::new(snap.snapshot.into_inner());
    sm_b.install_snapshot(&snap.meta, incoming).await.unwrap();
    let check = |sm: &StateMachine| {
        assert_eq!(sm.get("a").unwrap().as_deref(), Some("1"));
        assert_eq!(
            sm.get("b").unwrap().as_deref(),
            Some("2"),
            "the snapshot's value wins"
        );
        assert_eq!(
            sm.get("c").unwrap(),
            None,
            "keys the snapshot lacks are removed"
        );
        assert_eq!(
            sm.get("z").unwrap(),
            None,
            "the snapshot was taken before z"
        );
    };
    check(&sm_b);
    let (applied, members) = sm_b.applied_state().await.unwrap();
    assert_eq!(applied, Some(log_id(1, 3)));
    assert_eq!(members.log_id(), &Some(log_id(1, 1)));
    let current = sm_b.get_current_snapshot().await.unwrap().expect("current");
    assert_eq!(current.meta, snap.meta);
    drop(sm_b);

    let (_, mut sm_b) = open(db.path());
    check(&sm_b);
    assert_eq!(sm_b.applied_state().await.unwrap().0, Some(log_id(1, 3)));
    assert_eq!(
        sm_b.get_current_snapshot()
            .await
            .unwrap()
            .expect("current")
            .meta,
        snap.meta
    );
    assert_eq!(snapshot_files(db.path()), 1);
}

#[tokio::test]
async fn a_damaged_snapshot_is_refused_and_changes_nothing() {
    let da = TempDir::new().unwrap();
    let mut sm_a = node_a(da.path()).await;
    let snap = sm_a
        .get_snapshot_builder()
        .await
        .build_snapshot()
        .await
        .unwrap();
    let good = snap.snapshot.into_inner();
    // A cut transfer, and one flipped bit at 32 places spread over the file.
    let mut damaged = vec![good[..good.len() / 2].to_vec()];
    for i in 0..32 {
        let mut flipped = good.clone();
        flipped[i * good.len() / 32] ^= 0x10;
        damaged.push(flipped);
    }
    let mut refused = 0;
    for bytes in damaged {
        let db = TempDir::new().unwrap();
        let mut sm_b = node_b(db.path()).await;
        match sm_b
            .install_snapshot(&snap.meta, Box::new(Cursor::new(bytes)))
            .await
        {
            Err(_) => {
                refused += 1;
                assert_eq!(sm_b.get("b").unwrap().as_deref(), Some("old"));
                assert_eq!(sm_b.get("c").unwrap().as_deref(), Some("3"));
                assert_eq!(sm_b.applied_state().await.unwrap().0, Some(log_id(1, 2)));
                assert!(sm_b.get_current_snapshot().await.unwrap().is_none());
                assert_eq!(snapshot_files(db.path()), 0, "the refused file is not kept");
            }
            // A flip in bytes no reader uses (padding) may go unnoticed; then the state must
            // be exactly the snapshot's, never a mix or wrong data.
            Ok(()) => {
                assert_eq!(sm_b.get("a").unwrap().as_deref(), Some("1"));
                assert_eq!(sm_b.get("b").unwrap().as_deref(), Some("2"));
                assert_eq!(sm_b.get("c").unwrap(), None);
                assert_eq!(sm_b.applied_state().await.unwrap().0, Some(log_id(1, 3)));
            }
        }
    }
    assert!(
        refused >= 30,
        "only {refused} of 33 damaged snapshots were refused"
    );
}

#[tokio::test]
async fn a_damaged_log_record_is_an_error_not_an_entry() {
    let dir = TempDir::new().unwrap();
    let (mut log, _sm) = open(dir.path());
    log.blocking_append(vec![put(1, 1, "a", "1"), put(1, 2, "b", "2")])
        .await
        .unwrap();
    let db = log.db().clone();
    let cf = db.column_family("raft_log").unwrap();
    let w = cairndb::options::WriteOptions::default();
    db.put_cf(&w, &cf, &2u64.to_be_bytes(), b"{not json")
        .unwrap();
    assert!(log.try_get_log_entries(1..3).await.is_err());
    // An entry stored under another index is damage too.
    let moved = serde_json::to_vec(&put(1, 7, "x", "y")).unwrap();
    db.put_cf(&w, &cf, &2u64.to_be_bytes(), &moved).unwrap();
    assert!(log.try_get_log_entries(2..3).await.is_err());
    assert!(log.get_log_state().await.is_err());
    // Reads of the intact range still work.
    assert_eq!(log.try_get_log_entries(1..2).await.unwrap().len(), 1);
}

#[tokio::test]
async fn snapshot_files_no_record_names_are_removed_at_open() {
    let dir = TempDir::new().unwrap();
    {
        let (_log, mut sm) = open(dir.path());
        sm.apply(vec![put(1, 1, "a", "1")]).await.unwrap();
        sm.get_snapshot_builder()
            .await
            .build_snapshot()
            .await
            .unwrap();
        sm.apply(vec![put(1, 2, "b", "2")]).await.unwrap();
        let second = sm
            .get_snapshot_builder()
            .await
            .build_snapshot()
            .await
            .unwrap();
        assert_eq!(
            snapshot_files(dir.path()),
            1,
            "a new snapshot replaces the old file"
        );
        assert_eq!(second.meta.last_log_id, Some(log_id(1, 2)));
    }
    // A crash while building or receiving leaves files behind.
    std::fs::write(dir.path().join("snapshots/stray.sst"), b"partial").unwrap();
    std::fs::write(dir.path().join("snapshots/x.incoming"), b"partial").unwrap();
    let (_log, mut sm) = open(dir.path());
    assert_eq!(snapshot_files(dir.path()), 1);
    let current = sm.get_current_snapshot().await.unwrap().expect("current");
    assert_eq!(current.meta.last_log_id, Some(log_id(1, 2)));
}

#[test]
fn the_salvage_recovery_mode_is_refused() {
    let dir = TempDir::new().unwrap();
    let mut options = cairndb::options::Options::default();
    options.db.wal_recovery_mode = cairndb::options::WalRecoveryMode::SkipAnyCorruptedRecords;
    let err = cairn_raft::open(dir.path(), options).expect_err("refused");
    assert!(
        format!("{err}").contains("kSkipAnyCorruptedRecords"),
        "{err}"
    );
}

/// A purge past what the state machine has applied (openraft issues one with every received
/// snapshot, before the install is done) is openraft's at once but durable only up to the
/// applied index: after a crash at that moment the log still holds every entry the state
/// machine needs. Once the state machine catches up, the rest of the purge becomes durable.
#[tokio::test]
async fn a_purge_is_never_durable_past_the_applied_index() {
    let dir = TempDir::new().unwrap();
    let entries: Vec<_> = (1..=10).map(|i| put(1, i, &format!("k{i}"), "v")).collect();
    {
        let (mut log, mut sm) = open(dir.path());
        log.blocking_append(entries.clone()).await.unwrap();
        sm.apply(entries[..3].to_vec()).await.unwrap();
        log.purge(log_id(1, 8)).await.unwrap();
        let state = log.get_log_state().await.unwrap();
        assert_eq!(state.last_purged_log_id, Some(log_id(1, 8)));
        assert_eq!(state.last_log_id, Some(log_id(1, 10)));
        let seen: Vec<u64> = log
            .try_get_log_entries(0..)
            .await
            .unwrap()
            .iter()
            .map(|e| e.log_id.index)
            .collect();
        assert_eq!(seen, vec![9, 10], "openraft no longer sees purged entries");
        // Closed here as if the power went: the purge past index 3 was never made durable.
    }
    let (mut log, mut sm) = open(dir.path());
    let state = log.get_log_state().await.unwrap();
    assert_eq!(
        state.last_purged_log_id,
        Some(log_id(1, 3)),
        "durable only up to the applied index"
    );
    let kept = log.try_get_log_entries(4..).await.unwrap();
    assert_eq!(kept.len(), 7, "entries 4..=10 are there to re-apply");
    // Once the state machine has caught up, a purge is durable at once.
    sm.apply(entries[3..].to_vec()).await.unwrap();
    log.purge(log_id(1, 8)).await.unwrap();
    drop((log, sm));
    let (mut log, _sm) = open(dir.path());
    assert_eq!(
        log.get_log_state().await.unwrap().last_purged_log_id,
        Some(log_id(1, 8))
    );
}

/// Opening the store in `dir` fails with a Corruption error.
fn assert_refused_as_corrupt(dir: &Path) {
    let err = cairn_raft::open(dir, cairndb::options::Options::default()).expect_err("refused");
    assert!(
        matches!(err, cairndb::Error::Corruption(_)),
        "a corruption error, got {err}"
    );
}

/// A store whose durable purge is past its applied index (written by a version that purged at
/// once) cannot be started by openraft; open says why instead.
#[tokio::test]
async fn open_refuses_a_log_purged_past_the_state_machine() {
    let dir = TempDir::new().unwrap();
    {
        let (log, _sm) = open(dir.path());
        let meta = log.db().column_family("raft_meta").unwrap();
        let record = serde_json::to_vec(&log_id(1, 5)).unwrap();
        log.db()
            .put_cf(&Default::default(), &meta, b"last_purged", &record)
            .unwrap();
    }
    assert_refused_as_corrupt(dir.path());
}

/// A log with a gap after its purge point (left when an install was cut short while a new
/// leader's later entries were written) would be applied across the gap by openraft; open
/// refuses it.
#[tokio::test]
async fn open_refuses_a_log_with_a_gap() {
    let dir = TempDir::new().unwrap();
    {
        let (mut log, mut sm) = open(dir.path());
        let first: Vec<_> = (1..=5).map(|i| put(1, i, &format!("k{i}"), "v")).collect();
        log.blocking_append(first.clone()).await.unwrap();
        sm.apply(first).await.unwrap();
        log.purge(log_id(1, 5)).await.unwrap();
        log.blocking_append(vec![put(2, 9, "k9", "v"), put(2, 10, "k10", "v")])
            .await
            .unwrap();
    }
    assert_refused_as_corrupt(dir.path());
}
