//! `VersionBuilder`: applies a sequence of version edits to a base [`Version`] of one column
//! family and produces the next version.
//!
//! Who calls it: the version set, under its lock, both when replaying a MANIFEST (one builder
//! per column family for the whole replay, so a long MANIFEST costs one version build, not one
//! per edit) and in `log_and_apply` (one builder per touched family, before anything is
//! written). It owns only the pending changes; the base version is shared and never modified.
//!
//! Invariants:
//! 1. Within one edit, deletions apply before additions, so an edit that deletes file N from
//!    level 1 and adds it to level 2 (a trivial move) is valid.
//! 2. Deleting a file that is not at that level (in the base minus earlier deletions, or among
//!    earlier additions), or adding a file number that is already present anywhere, is
//!    [`Error::Corruption`]: the edits contradict the file set, so the MANIFEST (or the caller) is
//!    inconsistent, and guessing would resurrect or lose data.
//! 3. A level outside `0..num_levels` is [`Error::InvalidArgument`]: the options configure fewer
//!    levels than the database uses (RocksDB refuses to open such a database too).
//! 4. Round-robin compaction cursors: a cursor set by an edit replaces the level's cursor; the
//!    others are carried from the base. A cursor for a level beyond `num_levels` is dropped (as
//!    RocksDB does when a database is reopened with fewer levels): it is advisory, and such a
//!    level holds no file.
//! 5. A failed `apply` leaves the builder unusable for further edits in spirit: callers discard it
//!    (recovery fails, `log_and_apply` writes nothing).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use super::edit::{FileMetaData, VersionEdit};
use super::version::{l0_order, sorted_level_order, Version};
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};

/// Accumulates edits over a base version. See the module contract.
#[derive(Debug)]
pub struct VersionBuilder {
    base: Arc<Version>,
    /// Files of the base deleted so far.
    deleted: HashSet<u64>,
    /// Files added so far (and not deleted again): number -> (level, file).
    added: HashMap<u64, (usize, Arc<FileMetaData>)>,
    /// Compaction cursors set so far: level -> internal key.
    cursors: BTreeMap<usize, Vec<u8>>,
}

fn inconsistent(why: String) -> Error {
    Error::corruption("", 0, format!("inconsistent version edit: {why}"))
}

impl VersionBuilder {
    /// A builder starting from `base`.
    pub fn new(base: Arc<Version>) -> VersionBuilder {
        VersionBuilder {
            base,
            deleted: HashSet::new(),
            added: HashMap::new(),
            cursors: BTreeMap::new(),
        }
    }

    /// The level file `number` is at after the edits applied so far.
    pub fn level_of(&self, number: u64) -> Option<usize> {
        if let Some((level, _)) = self.added.get(&number) {
            return Some(*level);
        }
        if self.deleted.contains(&number) {
            return None;
        }
        self.base.level_of(number)
    }

    /// Applies the file changes of `edit` (its other fields are the version set's business).
    ///
    /// # Errors
    /// [`Error::Corruption`] (without file name; the caller adds where the edit came from) for an
    /// edit that contradicts the file set (invariant 2); [`Error::InvalidArgument`] for a level
    /// beyond `num_levels` (invariant 3).
    pub fn apply(&mut self, edit: &VersionEdit) -> Result<()> {
        for d in &edit.deleted_files {
            self.delete(usize::from(d.level), d.number)?;
        }
        for f in &edit.new_files {
            self.add(usize::from(f.level), &f.meta)?;
        }
        for c in &edit.compact_cursors {
            let level = usize::from(c.level);
            if level < self.base.num_levels() && self.base.compact_cursor(level) != Some(&c.key) {
                self.cursors.insert(level, c.key.clone());
            } else {
                // Unchanged, or beyond the configured levels (invariant 4).
                self.cursors.remove(&level);
            }
        }
        Ok(())
    }

    fn delete(&mut self, level: usize, number: u64) -> Result<()> {
        if self.level_of(number) != Some(level) {
            return Err(inconsistent(format!(
                "cannot delete file {number} from level {level}: it is not there"
            )));
        }
        if self.added.remove(&number).is_none() {
            self.deleted.insert(number);
        }
        Ok(())
    }

