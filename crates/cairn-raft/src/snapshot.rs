//! State-machine snapshots as CairnDB table files (crate contract 4).
//!
//! A snapshot is one table built with [`SstFileWriter`] from an iterator over a database
//! snapshot of the `raft_sm` family: a range deletion over every data key, the data keys, and
//! the `m` keys (applied log id, membership, and the snapshot's own meta under
//! `msnapshot`). The sending node ships the file's bytes; the receiving node writes them to
//! its snapshot directory and ingests the file into `raft_sm`. An ingested file's entries all
//! carry one sequence number: a new one above every write in the family when the file overlaps
//! data there (sequence 0 in an empty family, where there is nothing to cover). A range
//! deletion hides only entries with a lower sequence number, so it removes the old data but
//! none of the file's own keys: one MANIFEST edit replaces the state machine.
//!
//! Files live in `<dir>/snapshots/<hex of the snapshot id>.sst`. The `msnapshot` record names
//! the current one; [`remove_unrecorded`] deletes the others at open (a crash between writing
//! a file and recording it leaves one behind).

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use cairndb::fs::read_all;
use cairndb::options::{DbOptions, ReadOptions};
use cairndb::{IngestExternalFileOptions, SstFileWriter};
use openraft::storage::Snapshot;
use openraft::{BasicNode, SnapshotMeta};

use crate::error::corrupt;
use crate::state_machine::{
    get_json, to_json, Shared, APPLIED, CURRENT_SNAPSHOT, DATA_END, DATA_PREFIX, MEMBERSHIP,
};
use crate::{NodeId, TypeConfig};

type Meta = SnapshotMeta<NodeId, BasicNode>;

fn file_of(dir: &Path, snapshot_id: &str) -> PathBuf {
    let hex: String = snapshot_id.bytes().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{hex}.sst"))
}

fn recorded(s: &Shared) -> cairndb::Result<Option<Meta>> {
    get_json(&s.db, &s.cf, &ReadOptions::default(), CURRENT_SNAPSHOT)
}

/// Removes every file in the snapshot directory but the recorded snapshot's.
pub(crate) fn remove_unrecorded(s: &Shared) -> cairndb::Result<()> {
    let keep = recorded(s)?.map(|m| file_of(&s.dir, &m.snapshot_id));
    for name in s.fs.list(&s.dir)? {
        let path = s.dir.join(name);
        if Some(&path) != keep.as_ref() {
            s.fs.remove(&path)?;
        }
    }
    Ok(())
}

/// Builds a snapshot of the state machine as it is now, records it as the current one and
/// removes the previous one's file.
pub(crate) fn build(s: &Shared) -> cairndb::Result<Snapshot<TypeConfig>> {
    let _one_at_a_time = s.snapshot_lock.lock().unwrap_or_else(|p| p.into_inner());
    let view = s.db.snapshot()?;
    let opts = ReadOptions {
        snapshot: Some(view.sequence()),
        ..ReadOptions::default()
    };
    let applied: Option<openraft::LogId<NodeId>> =
        get_json(&s.db, &s.cf, &opts, APPLIED)?.flatten();
    let membership = get_json(&s.db, &s.cf, &opts, MEMBERSHIP)?.unwrap_or_default();
    let build = s.builds.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let snapshot_id = match &applied {
        Some(id) => format!("{}-{}-{nanos}-{build}", id.leader_id, id.index),
        None => format!("--{nanos}-{build}"),
    };
    let meta = Meta {
        last_log_id: applied,
        last_membership: membership,
        snapshot_id,
    };
    let path = file_of(&s.dir, &meta.snapshot_id);
    let mut writer =
        SstFileWriter::for_family(s.fs.clone(), &DbOptions::default(), &s.cf.options());
    writer.open(&path)?;
    let written = (|| {
        writer.delete_range(&[DATA_PREFIX], DATA_END)?;
        let data = ReadOptions {
            iterate_upper_bound: Some(DATA_END.to_vec()),
            ..opts.clone()
        };
        let mut it = s.db.iter_cf(&data, &s.cf)?;
        it.seek(&[DATA_PREFIX]);
        while it.valid() {
            writer.put(it.key(), it.value())?;
            it.next();
        }
        it.status()?;
        // The `m` keys in key order: applied, membership, snapshot.
        writer.put(APPLIED, &to_json(&meta.last_log_id)?)?;
        writer.put(MEMBERSHIP, &to_json(&meta.last_membership)?)?;
        writer.put(CURRENT_SNAPSHOT, &to_json(&meta)?)?;
        writer.finish()
    })();
    if let Err(e) = written {
        let _ = s.fs.remove(&path);
        return Err(e);
    }
    s.fs.sync_dir(&s.dir)?;
    record(s, &meta)?;
    let bytes = read_all(&*s.fs, &path)?;
    Ok(Snapshot {
        meta,
        snapshot: Box::new(Cursor::new(bytes)),
    })
}

