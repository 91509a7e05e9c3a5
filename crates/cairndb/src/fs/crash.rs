//! Power-cut simulation: the state a machine would find on its disk after losing power.
//!
//! The in-memory file system already records what is durable (synced bytes of every file, entries
//! of every directory as of its last `sync_dir`), so the crash-simulating file system is [`MemFs`]
//! itself; this module adds [`CrashFs::crash_clone`]. To crash at a precise point, wrap it in a
//! [`FaultFs`](super::FaultFs) with a sticky rule at the k-th mutating operation: every operation
//! after that fails as if the process had died, then take the crash clone.
//!
//! What a crash clone keeps:
//! 1. A directory's entries as of its last `sync_dir`; directories never synced keep no entries
//!    (the directories themselves survive: the engine creates its directory once, before any file).
//! 2. Of each surviving file, the bytes up to its last sync; for a file being overwritten from
//!    its start (a recycled WAL), followed by the old durable bytes past them.
//! 3. Optionally, for each file, a random prefix of its unsynced bytes, possibly with a torn tail of
//!    random garbage; and for each directory entry changed since the last `sync_dir`, a random choice
//!    between the old and the new state. Real disks and file systems do all of these.

use std::collections::BTreeMap;

use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

use super::mem::{Inode, MemState};
use super::MemFs;

/// The crash-simulating file system: a [`MemFs`], whose durability records
/// [`crash_clone`](MemFs::crash_clone) turns into the state after a power cut.
pub type CrashFs = MemFs;

/// What a crash clone keeps beyond the synced state.
#[derive(Debug, Clone, Copy, Default)]
pub struct CrashOptions {
    /// Seed of the random choices; the same seed on the same state gives the same clone.
    pub seed: u64,
    /// Probability that a file keeps a random prefix of its unsynced bytes.
    pub unsynced_data_probability: f64,
    /// Probability that the kept unsynced prefix ends in up to 64 bytes of garbage (a torn write).
    pub torn_tail_probability: f64,
    /// Probability that a directory entry changed since the last `sync_dir` shows its new state.
    pub unsynced_entry_probability: f64,
}

impl CrashOptions {
    /// Only what was synced survives.
    pub fn synced_only() -> Self {
        CrashOptions::default()
    }

    /// Random parts of unsynced data and entries survive too, with torn tails.
    pub fn random(seed: u64) -> Self {
        CrashOptions {
            seed,
            unsynced_data_probability: 0.5,
            torn_tail_probability: 0.3,
            unsynced_entry_probability: 0.5,
        }
    }
}

impl MemFs {
    /// The file system a process crash at this instant would leave: every byte handed to the
    /// file system and every directory entry survives (the operating system keeps them), as a
    /// new, independent [`MemFs`] whose state is all durable. This file system is not changed.
    pub fn process_crash_clone(&self) -> MemFs {
        let s = self.state.lock();
        let inodes = s
            .inodes
            .iter()
            .map(|(id, inode)| {
                let data = inode.data.clone();
                let synced_len = data.len();
                let inode = Inode {
                    data,
                    synced_len,
                    overwrite: None,
                };
                (*id, inode)
            })
            .collect();
        MemFs::from_state(MemState {
            inodes,
            next_inode: s.next_inode,
            durable_dirs: s.dirs.clone(),
            dirs: s.dirs.clone(),
            locks: Default::default(),
        })
    }

    /// The file system a power cut at this instant would leave, as a new, independent [`MemFs`]
    /// whose state is all durable. This file system is not changed.
    pub fn crash_clone(&self, opts: CrashOptions) -> MemFs {
        let s = self.state.lock();
        let mut rng = SmallRng::seed_from_u64(opts.seed);
        let mut dirs = BTreeMap::new();
        for (path, live) in &s.dirs {
            let mut entries = s.durable_dirs.get(path).cloned().unwrap_or_default();
            if opts.unsynced_entry_probability > 0.0 {
                let names: Vec<&String> = live.keys().chain(entries.keys()).collect();
                let mut changes = Vec::new();
                for name in names {
                    if live.get(name) != entries.get(name)
                        && rng.gen_bool(opts.unsynced_entry_probability)
                    {
                        changes.push((name.clone(), live.get(name).copied()));
                    }
                }
                for (name, now) in changes {
                    match now {
                        Some(id) => entries.insert(name, id),
                        None => entries.remove(&name),
                    };
                }
            }
            dirs.insert(path.clone(), entries);
        }
        let mut inodes = std::collections::HashMap::new();
        for id in dirs.values().flat_map(|d| d.values()) {
            if inodes.contains_key(id) {
                continue;
            }
            let Some(old) = s.inodes.get(id) else {
                continue;
            };
            let synced = old.synced_len.min(old.data.len());
            let mut data = old.data[..synced].to_vec();
            // An overwrite's unsynced bytes end where it stopped writing; past them the file
            // holds its old bytes, and the durable ones are what a cut shows.
            let written = old.overwrite.as_ref().map_or(old.data.len(), |o| o.written);
            let unsynced = &old.data[synced..written.max(synced)];
            if !unsynced.is_empty()
                && opts.unsynced_data_probability > 0.0
                && rng.gen_bool(opts.unsynced_data_probability)
            {
                let keep = rng.gen_range(0..=unsynced.len());
                data.extend_from_slice(&unsynced[..keep]);
                if keep > 0
                    && opts.torn_tail_probability > 0.0
                    && rng.gen_bool(opts.torn_tail_probability)
                {
                    let garbage = rng.gen_range(1..=keep.min(64));
                    let n = data.len();
                    rng.fill_bytes(&mut data[n - garbage..]);
                }
            }
            if let Some(o) = &old.overwrite {
                let n = data.len();
                data.extend_from_slice(o.stale.get(n..).unwrap_or_default());
            }
            let synced_len = data.len();
            let inode = Inode {
                data,
                synced_len,
                overwrite: None,
            };
            inodes.insert(*id, inode);
        }
        let state = MemState {
            inodes,
            next_inode: s.next_inode,
            durable_dirs: dirs.clone(),
            dirs,
            locks: Default::default(),
        };
        MemFs::from_state(state)
    }
}
