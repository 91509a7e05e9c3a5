//! Tests of the compaction job on an in-memory file system: cutting, tombstone clipping, file
//! metadata, end-to-end equivalence with the model, and fault injection.

use std::path::Path;

use super::*;
use crate::compaction::iter::tests::{entry, model_read};
use crate::comparator::{EntryOrder, KeyOrder};
use crate::fs::{FaultFs, FaultKind, FaultRule, MemFs, OpKind};
use crate::iter::InternalIterator;
use crate::merge::{MergeOperator, StringAppendOperator};
use crate::test_util::compare_internal;
use crate::test_util::VecIter;
use crate::types::{make_internal_key, CompressionType, ParsedKey, RangeTombstone, MAX_SEQUENCE};
use crate::version::{parse_file_name, FileType};

const DIR: &str = "/db";

fn mem_fs() -> MemFs {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new(DIR)).expect("mkdir");
    fs
}

fn cf_options() -> CfOptions {
    let mut cf = CfOptions {
        compression: CompressionType::None,
        ..CfOptions::default()
    };
    cf.table.block_size = 512;
    cf.merge_operator = Some(Arc::new(StringAppendOperator::new(b",")));
    cf
}

/// Runs a job over `entries` and `tombstones` with the given cut settings.
#[allow(clippy::too_many_arguments)]
fn run_job(
    fs: &dyn FileSystem,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    tombstones: Vec<RangeTombstone>,
    target: u64,
    grandparents: &[FileMetaData],
    gp_limit: u64,
    iter_options: CompactionIterOptions,
    fail_input_at: Option<usize>,
) -> Result<CompactionJobResult> {
    let cut = Cut {
        target,
        grandparents,
        gp_limit,
    };
    run_job_cf(
        fs,
        &cf_options(),
        entries,
        tombstones,
        &cut,
        iter_options,
        fail_input_at,
    )
}

/// How a job cuts its outputs.
struct Cut<'a> {
    target: u64,
    grandparents: &'a [FileMetaData],
    gp_limit: u64,
}

/// [`run_job`] with the family's options given.
fn run_job_cf(
    fs: &dyn FileSystem,
    cf: &CfOptions,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    tombstones: Vec<RangeTombstone>,
    cut: &Cut<'_>,
    iter_options: CompactionIterOptions,
    fail_input_at: Option<usize>,
) -> Result<CompactionJobResult> {
    let (target, grandparents, gp_limit) = (cut.target, cut.grandparents, cut.gp_limit);
    let db = DbOptions::default();
    let job = CompactionJob {
        fs,
        dir: Path::new(DIR),
        db_options: &db,
        cf_options: cf,
        filter_bits: cf.table.bloom_bits_per_key,
        output_level: 2,
        target_file_size: target,
        max_grandparent_overlap_bytes: gp_limit,
        grandparents,
        iter_options,
    };
    let mut it = VecIter::with_comparator(entries, EntryOrder::Internal(cf.comparator.clone()));
    if let Some(i) = fail_input_at {
        it = it.failing_at(i);
    }
    let input = CompactionInput {
        iter: Box::new(it),
        range_deletions: tombstones,
        bytes: 1234,
    };
    let mut next = 100;
    job.run(input, &mut || {
        next += 1;
        next
    })
}

fn iter_options(snapshots: &[u64], bottommost: bool) -> CompactionIterOptions {
    CompactionIterOptions {
        snapshots: snapshots.to_vec(),
        bottommost,
        merge_operator: Some(Arc::new(StringAppendOperator::new(b","))),
        zero_sequence_numbers: true,
        ..CompactionIterOptions::default()
    }
}

/// The entries and tombstones of an output table.
type Contents = (Vec<(Vec<u8>, Vec<u8>)>, Vec<RangeTombstone>);