/// Records `meta` as the current snapshot (synced) and removes the other files.
fn record(s: &Shared, meta: &Meta) -> cairndb::Result<()> {
    s.db.put_cf(&crate::synced(), &s.cf, CURRENT_SNAPSHOT, &to_json(meta)?)?;
    remove_unrecorded(s)
}

/// Replaces the state machine with the snapshot `bytes` (a table built by [`build`] on another
/// node) and makes it the current snapshot.
pub(crate) fn install(s: &Shared, meta: &Meta, bytes: Vec<u8>) -> cairndb::Result<()> {
    let _one_at_a_time = s.snapshot_lock.lock().unwrap_or_else(|p| p.into_inner());
    if recorded(s)?.is_some_and(|m| m.snapshot_id == meta.snapshot_id) {
        // Already the current snapshot here, so its state is too (openraft never sends a node
        // a snapshot older than what it applied); installing its file again would overwrite
        // the current snapshot's file.
        return Ok(());
    }
    let path = file_of(&s.dir, &meta.snapshot_id);
    let tmp = path.with_extension("incoming");
    let mut file = s.fs.create(&tmp)?;
    file.append(&bytes)?;
    file.sync()?;
    drop(file);
    s.fs.rename(&tmp, &path)?;
    s.fs.sync_dir(&s.dir)?;
    let opts = IngestExternalFileOptions {
        verify_checksums_before_ingest: true,
        ..IngestExternalFileOptions::default()
    };
    if let Err(e) = s.db.ingest_external_file_cf(&s.cf, &[&path], &opts) {
        let _ = s.fs.remove(&path);
        return Err(e);
    }
    // The file carried its own meta. A file that disagrees with the meta it came with is the
    // sender's fault: the state machine now holds the file's (consistent) state, and the file
    // is kept under the name its own record gives, so that the record names a file.
    let stored: Option<Meta> = recorded(s)?;
    if stored.as_ref() != Some(meta) {
        if let Some(own) = &stored {
            let named = file_of(&s.dir, &own.snapshot_id);
            s.fs.rename(&path, &named)?;
            s.fs.sync_dir(&s.dir)?;
        }
        remove_unrecorded(s)?;
        return Err(corrupt(
            "installed snapshot",
            format!("its file records {stored:?}, it was sent as {meta:?}"),
        ));
    }
    remove_unrecorded(s)
}

/// The recorded snapshot and its file's bytes.
pub(crate) fn current(s: &Shared) -> cairndb::Result<Option<Snapshot<TypeConfig>>> {
    let _one_at_a_time = s.snapshot_lock.lock().unwrap_or_else(|p| p.into_inner());
    let Some(meta) = recorded(s)? else {
        return Ok(None);
    };
    let path = file_of(&s.dir, &meta.snapshot_id);
    let bytes = read_all(&*s.fs, &path)?;
    Ok(Some(Snapshot {
        meta,
        snapshot: Box::new(Cursor::new(bytes)),
    }))
}
