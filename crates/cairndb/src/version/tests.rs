//! Tests of version edits, the MANIFEST log and CURRENT: round trips, forward compatibility,
//! rejection of malformed input, damage detection and crash atomicity of CURRENT.

use std::path::Path;

use proptest::prelude::*;

use super::edit::SAFE_IGNORE_MASK;
use super::*;
use crate::error::Error;
use crate::fs::{CrashOptions, FaultFs, FaultRule, FileSystem, MemFs};
use crate::test_util::compare_internal;
use crate::types::{append_internal_key, MAX_SEQUENCE};
use crate::util::coding::{put_length_prefixed, put_varint32, put_varint64};

fn internal_key() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 0..12),
        0..=MAX_SEQUENCE,
        1u8..=5,
    )
        .prop_map(|(k, s, kind)| {
            let mut v = Vec::new();
            append_internal_key(&mut v, &k, s, kind);
            v
        })
}

fn checksum() -> impl Strategy<Value = Option<FileChecksum>> {
    prop::option::of(("[a-z0-9]{0,8}", prop::collection::vec(any::<u8>(), 0..8)))
        .prop_map(|c| c.map(|(function, value)| FileChecksum { function, value }))
}

fn new_file() -> impl Strategy<Value = NewFile> {
    let base = (
        0..MAX_LEVELS,
        1u64..,
        any::<u64>(),
        internal_key(),
        internal_key(),
    );
    let extra = (
        0..=MAX_SEQUENCE,
        0..=MAX_SEQUENCE,
        any::<Option<u64>>(),
        any::<Option<u64>>(),
        checksum(),
    );
    (base, extra).prop_map(
        |((level, number, size, a, b), (s1, s2, ct, oat, file_checksum))| {
            let (smallest, largest) = if compare_internal(&a, &b).is_gt() {
                (b, a)
            } else {
                (a, b)
            };
            let meta = FileMetaData {
                number,
                size,
                smallest,
                largest,
                smallest_seqno: s1.min(s2),
                largest_seqno: s1.max(s2),
                creation_time: ct,
                oldest_ancester_time: oat,
                file_checksum,
                marked_for_compaction: number % 3 == 0,
                // Consistent counts derived from the number, present on half the files.
                entry_stats: (number % 2 == 0).then_some(EntryStats {
                    num_entries: size,
                    num_deletions: size / 2,
                    num_range_deletions: size / 5,
                    raw_key_bytes: number,
                    raw_value_bytes: s1,
                }),
            };
            NewFile { level, meta }
        },
    )
}

fn version_edit() -> impl Strategy<Value = VersionEdit> {
    let counters = (
        prop::option::of(1..=FORMAT_VERSION),
        prop::option::of("[ -~]{0,20}"),
        any::<Option<u64>>(),
        any::<Option<u64>>(),
        any::<Option<u64>>(),
        prop::option::of(0..=MAX_SEQUENCE),
        any::<Option<u64>>(),
    );
    let family = (
        any::<u32>(),
        prop::option::of("[a-z]{1,8}"),
        any::<bool>(),
        any::<Option<u32>>(),
    );
    let files = (
        prop::collection::vec((0..MAX_LEVELS, any::<u64>()), 0..4),
        prop::collection::vec(new_file(), 0..4),
        prop::collection::btree_map(0..MAX_LEVELS, internal_key(), 0..4),
    );
    (counters, family, files).prop_map(|(c, f, (deleted, new_files, cursors))| VersionEdit {
        format_version: c.0,
        comparator: c.1,
        log_number: c.2,
        prev_log_number: c.3,
        next_file_number: c.4,
        last_sequence: c.5,
        min_log_number_to_keep: c.6,
        column_family: f.0,
        column_family_drop: f.2 && f.1.is_none(),
        column_family_add: f.1,
        max_column_family: f.3,
        atomic_group_remaining: None,
        deleted_files: deleted
            .into_iter()
            .map(|(level, number)| DeletedFile { level, number })
            .collect(),
        new_files,
        compact_cursors: cursors
            .into_iter()
            .map(|(level, key)| CompactCursor { level, key })
            .collect(),
    })
}

