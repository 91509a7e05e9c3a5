//! LSM invariants checked after every version change the running engine makes (flush,
//! compaction, trivial move, FIFO drop), in the crate's unit tests and in builds with the
//! `invariants` feature (CI runs every test once with it): the version set calls
//! [`assert_lsm_invariants`] on each new version before it installs it. A violation is a bug in
//! a picker, a job or the install, and panics there, next to its cause, instead of turning into
//! a wrong answer later. Other builds do not check.
//!
//! Recovery does not go through this check: a damaged MANIFEST must give a Corruption error
//! (`Version::new` checks what reads depend on), never a panic.
//!
//! What is checked, and why each is a true invariant:
//! 1. Everything `Version::check_invariants` checks: L0 newest first; in L1+ files sorted by key
//!    with disjoint user-key ranges; no file twice; each level's byte total equals the sum of its
//!    files' sizes; the location index matches.
//! 2. Per file: `smallest_seqno <= largest_seqno`.
//! 3. L0, for each adjacent pair (newer `a`, older `b`): `a.smallest_seqno > b.largest_seqno`.
//!    Flushes write memtables in sequence order, and L0 → L0 compactions (intra-L0, universal)
//!    merge a contiguous run of L0 files, so L0 files hold disjoint, ordered sequence ranges
//!    (RocksDB's `CheckConsistency` rule for L0). Files whose smallest sequence number is 0
//!    are exempt (sequence zeroing makes the range start at 0).
//!
//! Not checked, because it is not an invariant: that a shallower file's sequence numbers are all
//! above a deeper overlapping file's. Only versions of the same user key are ordered by level
//! (a newer version is never below an older one); files hold many keys, and a shallow file may
//! hold an old version of one key while a deeper file holds a newer version of another key in
//! the same range. Checking the per-key rule needs the files' contents.

use crate::version::Version;

/// Checks the invariants of the module contract.
///
/// # Errors
/// A description of the first broken invariant.
pub fn check_lsm_invariants(version: &Version) -> Result<(), String> {
    version.check_invariants()?;
    for (level, f) in version.all_files() {
        if f.smallest_seqno > f.largest_seqno {
            return Err(format!(
                "level {level}: file {} has smallest_seqno {} > largest_seqno {}",
                f.number, f.smallest_seqno, f.largest_seqno
            ));
        }
    }
    for pair in version.files(0).windows(2) {
        let (newer, older) = (&pair[0], &pair[1]);
        if newer.smallest_seqno != 0 && newer.smallest_seqno <= older.largest_seqno {
            return Err(format!(
                "L0 file {} (sequence {}..={}) is not newer than the next file {} ({}..={})",
                newer.number,
                newer.smallest_seqno,
                newer.largest_seqno,
                older.number,
                older.smallest_seqno,
                older.largest_seqno
            ));
        }
    }
    Ok(())
}

/// Panics when [`check_lsm_invariants`] fails. For unit tests and `invariants` builds.
///
/// # Panics
/// On a broken invariant.
pub fn assert_lsm_invariants(version: &Version) {
    if let Err(why) = check_lsm_invariants(version) {
        panic!("LSM invariant broken after a version change: {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comparator::KeyOrder;
    use crate::test_util::file_meta;
    use crate::version::FileMetaData;
    use std::sync::Arc;

    fn file(number: u64, lo: &str, hi: &str, seqs: (u64, u64)) -> Arc<FileMetaData> {
        Arc::new(file_meta(number, lo.as_bytes(), hi.as_bytes(), 100, seqs))
    }

    #[test]
    fn ordered_l0_sequence_ranges_pass() {
        let v = Version::new(
            vec![
                vec![file(3, "a", "z", (21, 30)), file(2, "a", "z", (11, 20))],
                vec![file(1, "a", "m", (1, 50))],
            ],
            KeyOrder::BYTEWISE,
        )
        .expect("valid");
        check_lsm_invariants(&v).expect("invariants hold");
    }

    #[test]
    fn interleaved_l0_sequence_ranges_are_caught() {
        let v = Version::new(
            vec![
                vec![file(3, "a", "z", (15, 30)), file(2, "a", "z", (11, 20))],
                vec![],
            ],
            KeyOrder::BYTEWISE,
        )
        .expect("Version::new accepts it; the debug check does not");
        let err = check_lsm_invariants(&v).expect_err("caught");
        assert!(err.contains("not newer"), "{err}");
    }

    #[test]
    fn a_deeper_file_with_newer_sequence_numbers_is_allowed() {
        // Not an invariant: different keys of one range may be at different ages.
        let v = Version::new(
            vec![
                vec![],
                vec![file(1, "a", "c", (1, 5))],
                vec![file(2, "b", "b", (9, 9))],
            ],
            KeyOrder::BYTEWISE,
        )
        .expect("valid");
        check_lsm_invariants(&v).expect("allowed");
    }
}