    fn add(&mut self, level: usize, meta: &FileMetaData) -> Result<()> {
        let number = meta.number;
        if level >= self.base.num_levels() {
            return Err(Error::InvalidArgument(format!(
                "file {number} is at level {level}, but num_levels is {}",
                self.base.num_levels()
            )));
        }
        if let Some(at) = self.level_of(number) {
            return Err(inconsistent(format!(
                "cannot add file {number} to level {level}: it is already in level {at}"
            )));
        }
        self.added.insert(number, (level, Arc::new(meta.clone())));
        Ok(())
    }

    /// The version the edits apply to.
    pub fn base(&self) -> &Arc<Version> {
        &self.base
    }

    /// True when no edit changed any file or compaction cursor.
    pub fn is_unchanged(&self) -> bool {
        self.deleted.is_empty() && self.added.is_empty() && self.cursors.is_empty()
    }

    /// The version after every applied edit. Unchanged levels share their files with the base.
    ///
    /// # Errors
    /// [`Error::Corruption`] if the result breaks a version invariant, e.g. two files of a level
    /// >= 1 overlap: the edits describe an impossible LSM tree.
    pub fn build(&self) -> Result<Version> {
        let mut levels: Vec<Vec<Arc<FileMetaData>>> = (0..self.base.num_levels())
            .map(|l| self.base.files(l).to_vec())
            .collect();
        let mut touched = vec![false; levels.len()];
        if !self.deleted.is_empty() {
            for (level, files) in levels.iter_mut().enumerate() {
                let before = files.len();
                files.retain(|f| !self.deleted.contains(&f.number));
                touched[level] |= files.len() != before;
            }
        }
        for (level, file) in self.added.values() {
            levels[*level].push(Arc::clone(file));
            touched[*level] = true;
        }
        for (level, files) in levels.iter_mut().enumerate() {
            if touched[level] {
                sort_level(self.base.order(), level, files);
            }
        }
        let mut cursors = self.base.compact_cursors().to_vec();
        for (&level, key) in &self.cursors {
            cursors[level] = Some(key.clone());
        }
        Ok(Version::new(levels, self.base.order().clone())?.with_compact_cursors(cursors))
    }
}