/// A small valid edit with one new file and one deletion.
fn sample_edit(n: u64) -> VersionEdit {
    let mut e = VersionEdit {
        log_number: Some(n),
        next_file_number: Some(n + 10),
        last_sequence: Some(n * 100),
        ..VersionEdit::default()
    };
    let mut smallest = Vec::new();
    append_internal_key(&mut smallest, b"apple", 5, 2);
    let mut largest = Vec::new();
    append_internal_key(&mut largest, b"zebra", 9, 2);
    let meta = FileMetaData {
        number: n + 1,
        size: 4096 * n,
        smallest,
        largest,
        smallest_seqno: 5,
        largest_seqno: 9,
        creation_time: Some(1_700_000_000),
        ..FileMetaData::default()
    };
    e.add_file((n % 7) as u8, meta);
    e.delete_file(1, n + 2);
    e
}

fn field(out: &mut Vec<u8>, tag: u32, payload: &[u8]) {
    put_varint32(out, tag);
    put_length_prefixed(out, payload);
}

proptest! {
    #[test]
    fn edit_round_trips(edit in version_edit()) {
        let bytes = edit.encoded();
        let decoded = VersionEdit::decode(&bytes).expect("decode");
        prop_assert_eq!(&decoded, &edit);
        prop_assert_eq!(decoded.encoded(), bytes);
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(e) = VersionEdit::decode(&bytes) {
            prop_assert_eq!(VersionEdit::decode(&e.encoded()).expect("re-decode"), e);
        }
    }

    #[test]
    fn damaged_encodings_fail_or_decode_to_a_valid_edit(
        edit in version_edit(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>(),
    ) {
        let mut bytes = edit.encoded();
        if bytes.is_empty() {
            return Ok(());
        }
        let i = at.index(bytes.len());
        if cut { bytes.truncate(i) } else { bytes[i] = byte }
        if let Ok(e) = VersionEdit::decode(&bytes) {
            prop_assert!(e.validate().is_ok());
        }
    }
}

#[test]
fn unknown_safe_to_ignore_tags_are_skipped() {
    let edit = sample_edit(3);
    let mut bytes = edit.encoded();
    field(&mut bytes, SAFE_IGNORE_MASK | 77, b"from the future");
    field(&mut bytes, SAFE_IGNORE_MASK | 77, b"repeatable");
    assert_eq!(VersionEdit::decode(&bytes).expect("decode"), edit);

    // Inside a new-file field too.
    let mut payload = Vec::new();
    let nf = VersionEdit::decode(&edit.encoded())
        .expect("decode")
        .new_files[0]
        .clone();
    let mut only_file = VersionEdit::default();
    only_file.add_file(nf.level, nf.meta.clone());
    let encoded = only_file.encoded();
    // The new-file payload is the whole edit minus its tag byte and one-byte length.
    payload.extend_from_slice(&encoded[2..]);
    field(&mut payload, SAFE_IGNORE_MASK | 99, &[1, 2, 3]);
    let mut bytes = Vec::new();
    field(&mut bytes, 10, &payload);
    assert_eq!(VersionEdit::decode(&bytes).expect("decode"), only_file);
}

#[test]
fn unknown_required_tags_are_not_supported() {
    let mut bytes = sample_edit(3).encoded();
    field(&mut bytes, 99, b"must understand");
    let e = VersionEdit::decode(&bytes).expect_err("unknown required tag");
    assert!(matches!(e, Error::NotSupported(_)), "{e}");
    assert!(e.to_string().contains("99"), "{e}");

    let mut bytes = Vec::new();
    field(&mut bytes, 12, &[FORMAT_VERSION as u8 + 1]);
    assert!(
        matches!(VersionEdit::decode(&bytes), Err(Error::NotSupported(_))),
        "newer format"
    );
}

#[test]
fn malformed_edits_are_corruption() {
    let good = sample_edit(4).encoded();
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut b = Vec::new();
    field(&mut b, 0, &[]);
    cases.push(("tag 0", b));
    let mut b = Vec::new();
    field(&mut b, 2, &[5]);
    field(&mut b, 2, &[6]);
    cases.push(("duplicate log number", b));
    let mut b = Vec::new();
    field(&mut b, 2, &[5, 0]);
    cases.push(("trailing bytes in a varint field", b));
    let mut b = Vec::new();
    let mut p = Vec::new();
    put_varint32(&mut p, 64);
    put_varint64(&mut p, 9);
    field(&mut b, 11, &p);
    cases.push(("level 64", b));
    let mut b = Vec::new();
    field(&mut b, 1, &[0xff, 0xfe]);
    cases.push(("comparator not UTF-8", b));
    let mut b = Vec::new();
    field(&mut b, 12, &[0]);
    cases.push(("format version 0", b));
    cases.push((
        "overlong length",
        vec![
            2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ],
    ));
    // Entry stats inside a new-file field: too few counts, and more deletions than entries.
    let mut only_file = VersionEdit::default();
    only_file.add_file(1, sample_edit(1).new_files[0].meta.clone());
    let encoded = only_file.encoded();
    for (what, counts) in [
        ("entry stats cut short", &[5u8, 1, 0, 10][..]),
        ("more deletions than entries", &[5, 6, 0, 10, 10][..]),
        (
            "more range deletions than deletions",
            &[5, 1, 2, 10, 10][..],
        ),
    ] {
        let mut payload = encoded[2..].to_vec();
        field(&mut payload, SAFE_IGNORE_MASK | 5, counts);
        let mut b = Vec::new();
        field(&mut b, 10, &payload);
        cases.push((what, b));
    }
    for (what, bytes) in cases {
        let e = VersionEdit::decode(&bytes).expect_err(what);
        assert!(e.is_corruption(), "{what}: {e}");
    }
    // Every cut inside a field fails; cuts at field boundaries give a smaller valid edit.
    for len in 0..good.len() {
        if let Ok(e) = VersionEdit::decode(&good[..len]) {
            assert!(e.validate().is_ok());
        }
    }
    assert!(
        VersionEdit::decode(&good[..good.len() - 1]).is_err(),
        "cut inside the last field"
    );
}

/// A compact-cursor field: `level`, then `key` length-prefixed.
fn cursor_field(out: &mut Vec<u8>, level: u32, key: &[u8]) {
    let mut p = Vec::new();
    put_varint32(&mut p, level);
    put_length_prefixed(&mut p, key);
    field(out, 14 | SAFE_IGNORE_MASK, &p);
}

#[test]
fn compact_cursors_round_trip_with_their_tag() {
    let mut e = sample_edit(2);
    let mut k1 = Vec::new();
    append_internal_key(&mut k1, b"m", 7, 1);
    let mut k3 = Vec::new();
    append_internal_key(&mut k3, b"q", 8, 1);
    e.set_compact_cursor(1, vec![0; 8]);
    e.set_compact_cursor(3, k3.clone());
    e.set_compact_cursor(1, k1.clone());
    assert_eq!(
        e.compact_cursors.len(),
        2,
        "a second cursor for a level replaces the first"
    );
    let bytes = e.encoded();
    let decoded = VersionEdit::decode(&bytes).expect("decode");
    assert_eq!(decoded, e);
    // The field is written after the files, tag 14 with the safe-to-ignore bit (8206).
    let mut tail = Vec::new();
    cursor_field(&mut tail, 3, &k3);
    assert!(bytes.ends_with(&tail), "cursor fields close the edit");
    let mut both = Vec::new();
    cursor_field(&mut both, 1, &k1);
    cursor_field(&mut both, 3, &k3);
    assert_eq!(&bytes[bytes.len() - both.len()..], &both[..]);
}

#[test]
fn malformed_compact_cursors_are_corruption() {
    let mut key = Vec::new();
    append_internal_key(&mut key, b"k", 1, 1);
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut b = Vec::new();
    cursor_field(&mut b, 64, &key);
    cases.push(("level 64", b));
    let mut b = Vec::new();
    cursor_field(&mut b, 1, &key[..7]);
    cases.push(("key shorter than a trailer", b));
    let mut b = Vec::new();
    cursor_field(&mut b, 1, &key);
    cursor_field(&mut b, 1, &key);
    cases.push(("two cursors for one level", b));
    let mut b = Vec::new();
    field(&mut b, 14 | SAFE_IGNORE_MASK, &[1]);
    cases.push(("no key", b));
    let mut b = Vec::new();
    let mut p = Vec::new();
    put_varint32(&mut p, 1);
    put_length_prefixed(&mut p, &key);
    p.push(0);
    field(&mut b, 14 | SAFE_IGNORE_MASK, &p);
    cases.push(("trailing byte", b));
    let mut b = Vec::new();
    let mut p = Vec::new();
    put_varint32(&mut p, 1);
    put_varint64(&mut p, 40);
    p.extend_from_slice(&key);
    field(&mut b, 14 | SAFE_IGNORE_MASK, &p);
    cases.push(("key length past the field", b));
    for (what, bytes) in cases {
        let e = VersionEdit::decode(&bytes).expect_err(what);
        assert!(e.is_corruption(), "{what}: {e}");
    }
    // The writer refuses what the reader would.
    let fs = MemFs::new();
    let mut w = ManifestWriter::create(&fs, Path::new("/"), 1).expect("create");
    let mut bad = sample_edit(1);
    bad.compact_cursors.push(CompactCursor {
        level: 2,
        key: vec![1, 2, 3],
    });
    assert!(matches!(w.add_edit(&bad), Err(Error::InvalidArgument(_))));
}

#[test]
fn writer_validates_edits() {
    let fs = MemFs::new();
    let mut w = ManifestWriter::create(&fs, Path::new("/"), 1).expect("create");
    let mut bad = sample_edit(1);
    bad.new_files[0].level = 64;
    assert!(matches!(w.add_edit(&bad), Err(Error::InvalidArgument(_))));
    let mut bad = sample_edit(1);
    bad.new_files[0].meta.smallest_seqno = 10;
    assert!(matches!(w.add_edit(&bad), Err(Error::InvalidArgument(_))));
    let mut bad = sample_edit(1);
    bad.new_files[0].meta.entry_stats = Some(EntryStats {
        num_entries: 1,
        num_deletions: 2,
        ..EntryStats::default()
    });
    assert!(matches!(w.add_edit(&bad), Err(Error::InvalidArgument(_))));
    let grouped = VersionEdit {
        atomic_group_remaining: Some(0),
        ..VersionEdit::default()
    };
    assert!(matches!(
        w.add_edit(&grouped),
        Err(Error::InvalidArgument(_))
    ));
    assert!(w.is_empty(), "nothing was written");
}

/// Writes a MANIFEST holding `groups` (a group of one is written as a plain edit).
fn write_manifest(fs: &MemFs, number: u64, groups: &[Vec<VersionEdit>]) -> std::path::PathBuf {
    let mut w = ManifestWriter::create(fs, Path::new("/"), number).expect("create");
    for g in groups {
        match g.as_slice() {
            [one] => w.add_edit(one).expect("add"),
            many => w.add_atomic_group(many).expect("add group"),
        }
    }
    w.sync().expect("sync");
    w.path().to_path_buf()
}

fn sample_groups() -> Vec<Vec<VersionEdit>> {
    vec![
        vec![VersionEdit {
            format_version: Some(FORMAT_VERSION),
            comparator: Some("leveldb.BytewiseComparator".into()),
            ..sample_edit(1)
        }],
        vec![sample_edit(2), sample_edit(3), sample_edit(4)],
        vec![sample_edit(5)],
        vec![sample_edit(6), sample_edit(7)],
        vec![sample_edit(8)],
    ]
}

/// Reads a MANIFEST: the groups, the torn tail if any, or the first error.
fn read_manifest(
    fs: &dyn FileSystem,
    path: &Path,
    number: u64,
) -> (
    Vec<Vec<VersionEdit>>,
    Option<crate::wal::Damage>,
    Option<Error>,
) {
    let mut r = ManifestReader::open(fs, path, number).expect("open");
    let mut groups = Vec::new();
    loop {
        match r.next_entry() {
            Ok(Some(ManifestEntry::Edits(edits))) => groups.push(edits),
            Ok(Some(ManifestEntry::TornTail(d))) => {
                assert!(r.next_entry().expect("after torn tail").is_none());
                return (groups, Some(d), None);
            }
            Ok(None) => return (groups, None, None),
            Err(e) => return (groups, None, Some(e)),
        }
    }
}

/// The edits as read back carry the group counts the writer filled in; compare without them.
fn strip_groups(groups: &[Vec<VersionEdit>]) -> Vec<Vec<VersionEdit>> {
    let strip = |e: &VersionEdit| VersionEdit {
        atomic_group_remaining: None,
        ..e.clone()
    };
    groups
        .iter()
        .map(|g| g.iter().map(strip).collect())
        .collect()
}

#[test]
fn manifest_round_trip_with_atomic_groups() {
    let fs = MemFs::new();
    let groups = sample_groups();
    let path = write_manifest(&fs, 12, &groups);
    assert_eq!(path, Path::new("/MANIFEST-000012"));
    let (read, torn, err) = read_manifest(&fs, &path, 12);
    assert!(torn.is_none() && err.is_none(), "{torn:?} {err:?}");
    assert_eq!(strip_groups(&read), groups);
    assert_eq!(read[1][0].atomic_group_remaining, Some(2));
    assert_eq!(read[1][2].atomic_group_remaining, Some(0));
}

#[test]
fn manifest_read_as_another_number_is_corruption() {
    let fs = MemFs::new();
    let path = write_manifest(&fs, 12, &sample_groups());
    let (read, _, err) = read_manifest(&fs, &path, 13);
    assert!(read.is_empty());
    assert!(err.expect("misplaced MANIFEST").is_corruption());
}

#[test]
fn incomplete_atomic_group_at_the_end_is_torn() {
    let fs = MemFs::new();
    let path = Path::new("/MANIFEST-000003");
    let mut w = ManifestWriter::create(&fs, Path::new("/"), 3).expect("create");
    w.add_edit(&sample_edit(1)).expect("add");
    let group_start = w.len();
    w.add_atomic_group(&[sample_edit(2), sample_edit(3), sample_edit(4)])
        .expect("group");
    drop(w);
    let full = crate::fs::read_all(&fs, path).expect("read");
    // Cut after the group's first and second records: clean EOF inside a group.
    let single = sample_edit(2).encoded().len() as u64 + 1 + crate::wal::HEADER_SIZE as u64;
    for keep in [
        group_start + single,
        group_start + 2 * single,
        group_start + 2 * single + 5,
    ] {
        let cut = MemFs::new();
        let mut f = cut.create(path).expect("create");
        f.append(&full[..keep as usize]).expect("append");
        drop(f);
        let (read, torn, err) = read_manifest(&cut, path, 3);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(read.len(), 1);
        let torn = torn.expect("torn tail");
        assert_eq!(
            (torn.offset, torn.offset + torn.bytes_dropped),
            (group_start, keep)
        );
    }
}

#[test]
fn broken_atomic_group_is_corruption() {
    // A group of three whose second record is a plain edit: only a bug could write this.
    let fs = MemFs::new();
    let file = fs.create(Path::new("/MANIFEST-000004")).expect("create");
    let mut log = crate::wal::LogWriter::new(file, 4, 0);
    let first = VersionEdit {
        atomic_group_remaining: Some(2),
        ..sample_edit(1)
    };
    log.add_record(&first.encoded()).expect("add");
    log.add_record(&sample_edit(2).encoded()).expect("add");
    drop(log);
    let (_, _, err) = read_manifest(&fs, Path::new("/MANIFEST-000004"), 4);
    let err = err.expect("broken group");
    assert!(err.is_corruption(), "{err}");
    assert!(err
        .as_corruption()
        .is_some_and(|c| c.offset > 0 && c.file == Path::new("/MANIFEST-000004")));
}

#[test]
fn manifest_bit_flips_are_detected() {
    let fs = MemFs::new();
    let groups = sample_groups();
    let path = write_manifest(&fs, 5, &groups);
    let len = fs.size(&path).expect("size");
    for pos in 0..len {
        fs.corrupt_byte(&path, pos, |b| b ^ (1 << (pos % 8)))
            .expect("flip");
        let (read, torn, err) = read_manifest(&fs, &path, 5);
        let read = strip_groups(&read);
        assert_eq!(read[..], groups[..read.len()], "flip at {pos}: wrong edits");
        assert!(read.len() < groups.len(), "flip at {pos} undetected");
        match (torn, err) {
            (Some(d), None) => assert!(d.offset <= pos, "flip at {pos}: {d:?}"),
            (None, Some(e)) => {
                let c = e
                    .as_corruption()
                    .unwrap_or_else(|| panic!("flip at {pos}: {e}"));
                assert!(c.offset <= pos && c.file == path, "flip at {pos}: {e}");
            }
            other => panic!("flip at {pos}: {other:?}"),
        }
        fs.corrupt_byte(&path, pos, |b| b ^ (1 << (pos % 8)))
            .expect("restore");
    }
}

#[test]
fn truncated_manifest_reads_a_prefix_and_a_torn_tail() {
    let fs = MemFs::new();
    let groups = sample_groups();
    let mut ends = vec![0];
    let mut w = ManifestWriter::create(&fs, Path::new("/"), 6).expect("create");
    for g in &groups {
        match g.as_slice() {
            [one] => w.add_edit(one).expect("add"),
            many => w.add_atomic_group(many).expect("add group"),
        }
        ends.push(w.len() as usize);
    }
    let path = w.path().to_path_buf();
    drop(w);
    let full = crate::fs::read_all(&fs, &path).expect("read");
    for keep in 0..=full.len() {
        let cut = MemFs::new();
        let mut f = cut.create(&path).expect("create");
        f.append(&full[..keep]).expect("append");
        drop(f);
        let (read, torn, err) = read_manifest(&cut, &path, 6);
        assert!(err.is_none(), "cut at {keep}: {err:?}");
        assert_eq!(
            strip_groups(&read)[..],
            groups[..read.len()],
            "cut at {keep}"
        );
        assert_eq!(
            read.len(),
            ends.iter().filter(|&&e| e > 0 && e <= keep).count(),
            "cut at {keep}"
        );
        assert_eq!(
            torn.is_some(),
            !ends.contains(&keep),
            "cut at {keep}: {torn:?}"
        );
    }
}

#[test]
fn current_round_trip() {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    fs.create_dir_all(dir).expect("mkdir");
    set_current(&fs, dir, 7).expect("set");
    assert_eq!(read_current(&fs, dir).expect("read"), 7);
    assert_eq!(
        crate::fs::read_all(&fs, &dir.join("CURRENT")).expect("raw"),
        b"MANIFEST-000007\n"
    );
    set_current(&fs, dir, 12_345_678).expect("set");
    assert_eq!(read_current(&fs, dir).expect("read"), 12_345_678);
    assert!(read_current(&fs, Path::new("/"))
        .expect_err("no CURRENT")
        .is_io());
}

#[test]
fn malformed_current_is_corruption() {
    let fs = MemFs::new();
    let dir = Path::new("/");
    let huge = vec![b'M'; 1 << 20];
    let cases: [&[u8]; 10] = [
        b"",
        b"MANIFEST-000007",
        b"MANIFEST-000007\n\n",
        b"MANIFEST-7\n",
        b"MANIFEST-00000x\n",
        b"000007.log\n",
        b"manifest-000007\n",
        b"MANIFEST-000007\r\n",
        b"\xffMANIFEST-000007\n",
        &huge,
    ];
    for content in cases {
        let mut f = fs.create(&dir.join("CURRENT")).expect("create");
        f.append(content).expect("append");
        drop(f);
        let e = read_current(&fs, dir).expect_err("malformed");
        assert!(
            e.is_corruption(),
            "{:?}: {e}",
            String::from_utf8_lossy(&content[..content.len().min(20)])
        );
    }
}

#[test]
fn crash_at_any_point_of_set_current_leaves_old_or_new() {
    let mut k = 1;
    loop {
        let mem = MemFs::new();
        set_current(&mem, Path::new("/"), 1).expect("initial CURRENT");
        let fs = FaultFs::new(mem.shared(), 1);
        fs.add_rule(FaultRule::halt_at_mutating(k));
        let finished = set_current(&fs, Path::new("/"), 2).is_ok();
        for seed in 0..20 {
            let opts = if seed == 0 {
                CrashOptions::synced_only()
            } else {
                CrashOptions::random(seed)
            };
            let after = mem.crash_clone(opts);
            let n = read_current(&after, Path::new("/"))
                .unwrap_or_else(|e| panic!("crash at op {k}: {e}"));
            assert!(n == 1 || n == 2, "crash at op {k}");
            if finished {
                assert_eq!(n, 2, "a completed set_current is durable");
            }
        }
        if finished {
            break;
        }
        k += 1;
    }
    assert!(
        k >= 4,
        "create, write, sync, rename and dir sync were each interrupted"
    );
}

/// The worked example of docs/format/manifest.md, byte for byte.
#[test]
fn worked_example_matches_the_spec() {
    let mut smallest = Vec::new();
    append_internal_key(&mut smallest, b"a", 1, 2);
    let mut largest = Vec::new();
    append_internal_key(&mut largest, b"b", 2, 2);
    let mut edit = VersionEdit {
        log_number: Some(5),
        next_file_number: Some(8),
        last_sequence: Some(300),
        ..VersionEdit::default()
    };
    edit.delete_file(1, 4);
    let meta = FileMetaData {
        number: 7,
        size: 1000,
        smallest,
        largest,
        smallest_seqno: 1,
        largest_seqno: 2,
        ..FileMetaData::default()
    };
    edit.add_file(0, meta);
    let hex: Vec<String> = edit.encoded().iter().map(|b| format!("{b:02x}")).collect();
    let expected = "02 01 05 04 01 08 05 02 ac 02 0b 02 01 04 0a 1a 00 07 e8 07 \
                    09 61 02 01 00 00 00 00 00 00 09 62 02 02 00 00 00 00 00 00 01 02";
    assert_eq!(hex.join(" "), expected);
    // Framed as the first record of MANIFEST-000001.
    let fs = MemFs::new();
    let mut w = ManifestWriter::create(&fs, Path::new("/"), 1).expect("create");
    w.add_edit(&edit).expect("add");
    drop(w);
    let bytes = crate::fs::read_all(&fs, Path::new("/MANIFEST-000001")).expect("read");
    let header: Vec<String> = bytes[..11].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(header.join(" "), "7b f4 29 01 2a 00 01 01 00 00 00");
}

/// Writes seed inputs for `fuzz/fuzz_targets/version_edit.rs` from valid edits. Run by hand:
/// `cargo test -p cairndb --lib write_version_edit_fuzz_seeds -- --ignored`.
#[test]
#[ignore = "writes into fuzz/corpus; run by hand"]
fn write_version_edit_fuzz_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/version_edit");
    let fs = crate::fs::RealFs::new();
    fs.create_dir_all(&dir).expect("mkdir");
    let mut full = sample_groups().remove(0).remove(0);
    full.column_family = 3;
    full.column_family_add = Some("users".into());
    full.max_column_family = Some(3);
    full.prev_log_number = Some(2);
    full.new_files[0].meta.oldest_ancester_time = Some(1_600_000_000);
    full.new_files[0].meta.file_checksum = Some(FileChecksum {
        function: "crc32c".into(),
        value: vec![1, 2, 3, 4],
    });
    let grouped = VersionEdit {
        atomic_group_remaining: Some(1),
        ..sample_edit(9)
    };
    let drop_cf = VersionEdit {
        column_family: 3,
        column_family_drop: true,
        ..VersionEdit::default()
    };
    let seeds = [
        ("empty", VersionEdit::default()),
        ("sample", sample_edit(2)),
        ("full", full),
        ("group", grouped),
        ("drop-cf", drop_cf),
    ];
    for (name, edit) in seeds {
        crate::fs::write_atomic(&fs, &dir.join(name), &edit.encoded()).expect("write seed");
    }
    let mut ignorable = sample_edit(3).encoded();
    field(&mut ignorable, SAFE_IGNORE_MASK | 40, b"future");
    crate::fs::write_atomic(&fs, &dir.join("ignorable-tag"), &ignorable).expect("write seed");
}