fn read_output(fs: &dyn FileSystem, meta: &FileMetaData) -> Contents {
    let path = Path::new(DIR).join(table_file_name(meta.number));
    assert_eq!(fs.size(&path).expect("size"), meta.size);
    let table = open_input_table(
        fs,
        &path,
        meta.size,
        &TableOptions::default(),
        1 << 20,
        None,
    )
    .expect("open output");
    let mut it = table.iter();
    let mut points = Vec::new();
    it.seek_to_first();
    while it.valid() {
        points.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().expect("read");
    let tombstones = table.range_deletions().to_vec();
    (points, tombstones)
}

fn sst_files(fs: &dyn FileSystem) -> Vec<String> {
    let mut v: Vec<String> = fs
        .list(Path::new(DIR))
        .expect("list")
        .into_iter()
        .filter(|n| matches!(parse_file_name(n), Some((FileType::Table, _))))
        .collect();
    v.sort();
    v
}

/// Checks the outputs' metadata against their contents and each other: ranges cover the
/// contents, seqno ranges match, outputs are sorted and disjoint in user-key space.
fn check_outputs(fs: &dyn FileSystem, r: &CompactionJobResult) -> Vec<Contents> {
    let contents: Vec<Contents> = r.outputs.iter().map(|m| read_output(fs, m)).collect();
    for (m, (points, tombstones)) in r.outputs.iter().zip(&contents) {
        assert!(!points.is_empty() || !tombstones.is_empty(), "empty output");
        let mut seqs = Vec::new();
        for (k, _) in points {
            assert!(
                compare_internal(&m.smallest, k).is_le(),
                "file {}",
                m.number
            );
            assert!(compare_internal(k, &m.largest).is_le(), "file {}", m.number);
            seqs.push(ParsedKey::parse(k).expect("key").seq);
        }
        for t in tombstones {
            let start = make_internal_key(&t.begin, t.seq, ValueKind::RangeDelete);
            assert!(compare_internal(&m.smallest, &start).is_le());
            // Every user key the tombstone covers is within the file's user-key range.
            assert!(user_key(&m.smallest) <= t.begin.as_slice());
            assert!(
                t.end.as_slice() <= user_key(&m.largest)
                    || t.end == successor(user_key(&m.largest))
            );
            seqs.push(t.seq);
        }
        assert_eq!(m.smallest_seqno, *seqs.iter().min().expect("entries"));
        assert_eq!(m.largest_seqno, *seqs.iter().max().expect("entries"));
    }
    for w in r.outputs.windows(2) {
        assert!(
            user_key(&w[0].largest) < user_key(&w[1].smallest),
            "outputs {} and {} overlap",
            w[0].number,
            w[1].number
        );
    }
    assert_eq!(
        r.bytes_written,
        r.outputs.iter().map(|m| m.size).sum::<u64>()
    );
    contents
}

fn key(i: usize) -> String {
    format!("key{i:05}")
}

#[test]
fn cuts_at_the_target_size_without_splitting_a_user_key() {
    let fs = mem_fs();
    let mut entries = Vec::new();
    let mut seq = 1;
    for i in 0..300 {
        // Key 150 has many versions, all visible to some snapshot: they must stay together.
        let versions = if i == 150 { 60 } else { 1 + i % 3 };
        for _ in 0..versions {
            entries.push(entry(&key(i), seq, ValueKind::Put, &"v".repeat(100)));
            seq += 1;
        }
    }
    let snapshots: Vec<u64> = (1..seq).collect();
    let want = {
        let mut it = CompactionIterator::new(
            VecIter::new(entries.clone()),
            RangeDelSet::default(),
            iter_options(&snapshots, false),
        );
        let mut v = Vec::new();
        it.seek_to_first();
        while it.valid() {
            v.push((it.key().to_vec(), it.value().to_vec()));
            it.next();
        }
        v
    };
    let r = run_job(
        &fs,
        entries,
        Vec::new(),
        4096,
        &[],
        0,
        iter_options(&snapshots, false),
        None,
    )
    .expect("job");
    assert!(r.outputs.len() >= 10, "{} outputs", r.outputs.len());
    let contents = check_outputs(&fs, &r);
    let all: Vec<_> = contents.iter().flat_map(|c| c.0.iter().cloned()).collect();
    assert_eq!(all, want, "the outputs hold exactly what the iterator kept");
    let with_150: Vec<_> = contents
        .iter()
        .filter(|c| c.0.iter().any(|(k, _)| user_key(k) == key(150).as_bytes()))
        .collect();
    assert_eq!(with_150.len(), 1);
    assert_eq!(
        with_150[0]
            .0
            .iter()
            .filter(|(k, _)| user_key(k) == key(150).as_bytes())
            .count(),
        60
    );
    for (m, c) in r.outputs.iter().zip(&contents).take(r.outputs.len() - 1) {
        assert!(m.size >= 4096, "cut before the target: {}", m.size);
        assert_eq!(m.smallest, c.0[0].0);
        assert_eq!(m.largest, c.0.last().expect("points").0);
    }
    assert_eq!(r.bytes_read, 1234);
    assert_eq!(r.stats.keys_in, seq - 1);
    assert_eq!(sst_files(&fs).len(), r.outputs.len());
}

#[test]
fn cuts_where_grandparent_overlap_passes_the_limit() {
    let gp: Vec<FileMetaData> = (0..10)
        .map(|i| FileMetaData {
            number: 50 + i as u64,
            size: 1000,
            smallest: make_internal_key(key(i * 10).as_bytes(), 1, ValueKind::Put),
            largest: make_internal_key(key(i * 10 + 9).as_bytes(), 1, ValueKind::Put),
            ..FileMetaData::default()
        })
        .collect();
    let entries: Vec<_> = (0..100)
        .map(|i| entry(&key(i), 5, ValueKind::Put, "v"))
        .collect();
    let fs = mem_fs();
    let r = run_job(
        &fs,
        entries.clone(),
        Vec::new(),
        u64::MAX,
        &gp,
        2500,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    // An output ends before a key that enters a grandparent file when its overlap with the
    // grandparents would pass the limit: so each overlaps at most two 1000-byte files, and
    // each later one starts where a grandparent file starts.
    assert!(r.outputs.len() >= 4, "{} outputs", r.outputs.len());
    for (i, m) in r.outputs.iter().enumerate() {
        let overlap = grandparent_overlap(&gp, m);
        assert!(overlap <= 2500, "output {i} overlaps {overlap} bytes");
        if i > 0 {
            assert!(user_key(&m.smallest).ends_with(b"0"), "output {i}");
        }
    }
    check_outputs(&fs, &r);
    // Without a limit: one output.
    let fs = mem_fs();
    let r = run_job(
        &fs,
        entries,
        Vec::new(),
        u64::MAX,
        &gp,
        0,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    assert_eq!(r.outputs.len(), 1);
}

/// Bytes of the grandparent files whose key range meets output `m`'s.
fn grandparent_overlap(gp: &[FileMetaData], m: &FileMetaData) -> u64 {
    gp.iter()
        .filter(|f| {
            user_key(&f.smallest) <= user_key(&m.largest)
                && user_key(&m.smallest) <= user_key(&f.largest)
        })
        .map(|f| f.size)
        .sum()
}

/// Ten grandparent files of ten keys each: `key(10 i)` to `key(10 i + 9)`.
fn ten_grandparents(size: u64) -> Vec<FileMetaData> {
    (0..10)
        .map(|i| FileMetaData {
            number: 50 + i as u64,
            size,
            smallest: make_internal_key(key(i * 10).as_bytes(), 1, ValueKind::Put),
            largest: make_internal_key(key(i * 10 + 9).as_bytes(), 1, ValueKind::Put),
            ..FileMetaData::default()
        })
        .collect()
}

/// The first user key of every output.
/// Runs a job without tombstones or snapshots over `entries`, cut as `cut` says, checks its
/// outputs and returns it with each output's first user key.
fn run_cut(
    cf: &CfOptions,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    cut: &Cut<'_>,
) -> (CompactionJobResult, Vec<String>) {
    let fs = mem_fs();
    let r = run_job_cf(
        &fs,
        cf,
        entries,
        vec![],
        cut,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    check_outputs(&fs, &r);
    let starts = output_starts(&r);
    (r, starts)
}

/// The size of one output holding all of `entries`: with it, tests set targets in entries.
fn uncut_size(entries: &[(Vec<u8>, Vec<u8>)]) -> u64 {
    let no_cut = Cut {
        target: u64::MAX,
        grandparents: &[],
        gp_limit: 0,
    };
    let r = run_job_cf(
        &mem_fs(),
        &cf_options(),
        entries.to_vec(),
        vec![],
        &no_cut,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    r.outputs[0].size
}

fn output_starts(r: &CompactionJobResult) -> Vec<String> {
    r.outputs
        .iter()
        .map(|m| String::from_utf8_lossy(user_key(&m.smallest)).into_owned())
        .collect()
}

#[test]
fn leveled_outputs_are_cut_where_grandparent_files_start() {
    let entries: Vec<_> = (0..100)
        .map(|i| entry(&key(i), 5, ValueKind::Put, &"v".repeat(200)))
        .collect();
    let gp = ten_grandparents(1000);
    // About 25 entries per output: by size alone the cuts fall inside grandparent files.
    let cut = Cut {
        target: uncut_size(&entries) / 4,
        grandparents: &gp,
        gp_limit: 0,
    };
    let (r, starts) = run_cut(&cf_options(), entries.clone(), &cut);
    assert!(starts.len() >= 4, "{starts:?}");
    // Once an output is past half the target, it ends where the next grandparent file starts.
    for s in &starts {
        assert!(
            s.ends_with('0'),
            "an output starts inside a grandparent file: {starts:?}"
        );
    }
    let overlaps: Vec<u64> = r
        .outputs
        .iter()
        .map(|m| grandparent_overlap(&gp, m))
        .collect();
    assert!(overlaps.iter().all(|&o| o <= 3000), "{overlaps:?}");
    // Universal compaction has no levels to align to: cut by size only.
    let mut universal = cf_options();
    universal.compaction_style = CompactionStyle::Universal;
    let (_, starts) = run_cut(&universal, entries, &cut);
    assert!(
        starts.iter().skip(1).any(|s| !s.ends_with('0')),
        "size cuts fall inside grandparent files: {starts:?}"
    );
}

#[test]
fn an_output_ends_before_skipping_over_a_large_grandparent_file() {
    // The input has keys 0-5 and 25-29: it jumps over grandparent file 1 (keys 10-19).
    let entries: Vec<_> = (0..6)
        .chain(25..30)
        .map(|i| entry(&key(i), 5, ValueKind::Put, "v"))
        .collect();
    let starts_with = |size: u64| {
        let gp = ten_grandparents(size);
        let cut = Cut {
            target: 1 << 20,
            grandparents: &gp,
            gp_limit: 0,
        };
        run_cut(&cf_options(), entries.clone(), &cut).1
    };
    // A skipped file above 1/8 of the target: two outputs, so neither overlaps it.
    assert_eq!(starts_with(200 << 10), vec![key(0), key(25)]);
    // A small one is not worth a small output.
    assert_eq!(starts_with(1 << 10), vec![key(0)]);
}

#[test]
fn an_output_above_the_bottommost_level_grows_up_to_twice_the_target_to_end_at_a_boundary() {
    let entries: Vec<_> = (0..100)
        .map(|i| entry(&key(i), 5, ValueKind::Put, &"v".repeat(200)))
        .collect();
    // Two grandparent files: keys 0-59 and 60-99.
    let gp: Vec<FileMetaData> = [(0, 59), (60, 99)]
        .iter()
        .enumerate()
        .map(|(n, &(lo, hi))| FileMetaData {
            number: 50 + n as u64,
            size: 1000,
            smallest: make_internal_key(key(lo).as_bytes(), 1, ValueKind::Put),
            largest: make_internal_key(key(hi).as_bytes(), 1, ValueKind::Put),
            ..FileMetaData::default()
        })
        .collect();
    // About 45 entries per target: by size alone the first cut falls inside the first file.
    let cut = Cut {
        target: uncut_size(&entries) * 45 / 100,
        grandparents: &gp,
        gp_limit: 0,
    };
    let starts = |bottommost: bool| {
        let fs = mem_fs();
        let r = run_job_cf(
            &fs,
            &cf_options(),
            entries.clone(),
            vec![],
            &cut,
            iter_options(&[], bottommost),
            None,
        )
        .expect("job");
        check_outputs(&fs, &r);
        output_starts(&r)
    };
    // Above the bottommost level the first output runs past the target to where the second
    // grandparent file starts, so it overlaps one grandparent file instead of two.
    let above = starts(false);
    assert_eq!(above[..2], [key(0), key(60)], "{above:?}");
    // The bottommost level has nothing below to align to: outputs are cut at the target.
    let bottom = starts(true);
    assert!(bottom.len() >= 2, "{bottom:?}");
    assert!(bottom[1] < key(60), "{bottom:?}");
}

#[test]
fn clips_range_tombstones_to_each_output() {
    let fs = mem_fs();
    // Points newer than the tombstones survive; the tombstones must still reach the levels below
    // for every key of their range, including keys between the outputs' point keys.
    let entries: Vec<_> = (0..200)
        .map(|i| entry(&key(i * 2), 100 + i as u64, ValueKind::Put, &"x".repeat(64)))
        .collect();
    let tombstones = vec![
        RangeTombstone::new(b"a", b"zz", 5),
        RangeTombstone::new(key(100).as_bytes(), key(101).as_bytes(), 7),
        RangeTombstone::new(b"zz", b"zzz", 9),
    ];
    let r = run_job(
        &fs,
        entries,
        tombstones.clone(),
        2048,
        &[],
        0,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    assert!(r.outputs.len() >= 5);
    let contents = check_outputs(&fs, &r);
    // The pieces of the big tombstone tile [a, zz) without gap or overlap.
    let mut pieces: Vec<(Vec<u8>, Vec<u8>)> = contents
        .iter()
        .flat_map(|c| c.1.iter().filter(|t| t.seq == 5))
        .map(|t| (t.begin.clone(), t.end.clone()))
        .collect();
    pieces.sort();
    assert_eq!(pieces.len(), r.outputs.len());
    assert_eq!(pieces[0].0, b"a");
    assert_eq!(pieces.last().expect("pieces").1, b"zz");
    for w in pieces.windows(2) {
        assert_eq!(w[0].1, w[1].0, "gap or overlap between outputs");
    }
    // Non-last outputs whose tombstone reaches the cut record (last key, 0, Delete) as largest.
    for (m, c) in r.outputs.iter().zip(&contents).take(r.outputs.len() - 1) {
        let last = user_key(&c.0.last().expect("points").0).to_vec();
        assert_eq!(m.largest, make_internal_key(&last, 0, ValueKind::Delete));
    }
    // Every key (also ones no output holds) is covered as before, at every level of the search.
    let all_t: Vec<RangeTombstone> = contents.iter().flat_map(|c| c.1.iter().cloned()).collect();
    for probe in [
        "a",
        "key00001",
        "key00100",
        "key00100\0",
        "key00399",
        "key00400",
        "zz",
        "zzy",
    ] {
        let covering = |ts: &[RangeTombstone]| {
            ts.iter()
                .filter(|t| {
                    t.begin.as_slice() <= probe.as_bytes() && probe.as_bytes() < t.end.as_slice()
                })
                .map(|t| t.seq)
                .max()
        };
        assert_eq!(covering(&all_t), covering(&tombstones), "{probe:?}");
    }
    assert_eq!(r.range_deletions_dropped, 0);
    assert!(r.range_deletions_written >= 3);
}

/// Descending order has no key right after `k`: an output is cut only where no tombstone covers
/// the gap to the next output's first key, so no output's tombstones reach past its last key
/// (where deeper levels may hold keys no output range admits to), and the pieces still cover
/// every key the tombstones covered.
#[test]
fn reverse_order_cuts_only_where_no_tombstone_spans_the_gap() {
    let fs = mem_fs();
    let order = KeyOrder::REVERSE_BYTEWISE;
    let cf = CfOptions {
        comparator: order.clone(),
        ..cf_options()
    };
    let entries: Vec<_> = (0..200)
        .map(|i| entry(&key(i * 2), 100 + i as u64, ValueKind::Put, &"x".repeat(64)))
        .collect();
    // Descending ranges: [key 300, key 200) spans many cut points; [key 101, key 100) none.
    let tombstones = vec![
        RangeTombstone::new(key(300).as_bytes(), key(200).as_bytes(), 5),
        RangeTombstone::new(key(101).as_bytes(), key(100).as_bytes(), 7),
    ];
    let cut = Cut {
        target: 2048,
        grandparents: &[],
        gp_limit: 0,
    };
    let r = run_job_cf(
        &fs,
        &cf,
        entries,
        tombstones.clone(),
        &cut,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    assert!(r.outputs.len() >= 5, "{} outputs", r.outputs.len());
    let topts = cf.table_options_for_reads();
    let mut all_t = Vec::new();
    for m in &r.outputs {
        let path = Path::new(DIR).join(table_file_name(m.number));
        let table = open_input_table(&fs, &path, m.size, &topts, 1 << 20, None).expect("open");
        let (lo, hi) = (user_key(&m.smallest), user_key(&m.largest));
        for t in table.range_deletions().iter() {
            assert!(order.compare(lo, &t.begin).is_le(), "file {}", m.number);
            assert!(
                order.compare(&t.end, hi).is_le(),
                "file {}: tombstone {:?} reaches past its last key {hi:?}",
                m.number,
                t
            );
            all_t.push(t.clone());
        }
    }
    for w in r.outputs.windows(2) {
        let (a, b) = (user_key(&w[0].largest), user_key(&w[1].smallest));
        assert!(order.compare(a, b).is_lt(), "outputs overlap");
    }
    for i in 95..310 {
        let probe = key(i);
        let covering = |ts: &[RangeTombstone]| {
            ts.iter()
                .filter(|t| t.contains(&order, probe.as_bytes()))
                .map(|t| t.seq)
                .max()
        };
        assert_eq!(covering(&all_t), covering(&tombstones), "{probe}");
    }
}

#[test]
fn tombstones_alone_and_obsolete_tombstones() {
    let fs = mem_fs();
    let r = run_job(
        &fs,
        Vec::new(),
        vec![RangeTombstone::new(b"b", b"d", 5)],
        1 << 20,
        &[],
        0,
        iter_options(&[], false),
        None,
    )
    .expect("job");
    assert_eq!(r.outputs.len(), 1);
    let m = &r.outputs[0];
    assert_eq!(
        m.smallest,
        make_internal_key(b"b", 5, ValueKind::RangeDelete)
    );
    assert_eq!(
        m.largest,
        make_internal_key(b"d", MAX_SEQUENCE, ValueKind::RangeDelete)
    );
    check_outputs(&fs, &r);
    // At the bottom everything is gone: no output at all.
    let fs = mem_fs();
    let r = run_job(
        &fs,
        vec![entry("c", 3, ValueKind::Put, "v")],
        vec![RangeTombstone::new(b"b", b"d", 5)],
        1 << 20,
        &[],
        0,
        iter_options(&[], true),
        None,
    )
    .expect("job");
    assert!(r.outputs.is_empty());
    assert_eq!(r.range_deletions_dropped, 1);
    assert_eq!(r.stats.dropped_range_deletion, 1);
    assert!(sst_files(&fs).is_empty());
}

/// Builds table `number` from entries and tombstones.
fn build_table(
    fs: &dyn FileSystem,
    number: u64,
    mut entries: Vec<(Vec<u8>, Vec<u8>)>,
    tombstones: &[RangeTombstone],
) -> Arc<Table> {
    entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
    let path = Path::new(DIR).join(table_file_name(number));
    let mut b = TableBuilder::new(
        fs.create(&path).expect("create"),
        &path,
        &TableOptions::default(),
    )
    .expect("builder");
    for (k, v) in &entries {
        b.add(k, v).expect("add");
    }
    for t in tombstones {
        b.add_range_deletion(&t.begin, &t.end, t.seq).expect("add");
    }
    let built = b.finish().expect("finish");
    open_input_table(
        fs,
        &path,
        built.file_size,
        &TableOptions::default(),
        64 << 10,
        None,
    )
    .expect("open")
}

#[test]
fn compacting_tables_preserves_what_readers_see() {
    let fs = mem_fs();
    let mut older = Vec::new();
    let mut newer = Vec::new();
    for i in 0..80 {
        let k = key(i);
        older.push(entry(&k, 1 + i as u64, ValueKind::Put, &format!("old{i}")));
        let seq = 200 + i as u64;
        match i % 5 {
            0 => newer.push(entry(&k, seq, ValueKind::Put, &format!("new{i}"))),
            1 => newer.push(entry(&k, seq, ValueKind::Delete, "")),
            2 => newer.push(entry(&k, seq, ValueKind::Merge, &format!("m{i}"))),
            3 => newer.push(entry(&k, seq, ValueKind::SingleDelete, "")),
            _ => {}
        }
    }
    let t_older = [RangeTombstone::new(
        key(70).as_bytes(),
        key(75).as_bytes(),
        150,
    )];
    let t_newer = [RangeTombstone::new(
        key(10).as_bytes(),
        key(20).as_bytes(),
        210,
    )];
    let a = build_table(&fs, 7, older.clone(), &t_older);
    let b = build_table(&fs, 8, newer.clone(), &t_newer);
    let input = CompactionInput::from_tables(&[a.clone(), b.clone()], &KeyOrder::BYTEWISE);
    assert_eq!(input.bytes, a.file_size() + b.file_size());
    assert_eq!(input.range_deletions.len(), 2);
    let snapshots = [40, 205];
    for bottommost in [false, true] {
        let db = DbOptions::default();
        let cf = cf_options();
        let job = CompactionJob {
            fs: &fs,
            dir: Path::new(DIR),
            db_options: &db,
            cf_options: &cf,
            filter_bits: cf.table.bloom_bits_per_key,
            output_level: 1,
            target_file_size: 1024,
            max_grandparent_overlap_bytes: 0,
            grandparents: &[],
            iter_options: iter_options(&snapshots, bottommost),
        };
        let mut n = if bottommost { 300 } else { 200 };
        let r = job
            .run(
                CompactionInput::from_tables(&[a.clone(), b.clone()], &KeyOrder::BYTEWISE),
                &mut || {
                    n += 1;
                    n
                },
            )
            .expect("job");
        assert!(r.outputs.len() > 1);
        let contents = check_outputs(&fs, &r);
        let out_points: Vec<_> = contents.iter().flat_map(|c| c.0.iter().cloned()).collect();
        let out_t: Vec<_> = contents.iter().flat_map(|c| c.1.iter().cloned()).collect();
        let in_points: Vec<_> = older.iter().chain(&newer).cloned().collect();
        let in_t: Vec<_> = t_older.iter().chain(&t_newer).cloned().collect();
        let op = StringAppendOperator::new(b",");
        for i in 0..81 {
            for s in [40, 205, MAX_SEQUENCE] {
                let k = key(i);
                assert_eq!(
                    model_read(
                        &out_points,
                        &out_t,
                        k.as_bytes(),
                        s,
                        &op as &dyn MergeOperator
                    ),
                    model_read(&in_points, &in_t, k.as_bytes(), s, &op),
                    "key {k} at {s}, bottommost {bottommost}"
                );
            }
        }
    }
}

#[test]
fn failures_leave_no_partial_outputs() {
    let entries: Vec<_> = (0..400)
        .map(|i| entry(&key(i), 10 + i as u64, ValueKind::Put, &"y".repeat(50)))
        .collect();
    let tombstones = vec![RangeTombstone::new(b"a", b"z", 5)];
    let mut fired = 0;
    for op in [OpKind::Create, OpKind::Write, OpKind::Sync, OpKind::SyncDir] {
        for k in 1..40 {
            let mem = mem_fs();
            let fs = FaultFs::new(mem.shared(), 1);
            fs.add_rule(FaultRule::nth(op, k, FaultKind::Eio));
            let result = run_job(
                &fs,
                entries.clone(),
                tombstones.clone(),
                4096,
                &[],
                0,
                iter_options(&[], false),
                None,
            );
            match result {
                Err(e) => {
                    fired += 1;
                    assert!(fs.injected() > 0, "{op:?} #{k}: error without a fault: {e}");
                    assert!(!e.is_corruption(), "{e}");
                    assert!(
                        sst_files(&mem).is_empty(),
                        "{op:?} #{k} left {:?}",
                        sst_files(&mem)
                    );
                }
                Ok(r) => {
                    assert_eq!(fs.injected(), 0, "{op:?} #{k}: a fault went unreported");
                    assert!(r.outputs.len() > 1);
                    assert_eq!(sst_files(&mem).len(), r.outputs.len());
                }
            }
        }
    }
    assert!(fired > 20, "only {fired} faults fired");
    // An input error midway: the error comes back and the outputs written so far are gone.
    let mem = mem_fs();
    let e = run_job(
        &mem,
        entries,
        tombstones,
        4096,
        &[],
        0,
        iter_options(&[], false),
        Some(300),
    )
    .expect_err("input error");
    assert!(e.is_corruption());
    assert!(sst_files(&mem).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Subcompactions over inputs with range tombstones.

mod subcompactions {
    use std::sync::atomic::{AtomicU64, Ordering};

    use proptest::prelude::*;

    use super::*;
    use crate::compaction::subcompaction::{ranges_after, run_subcompactions, KeyRange};

    /// One generated write on keys `k0..k12`.
    #[derive(Debug, Clone)]
    enum Op {
        Put(u8),
        Delete(u8),
        Merge(u8),
        RangeDelete(u8, u8),
    }

    fn ops_strategy() -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            5 => (0u8..12).prop_map(Op::Put),
            2 => (0u8..12).prop_map(Op::Delete),
            2 => (0u8..12).prop_map(Op::Merge),
            2 => (0u8..12, 1u8..6).prop_map(|(k, n)| Op::RangeDelete(k, k + n)),
        ];
        prop::collection::vec(op, 1..60)
    }

    /// Key `k` of the inputs; `between(k)` lies between `k` and `k + 1` and is held only by the
    /// level below the compaction, so a gap in the tombstones' coverage there would show.
    fn key_of(k: u8) -> Vec<u8> {
        vec![b'k', b'a' + k]
    }
    fn between(k: u8) -> Vec<u8> {
        vec![b'k', b'a' + k, b'5']
    }

    type Level = (Vec<(Vec<u8>, Vec<u8>)>, Vec<RangeTombstone>);

    /// The i-th op at sequence number `first_seq + i`, split into tables by `cuts` of the
    /// sequence numbers.
    fn materialize(ops: &[Op], first_seq: u64) -> Level {
        let mut level: Level = (Vec::new(), Vec::new());
        for (i, op) in ops.iter().enumerate() {
            let seq = first_seq + i as u64;
            let v = format!("v{seq}");
            match *op {
                Op::Put(k) => level.0.push(entry(&key_str(k), seq, ValueKind::Put, &v)),
                Op::Delete(k) => level.0.push(entry(&key_str(k), seq, ValueKind::Delete, "")),
                Op::Merge(k) => level.0.push(entry(&key_str(k), seq, ValueKind::Merge, &v)),
                Op::RangeDelete(a, b) => {
                    level
                        .1
                        .push(RangeTombstone::new(&key_of(a), &key_of(b), seq));
                }
            }
        }
        level
    }

    fn key_str(k: u8) -> String {
        String::from_utf8(key_of(k)).expect("ascii")
    }

    /// Builds the input tables: the ops cut by sequence number into up to three tables.
    fn input_tables(fs: &dyn FileSystem, input: &Level, seq_cuts: &[u64]) -> Vec<Arc<Table>> {
        let seq = |k: &[u8]| ParsedKey::parse(k).expect("key").seq;
        let mut bounds = vec![0];
        bounds.extend_from_slice(seq_cuts);
        bounds.push(u64::MAX);
        let mut tables = Vec::new();
        for (i, w) in bounds.windows(2).enumerate() {
            let inside = |s: u64| s > w[0] && s <= w[1];
            let points: Vec<_> = input
                .0
                .iter()
                .filter(|e| inside(seq(&e.0)))
                .cloned()
                .collect();
            let mut ts: Vec<_> = input.1.iter().filter(|t| inside(t.seq)).cloned().collect();
            ts.sort_by(|a, b| a.begin.cmp(&b.begin));
            if !points.is_empty() || !ts.is_empty() {
                tables.push(build_table(fs, 10 + i as u64, points, &ts));
            }
        }
        tables
    }

    /// Runs the compaction of `tables` split into `ranges`; checks the outputs (sorted,
    /// disjoint, metadata covering the contents, none across a range boundary) and returns
    /// their contents.
    fn compact(
        fs: &dyn FileSystem,
        tables: &[Arc<Table>],
        ranges: Vec<KeyRange>,
        snapshots: &[u64],
        bottommost: bool,
        first_number: u64,
    ) -> Level {
        let db = DbOptions::default();
        let cf = cf_options();
        let job = CompactionJob {
            fs,
            dir: Path::new(DIR),
            db_options: &db,
            cf_options: &cf,
            filter_bits: cf.table.bloom_bits_per_key,
            output_level: 1,
            target_file_size: 256,
            max_grandparent_overlap_bytes: 0,
            grandparents: &[],
            iter_options: iter_options(snapshots, bottommost),
        };
        let bounds: Vec<Vec<u8>> = ranges.iter().filter_map(|r| r.1.clone()).collect();
        let next = AtomicU64::new(first_number);
        let new_number = || next.fetch_add(1, Ordering::Relaxed);
        let (r, _) = run_subcompactions(&job, tables, ranges, &new_number, fs, Path::new(DIR))
            .expect("compaction");
        let contents = check_outputs(fs, &r);
        for m in &r.outputs {
            for b in &bounds {
                assert!(
                    user_key(&m.largest) < b.as_slice() || user_key(&m.smallest) >= b.as_slice(),
                    "output {} crosses the range boundary {b:?}",
                    m.number
                );
            }
        }
        let points = contents.iter().flat_map(|c| c.0.iter().cloned()).collect();
        let tombstones = contents.iter().flat_map(|c| c.1.iter().cloned()).collect();
        (points, tombstones)
    }

    /// What a reader at `snapshot` sees of every key (inputs' and in-between keys), reading
    /// `level` over `below`.
    fn reads(level: &Level, below: &Level, snapshot: u64) -> Vec<Option<Vec<u8>>> {
        let points: Vec<_> = level.0.iter().chain(&below.0).cloned().collect();
        let tombstones: Vec<_> = level.1.iter().chain(&below.1).cloned().collect();
        let op = StringAppendOperator::new(b",");
        (0u8..18)
            .flat_map(|k| [key_of(k), between(k)])
            .map(|k| model_read(&points, &tombstones, &k, snapshot, &op))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn split_compaction_with_range_tombstones_matches_one_range(
            ops in ops_strategy(),
            seq_cuts in prop::collection::btree_set(1u64..60, 0..3),
            cut_keys in prop::collection::btree_set((0u8..14, any::<bool>()), 1..4),
            snapshots in prop::collection::vec(100u64..170, 0..4),
            bottommost in any::<bool>(),
        ) {
            let fs = mem_fs();
            // Older data below the compaction (not bottommost): puts on every key and every
            // in-between key, which the inputs' tombstones must keep hiding.
            let below: Level = if bottommost {
                (Vec::new(), Vec::new())
            } else {
                let points = (0u8..18)
                    .flat_map(|k| [key_of(k), between(k)])
                    .map(|k| entry(std::str::from_utf8(&k).expect("ascii"), 1, ValueKind::Put, "old"))
                    .collect();
                (points, Vec::new())
            };
            let input = materialize(&ops, 100);
            let seq_cuts: Vec<u64> = seq_cuts.into_iter().map(|s| 100 + s).collect();
            let tables = input_tables(&fs, &input, &seq_cuts);
            prop_assume!(!tables.is_empty());
            let mut cuts: Vec<Vec<u8>> = cut_keys
                .into_iter()
                .map(|(k, mid)| if mid { between(k) } else { key_of(k) })
                .collect();
            cuts.sort();
            cuts.dedup();
            let one = compact(&fs, &tables, vec![(None, None)], &snapshots, bottommost, 1000);
            let split = compact(&fs, &tables, ranges_after(&cuts), &snapshots, bottommost, 2000);
            for &s in snapshots.iter().chain([&MAX_SEQUENCE]) {
                let want = reads(&input, &below, s);
                prop_assert_eq!(&reads(&one, &below, s), &want, "one range at {}", s);
                prop_assert_eq!(&reads(&split, &below, s), &want, "split at {} by {:?}", s, cuts);
            }
        }
    }
}