fn sort_level(order: &KeyOrder, level: usize, files: &mut [Arc<FileMetaData>]) {
    if level == 0 {
        files.sort_by(|a, b| l0_order(a, b));
    } else {
        files.sort_by(|a, b| sorted_level_order(order, a, b));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::test_util::file_meta;
    use crate::types::{make_internal_key, ValueKind};
    use crate::version::version::DEFAULT_NUM_LEVELS;

    /// File `number` covers keys `[number*10, number*10+5]`, so no two files ever overlap and
    /// any placement is a valid version.
    fn meta(number: u64) -> FileMetaData {
        let key = |k: u64| format!("{k:08}").into_bytes();
        let (lo, hi) = (key(number * 10), key(number * 10 + 5));
        file_meta(number, &lo, &hi, number + 1, (number, number))
    }

    fn empty_base() -> Arc<Version> {
        Arc::new(Version::empty(DEFAULT_NUM_LEVELS, KeyOrder::BYTEWISE))
    }

    #[test]
    fn trivial_move_within_one_edit() {
        let mut b = VersionBuilder::new(empty_base());
        let mut e = VersionEdit::default();
        e.add_file(1, meta(3));
        b.apply(&e).expect("add");
        let v1 = Arc::new(b.build().expect("build"));
        let mut b = VersionBuilder::new(Arc::clone(&v1));
        let mut mv = VersionEdit::default();
        mv.delete_file(1, 3);
        mv.add_file(2, meta(3));
        b.apply(&mv).expect("move");
        let v2 = b.build().expect("build");
        v2.assert_invariants();
        assert_eq!(v2.level_of(3), Some(2));
        assert_eq!(v1.level_of(3), Some(1), "the base is never modified");
    }

    #[test]
    fn inconsistent_edits_are_corruption() {
        let mut e = VersionEdit::default();
        e.add_file(1, meta(3));
        let mut b = VersionBuilder::new(empty_base());
        b.apply(&e).expect("add");
        let base = Arc::new(b.build().expect("build"));

        let cases: Vec<(&str, VersionEdit)> = vec![
            ("delete missing", {
                let mut e = VersionEdit::default();
                e.delete_file(0, 9);
                e
            }),
            ("delete from wrong level", {
                let mut e = VersionEdit::default();
                e.delete_file(2, 3);
                e
            }),
            ("add twice", {
                let mut e = VersionEdit::default();
                e.add_file(4, meta(3));
                e
            }),
            ("delete twice", {
                let mut e = VersionEdit::default();
                e.delete_file(1, 3);
                e.delete_file(1, 3);
                e
            }),
        ];
        for (name, edit) in cases {
            let mut b = VersionBuilder::new(Arc::clone(&base));
            let err = b.apply(&edit).expect_err(name);
            assert!(err.is_corruption(), "{name}: {err}");
        }
    }

    #[test]
    fn level_beyond_num_levels_is_invalid_argument() {
        let mut e = VersionEdit::default();
        e.add_file(7, meta(5));
        let mut b = VersionBuilder::new(empty_base());
        assert!(matches!(b.apply(&e), Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn overlapping_files_in_a_sorted_level_are_corruption() {
        let mut a = meta(1);
        a.largest = make_internal_key(b"zzzzzzzz", 1, ValueKind::Put);
        let mut e = VersionEdit::default();
        e.add_file(1, a);
        e.add_file(1, meta(2));
        let mut b = VersionBuilder::new(empty_base());
        b.apply(&e).expect("apply checks membership only");
        assert!(b.build().unwrap_err().is_corruption());
    }

    #[derive(Debug, Clone)]
    enum Op {
        Add(u8, u64),
        Delete(usize),
        Move(usize, u8),
        Rebuild,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u8..7, 1u64..40).prop_map(|(l, n)| Op::Add(l, n)),
            2 => (0usize..64).prop_map(Op::Delete),
            1 => (0usize..64, 1u8..7).prop_map(|(i, l)| Op::Move(i, l)),
            1 => Just(Op::Rebuild),
        ]
    }

    /// Applies ops through builders and to a `BTreeMap` model (number -> level); valid edits must
    /// agree with the model, invalid ones must be refused.
    fn run_model(ops: &[Op]) {
        let mut model: BTreeMap<u64, usize> = BTreeMap::new();
        let mut version = empty_base();
        let mut b = VersionBuilder::new(Arc::clone(&version));
        for op in ops {
            let mut e = VersionEdit::default();
            let valid = match *op {
                Op::Add(l, n) => {
                    e.add_file(l, meta(n));
                    !model.contains_key(&n)
                }
                Op::Delete(i) | Op::Move(i, _) if model.is_empty() => {
                    e.delete_file(0, 1000 + i as u64);
                    false
                }
                Op::Delete(i) => {
                    let (&n, &l) = model.iter().nth(i % model.len()).expect("nonempty");
                    e.delete_file(l as u8, n);
                    true
                }
                Op::Move(i, to) => {
                    let (&n, &l) = model.iter().nth(i % model.len()).expect("nonempty");
                    e.delete_file(l as u8, n);
                    e.add_file(to, meta(n));
                    true
                }
                Op::Rebuild => {
                    version = Arc::new(b.build().expect("build"));
                    b = VersionBuilder::new(Arc::clone(&version));
                    continue;
                }
            };
            match b.apply(&e) {
                Ok(()) => {
                    assert!(valid, "invalid edit accepted: {op:?}");
                    for d in &e.deleted_files {
                        model.remove(&d.number);
                    }
                    for f in &e.new_files {
                        model.insert(f.meta.number, usize::from(f.level));
                    }
                }
                Err(err) => {
                    assert!(!valid && err.is_corruption(), "{op:?}: {err}");
                    // A refused edit may be half applied; start again from the last version.
                    b = VersionBuilder::new(Arc::clone(&version));
                    model = version.all_files().map(|(l, f)| (f.number, l)).collect();
                }
            }
        }
        let v = b.build().expect("build");
        v.assert_invariants();
        let got: BTreeMap<u64, usize> = v.all_files().map(|(l, f)| (f.number, l)).collect();
        assert_eq!(got, model);
    }

    proptest! {
        #[test]
        fn builder_matches_a_model(ops in prop::collection::vec(op(), 0..80)) {
            run_model(&ops);
        }
    }
}
