//! The iterator conformance test: every iterator of the engine against the one contract of
//! `cairndb::iter` (docs/design/iterators.md), through the public API only.
//!
//! One generic checker, [`conform`], takes a factory that builds a fresh iterator over a sorted
//! model and checks, against the model: the unpositioned state, full scans both ways, `seek` and
//! `seek_for_prev` at present, absent and boundary keys, `next`/`prev` direction changes at every
//! position, and random operation sequences. It runs for `BlockIter`, `TableIterator`,
//! `MemTableIter` (both reps), `MergingIterator` (the model split over memtables and tables) and
//! `DbIterator` (a model that resolves versions, snapshots, deletions, range deletions and merges;
//! with bounds, and separately in prefix mode). Error injection: a child that fails part-way
//! (a wrapper, and a table file whose block read is corrupted through `FaultFs`) makes the merging
//! and user iterators invalid with the error in `status()`, after returning only correct entries.
//! The internal-key subjects and the user iterator run in both built-in comparators' orders
//! (bytewise and reverse bytewise), over models sorted the same way.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use cairndb::comparator::EntryOrder;
use cairndb::fs::{FaultFs, FaultKind, FaultRule, FileSystem, MemFs, OpKind};
use cairndb::iter::{
    BoxedIterator, DbIterOptions, DbIterator, InternalIterator, LevelIterator, MergingIterator,
    RangeDelSet, TableOpener,
};
use cairndb::memtable::{MemTable, MemTableOptions, MemTableRep};
use cairndb::merge::StringAppendOperator;
use cairndb::sstable::{
    Block, BlockBuilder, BlockIter, BlockKind, FixedPrefix, Table, TableBuilder, TableOptions,
};
use cairndb::types::{
    append_internal_key, make_internal_key, seek_key, ParsedKey, RangeTombstone, SequenceNumber,
    ValueKind, MAX_SEQUENCE,
};
use cairndb::version::edit::FileMetaData;
use cairndb::{CompressionType, Error, KeyOrder};
use proptest::prelude::*;

/// Sorted, unique (key, value) pairs: what an iterator must show.
type Model = Vec<(Vec<u8>, Vec<u8>)>;
type Cmp<'a> = &'a dyn Fn(&[u8], &[u8]) -> Ordering;
type Factory<'a> = &'a dyn Fn() -> BoxedIterator;
/// A named factory of fresh iterators.
type Subject = (&'static str, Box<dyn Fn() -> BoxedIterator>);
/// A user key's versions: (sequence, kind, value).
type Versions = Vec<(SequenceNumber, ValueKind, Vec<u8>)>;
/// Optional lower and upper bounds.
type Bounds = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Both built-in comparators: every subject conforms in each.
const ORDERS: [KeyOrder; 2] = [KeyOrder::BYTEWISE, KeyOrder::REVERSE_BYTEWISE];

fn order_of(reverse: bool) -> KeyOrder {
    ORDERS[usize::from(reverse)].clone()
}

// ---------------------------------------------------------------------------------------------
// The generic checker.

/// One step of a random operation sequence; indexes pick a probe key.
#[derive(Debug, Clone)]
enum Op {
    SeekToFirst,
    SeekToLast,
    Seek(usize),
    SeekForPrev(usize),
    Next,
    Prev,
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::SeekToFirst),
        1 => Just(Op::SeekToLast),
        3 => any::<usize>().prop_map(Op::Seek),
        3 => any::<usize>().prop_map(Op::SeekForPrev),
        6 => Just(Op::Next),
        6 => Just(Op::Prev),
    ]
}

/// The model's view: where each call lands.
struct Oracle<'a> {
    model: &'a Model,
    cmp: Cmp<'a>,
}

impl Oracle<'_> {
    fn first(&self) -> Option<usize> {
        (!self.model.is_empty()).then_some(0)
    }
    fn last(&self) -> Option<usize> {
        self.model.len().checked_sub(1)
    }
    fn seek(&self, t: &[u8]) -> Option<usize> {
        let i = self
            .model
            .partition_point(|(k, _)| (self.cmp)(k, t) == Ordering::Less);
        (i < self.model.len()).then_some(i)
    }
    fn seek_for_prev(&self, t: &[u8]) -> Option<usize> {
        let i = self
            .model
            .partition_point(|(k, _)| (self.cmp)(k, t) != Ordering::Greater);
        i.checked_sub(1)
    }
    fn next(&self, i: usize) -> Option<usize> {
        (i + 1 < self.model.len()).then_some(i + 1)
    }
}

/// Asserts that `it` is where the model says.
fn expect_at(
    it: &dyn InternalIterator,
    model: &Model,
    pos: Option<usize>,
    ctx: &dyn Fn() -> String,
) {
    if let Err(e) = it.status() {
        panic!("{}: unexpected error {e}", ctx());
    }
    match pos {
        None => assert!(
            !it.valid(),
            "{}: expected the end, found {:02x?}",
            ctx(),
            it.key()
        ),
        Some(i) => {
            assert!(
                it.valid(),
                "{}: expected {:02x?}, found the end",
                ctx(),
                model[i].0
            );
            assert_eq!(it.key(), model[i].0.as_slice(), "{}: key", ctx());
            assert_eq!(it.value(), model[i].1.as_slice(), "{}: value", ctx());
        }
    }
}

/// Runs the deterministic part of the contract against `model` (ordered by `cmp`), seeking to
/// every probe.
fn conform(name: &str, make: Factory<'_>, model: &Model, cmp: Cmp<'_>, probes: &[Vec<u8>]) {
    let o = Oracle { model, cmp };
    let mut it = make();
    assert!(!it.valid(), "{name}: a new iterator is unpositioned");
    assert!(it.status().is_ok());

    // Full scans both ways.
    it.seek_to_first();
    let mut pos = o.first();
    for step in 0..=model.len() {
        expect_at(&*it, model, pos, &|| {
            format!("{name}: forward scan step {step}")
        });
        match pos {
            Some(i) => {
                it.next();
                pos = o.next(i);
            }
            None => break,
        }
    }
    it.seek_to_last();
    let mut pos = o.last();
    for step in 0..=model.len() {
        expect_at(&*it, model, pos, &|| {
            format!("{name}: reverse scan step {step}")
        });
        match pos {
            Some(i) => {
                it.prev();
                pos = i.checked_sub(1);
            }
            None => break,
        }
    }

    // Seeks at present, absent and boundary keys, then one step each way from there.
    for t in probes {
        let ctx = |what: &str| format!("{name}: {what} {t:02x?}");
        it.seek(t);
        let at = o.seek(t);
        expect_at(&*it, model, at, &|| ctx("seek"));
        if let Some(i) = at {
            it.prev();
            expect_at(&*it, model, i.checked_sub(1), &|| ctx("seek+prev"));
        }
        it.seek_for_prev(t);
        let at = o.seek_for_prev(t);
        expect_at(&*it, model, at, &|| ctx("seek_for_prev"));
        if let Some(i) = at {
            it.next();
            expect_at(&*it, model, o.next(i), &|| ctx("seek_for_prev+next"));
        }
    }

    // Direction changes at every position.
    for i in 0..model.len() {
        let ctx = |what: &str| format!("{name}: {what} at {i}");
        it.seek(&model[i].0);
        expect_at(&*it, model, Some(i), &|| ctx("seek exact"));
        it.next();
        if o.next(i).is_some() {
            it.prev();
            expect_at(&*it, model, Some(i), &|| ctx("next+prev"));
        }
        it.seek_for_prev(&model[i].0);
        expect_at(&*it, model, Some(i), &|| ctx("seek_for_prev exact"));
        it.prev();
        if i > 0 {
            it.next();
            expect_at(&*it, model, Some(i), &|| ctx("prev+next"));
        }
    }
}

/// Runs a random operation sequence against the model.
fn conform_ops(
    name: &str,
    make: Factory<'_>,
    model: &Model,
    cmp: Cmp<'_>,
    probes: &[Vec<u8>],
    ops: &[Op],
) {
    let o = Oracle { model, cmp };
    let mut it = make();
    let mut pos: Option<usize> = None;
    for (n, op) in ops.iter().enumerate() {
        match op {
            Op::SeekToFirst => {
                it.seek_to_first();
                pos = o.first();
            }
            Op::SeekToLast => {
                it.seek_to_last();
                pos = o.last();
            }
            Op::Seek(p) => {
                let t = &probes[p % probes.len()];
                it.seek(t);
                pos = o.seek(t);
            }
            Op::SeekForPrev(p) => {
                let t = &probes[p % probes.len()];
                it.seek_for_prev(t);
                pos = o.seek_for_prev(t);
            }
            // Stepping requires a valid iterator (contract 4).
            Op::Next => match pos {
                Some(i) => {
                    it.next();
                    pos = o.next(i);
                }
                None => continue,
            },
            Op::Prev => match pos {
                Some(i) => {
                    it.prev();
                    pos = i.checked_sub(1);
                }
                None => continue,
            },
        }
        expect_at(&*it, model, pos, &|| {
            format!("{name}: op {n} {op:?} of {ops:?}")
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Internal-key subjects: blocks, tables, memtables, merging iterators.

/// A random internal-key model: user keys `k00`..`k29`, unique sequence numbers, point kinds.
fn internal_model_strategy() -> impl Strategy<Value = (Model, KeyOrder)> {
    let raw = prop::collection::vec((0u8..30, 0u8..4, 0u16..1000), 0..60);
    (raw, any::<bool>()).prop_map(|(raw, reverse)| {
        let order = order_of(reverse);
        let mut m: Model = raw
            .iter()
            .enumerate()
            .map(|(i, &(k, kind, v))| {
                let kind = [
                    ValueKind::Put,
                    ValueKind::Delete,
                    ValueKind::Merge,
                    ValueKind::SingleDelete,
                ][kind as usize];
                let key = make_internal_key(format!("k{k:02}").as_bytes(), i as u64 + 1, kind);
                (key, format!("v{v}").into_bytes())
            })
            .collect();
        m.sort_by(|a, b| order.compare_internal(&a.0, &b.0));
        (m, order)
    })
}

fn large_internal_model(order: &KeyOrder) -> Model {
    let mut m: Model = (0..400u64)
        .map(|i| {
            let ukey = format!("key{:04}", (i * 7919) % 150);
            let kind = if i % 5 == 0 {
                ValueKind::Delete
            } else {
                ValueKind::Put
            };
            let value = format!("value-{i}-").repeat((i % 7) as usize + 1);
            (
                make_internal_key(ukey.as_bytes(), i + 1, kind),
                value.into_bytes(),
            )
        })
        .collect();
    m.sort_by(|a, b| order.compare_internal(&a.0, &b.0));
    m
}

/// The largest internal key of `ukey` (sorts after all its entries).
fn after_all(ukey: &[u8]) -> Vec<u8> {
    let mut k = Vec::new();
    append_internal_key(&mut k, ukey, 0, 0);
    k
}

/// Seek targets: every key, every user key's first and last possible internal key, keys between
/// versions and between user keys, and keys before and after everything.
fn internal_probes(model: &Model) -> Vec<Vec<u8>> {
    let mut out = vec![seek_key(b"", MAX_SEQUENCE), after_all(b"\xff\xff")];
    for (k, _) in model {
        let p = ParsedKey::parse(k).expect("model keys parse");
        let mut absent = p.user_key.to_vec();
        absent.push(b'!');
        out.extend([
            k.clone(),
            seek_key(p.user_key, MAX_SEQUENCE),
            seek_key(p.user_key, p.seq),
            seek_key(p.user_key, p.seq.saturating_sub(1)),
            after_all(p.user_key),
            seek_key(&absent, MAX_SEQUENCE),
        ]);
    }
    out
}

fn block_factory(model: &Model, order: &KeyOrder) -> impl Fn() -> BoxedIterator {
    let order = order.clone();
    let mut b = BlockBuilder::new(3);
    for (k, v) in model {
        b.add(k, v);
    }
    let block = Arc::new(Block::parse(b.finish().to_vec(), BlockKind::Data).expect("block"));
    move || {
        let it = BlockIter::new(
            cairndb::sstable::BlockRef::Owned(Arc::clone(&block)),
            EntryOrder::Internal(order.clone()),
        )
        .expect("block iter");
        Box::new(it) as BoxedIterator
    }
}

/// Options for tables of many tiny blocks, so that iterators cross block boundaries constantly.
fn tiny_block_options(order: &KeyOrder) -> TableOptions {
    TableOptions {
        block_size: 64,
        block_restart_interval: 2,
        compression: CompressionType::None,
        comparator: order.clone(),
        ..TableOptions::default()
    }
}

fn build_table(fs: &dyn FileSystem, path: &str, model: &Model, order: &KeyOrder) -> Arc<Table> {
    let path = Path::new(path);
    let opts = tiny_block_options(order);
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, &opts).expect("builder");
    for (k, v) in model {
        b.add(k, v).expect("add");
    }
    b.finish().expect("finish");
    open_table(fs, path, order)
}

fn open_table(fs: &dyn FileSystem, path: &Path, order: &KeyOrder) -> Arc<Table> {
    let file = fs.open_read(path).expect("open");
    let size = file.size().expect("size");
    Arc::new(Table::open(file, path, size, &tiny_block_options(order)).expect("table"))
}

fn memtable(rep: MemTableRep, model: &Model, order: &KeyOrder) -> Arc<MemTable> {
    let mem = MemTable::new(MemTableOptions {
        rep,
        comparator: order.clone(),
        ..MemTableOptions::default()
    });
    for (k, v) in model {
        let p = ParsedKey::parse(k).expect("parse");
        mem.add(p.seq, p.kind, p.user_key, v).expect("add");
    }
    Arc::new(mem)
}

/// Splits `model` into `n` disjoint sorted parts, entry `i` to part `assign(i) % n`.
fn split(model: &Model, n: usize, assign: impl Fn(usize) -> usize) -> Vec<Model> {
    let mut parts = vec![Model::new(); n];
    for (i, e) in model.iter().enumerate() {
        parts[assign(i) % n].push(e.clone());
    }
    parts
}

/// A merging iterator over two memtables and two tables holding the model between them.
fn merging_factory(
    model: &Model,
    order: &KeyOrder,
    assign: impl Fn(usize) -> usize,
) -> impl Fn() -> BoxedIterator {
    let parts = split(model, 4, assign);
    let fs = MemFs::new();
    let mems = [
        memtable(MemTableRep::SkipList, &parts[0], order),
        memtable(MemTableRep::Vector, &parts[1], order),
    ];
    let tables = [
        build_table(&fs, "/1.sst", &parts[2], order),
        build_table(&fs, "/2.sst", &parts[3], order),
    ];
    let order = order.clone();
    move || {
        let children: Vec<BoxedIterator> = vec![
            Box::new(mems[0].iter()),
            Box::new(tables[0].iter()),
            Box::new(mems[1].iter()),
            Box::new(tables[1].iter()),
        ];
        Box::new(MergingIterator::new(children, order.clone())) as BoxedIterator
    }
}

/// Opens the tables of a test level by file number; numbers in `broken` fail to open.
struct Opener {
    tables: Vec<Arc<Table>>,
    broken: Vec<u64>,
}

impl TableOpener for Opener {
    fn open(&self, file: &FileMetaData) -> cairndb::Result<BoxedIterator> {
        if self.broken.contains(&file.number) {
            return Err(Error::corruption(
                format!("/{}.sst", file.number),
                0,
                "bad footer",
            ));
        }
        Ok(Box::new(self.tables[file.number as usize - 1].iter()))
    }
}

/// The model as one sorted level of `n` tables holding contiguous runs of it (some empty runs
/// are left out, as a level has no empty files), plus the opener; `broken` files fail to open.
fn level_of(
    model: &Model,
    order: &KeyOrder,
    n: usize,
    broken: Vec<u64>,
) -> (Arc<[FileMetaData]>, Arc<Opener>) {
    let fs = MemFs::new();
    let per = model.len().div_ceil(n).max(1);
    let mut files = Vec::new();
    let mut tables = Vec::new();
    for run in model.chunks(per) {
        let number = tables.len() as u64 + 1;
        tables.push(build_table(
            &fs,
            &format!("/{number}.sst"),
            &run.to_vec(),
            order,
        ));
        files.push(FileMetaData {
            number,
            smallest: run[0].0.clone(),
            largest: run[run.len() - 1].0.clone(),
            ..FileMetaData::default()
        });
    }
    (files.into(), Arc::new(Opener { tables, broken }))
}

fn level_factory(model: &Model, order: &KeyOrder, n: usize) -> impl Fn() -> BoxedIterator {
    let (files, opener) = level_of(model, order, n, Vec::new());
    let order = order.clone();
    move || {
        let opener: Arc<dyn TableOpener> = opener.clone();
        Box::new(LevelIterator::new(
            Arc::clone(&files),
            opener,
            order.clone(),
        )) as BoxedIterator
    }
}

/// Every internal-key iterator over `model`: (name, factory).
fn internal_subjects(model: &Model, order: &KeyOrder) -> Vec<Subject> {
    let fs = MemFs::new();
    let table = build_table(&fs, "/0.sst", model, order);
    let skip = memtable(MemTableRep::SkipList, model, order);
    let vector = memtable(MemTableRep::Vector, model, order);
    let n = model.len();
    vec![
        ("BlockIter", Box::new(block_factory(model, order))),
        (
            "TableIterator",
            Box::new(move || Box::new(table.iter()) as BoxedIterator),
        ),
        (
            "MemTableIter(skiplist)",
            Box::new(move || Box::new(skip.iter()) as BoxedIterator),
        ),
        (
            "MemTableIter(vector)",
            Box::new(move || Box::new(vector.iter()) as BoxedIterator),
        ),
        (
            "LevelIterator(1 file)",
            Box::new(level_factory(model, order, 1)),
        ),
        (
            "LevelIterator(5 files)",
            Box::new(level_factory(model, order, 5)),
        ),
        (
            "MergingIterator(round robin)",
            Box::new(merging_factory(model, order, |i| i)),
        ),
        (
            "MergingIterator(runs)",
            Box::new(merging_factory(model, order, move |i| i * 4 / n.max(1))),
        ),
        (
            "MergingIterator(scattered)",
            Box::new(merging_factory(model, order, |i| (i * 2654435761) >> 7)),
        ),
    ]
}

#[test]
fn internal_iterators_conform_on_a_large_model() {
    for order in &ORDERS {
        let model = large_internal_model(order);
        let probes = internal_probes(&model);
        let cmp = |a: &[u8], b: &[u8]| order.compare_internal(a, b);
        for (name, make) in internal_subjects(&model, order) {
            conform(&format!("{name} {order:?}"), &*make, &model, &cmp, &probes);
        }
    }
}

#[test]
fn internal_iterators_conform_when_empty() {
    let model = Model::new();
    let probes = vec![seek_key(b"a", 5), after_all(b"")];
    for order in &ORDERS {
        let cmp = |a: &[u8], b: &[u8]| order.compare_internal(a, b);
        for (name, make) in internal_subjects(&model, order) {
            conform(name, &*make, &model, &cmp, &probes);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn internal_iterators_conform_on_random_models(
        (model, order) in internal_model_strategy(),
        ops in prop::collection::vec(op_strategy(), 1..80),
    ) {
        let probes = internal_probes(&model);
        let cmp = |a: &[u8], b: &[u8]| order.compare_internal(a, b);
        for (name, make) in internal_subjects(&model, &order) {
            let name = format!("{name} {order:?}");
            conform(&name, &*make, &model, &cmp, &probes);
            conform_ops(&name, &*make, &model, &cmp, &probes, &ops);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The user iterator against a model that resolves versions.

/// One write of a random history. Sequence numbers are positions in the history, from 1.
#[derive(Debug, Clone)]
enum Write {
    Put(u8, u16),
    Delete(u8),
    SingleDelete(u8),
    Merge(u8, u16),
    DeleteRange(u8, u8),
}

fn write_strategy(keys: u8) -> impl Strategy<Value = Write> {
    prop_oneof![
        5 => (0..keys, any::<u16>()).prop_map(|(k, v)| Write::Put(k, v)),
        2 => (0..keys).prop_map(Write::Delete),
        1 => (0..keys).prop_map(Write::SingleDelete),
        4 => (0..keys, any::<u16>()).prop_map(|(k, v)| Write::Merge(k, v)),
        1 => (0..keys, 0..keys).prop_map(|(a, b)| Write::DeleteRange(a.min(b), a.max(b))),
    ]
}

/// User key `n`: two-byte prefixes `a?`/`b?`/... so that prefix mode has several groups.
fn ukey(n: u8) -> Vec<u8> {
    format!(
        "{}{}{}",
        (b'a' + n / 12) as char,
        (b'a' + (n / 4) % 3) as char,
        n % 4
    )
    .into_bytes()
}

/// A history and the sources it is stored in.
struct Db {
    writes: Vec<Write>,
    /// The order of the user keys.
    order: KeyOrder,
    /// Point entries (internal key, value), in internal-key order.
    entries: Model,
    tombstones: Vec<RangeTombstone>,
}

impl Db {
    fn new(writes: Vec<Write>, order: KeyOrder) -> Db {
        let mut entries = Model::new();
        let mut tombstones = Vec::new();
        for (i, w) in writes.iter().enumerate() {
            let seq = i as u64 + 1;
            let (k, kind, v) = match *w {
                Write::Put(k, v) => (k, ValueKind::Put, format!("p{v}")),
                Write::Delete(k) => (k, ValueKind::Delete, String::new()),
                Write::SingleDelete(k) => (k, ValueKind::SingleDelete, String::new()),
                Write::Merge(k, v) => (k, ValueKind::Merge, format!("m{v}")),
                Write::DeleteRange(a, b) => {
                    // `a <= b`: the range starts at the key that comes first in the order.
                    let (begin, end) = if order.is_bytewise() { (a, b) } else { (b, a) };
                    tombstones.push(RangeTombstone::new(&ukey(begin), &ukey(end), seq));
                    continue;
                }
            };
            entries.push((make_internal_key(&ukey(k), seq, kind), v.into_bytes()));
        }
        entries.sort_by(|a, b| order.compare_internal(&a.0, &b.0));
        Db {
            writes,
            order,
            entries,
            tombstones,
        }
    }

    /// What a reader at `snapshot` sees, by resolving each user key on its own (newest visible
    /// entry first), independently of how the iterator walks.
    fn resolve(
        &self,
        snapshot: SequenceNumber,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
    ) -> Model {
        let mut by_key: BTreeMap<Vec<u8>, Versions> = BTreeMap::new();
        for (k, v) in &self.entries {
            let p = ParsedKey::parse(k).expect("parse");
            if p.seq <= snapshot {
                by_key
                    .entry(p.user_key.to_vec())
                    .or_default()
                    .push((p.seq, p.kind, v.clone()));
            }
        }
        let o = &self.order;
        let mut out = Model::new();
        for (key, mut versions) in by_key {
            if lower.is_some_and(|l| o.compare(&key, l).is_lt())
                || upper.is_some_and(|u| o.compare(&key, u).is_ge())
            {
                continue;
            }
            versions.sort_by_key(|v| std::cmp::Reverse(v.0));
            let tomb = self
                .tombstones
                .iter()
                .filter(|t| t.seq <= snapshot && t.contains(o, &key))
                .map(|t| t.seq)
                .max();
            let mut operands = Vec::new();
            let mut base = None;
            for (seq, kind, v) in versions {
                if tomb.is_some_and(|t| t > seq) {
                    break;
                }
                match kind {
                    ValueKind::Put => {
                        base = Some(v);
                        break;
                    }
                    ValueKind::Merge => operands.push(v),
                    _ => break,
                }
            }
            let value = if operands.is_empty() {
                base
            } else {
                let mut parts: Vec<Vec<u8>> = base.into_iter().collect();
                parts.extend(operands.into_iter().rev());
                Some(parts.join(&b","[..]))
            };
            if let Some(v) = value {
                out.push((key, v));
            }
        }
        out.sort_by(|a, b| o.compare(&a.0, &b.0));
        out
    }

    /// Sources: the entries spread over two memtables and two tables (by sequence number, so
    /// that a key's versions are spread too); the range deletions in the first memtable.
    fn sources(&self) -> (Vec<Arc<MemTable>>, Vec<Arc<Table>>) {
        let parts = split(&self.entries, 4, |i| {
            let p = ParsedKey::parse(&self.entries[i].0).expect("parse");
            (p.seq as usize * 7) % 11
        });
        let o = &self.order;
        let mems = vec![
            memtable(MemTableRep::SkipList, &parts[0], o),
            memtable(MemTableRep::SkipList, &parts[1], o),
        ];
        for t in &self.tombstones {
            mems[0]
                .add(t.seq, ValueKind::RangeDelete, &t.begin, &t.end)
                .expect("range delete");
        }
        let fs = MemFs::new();
        let tables = vec![
            build_table(&fs, "/a.sst", &parts[2], o),
            build_table(&fs, "/b.sst", &parts[3], o),
        ];
        (mems, tables)
    }

    fn factory(&self, opts: DbIterOptions) -> impl Fn() -> BoxedIterator {
        let (mems, tables) = self.sources();
        let order = self.order.clone();
        let range_dels = Arc::new(
            RangeDelSet::read_from(&mut mems[0].range_tombstone_iter(), order.clone())
                .expect("tombstones"),
        );
        let opts = DbIterOptions {
            comparator: order.clone(),
            ..opts
        };
        move || {
            let mut children: Vec<BoxedIterator> = Vec::new();
            for m in &mems {
                children.push(Box::new(m.iter()));
            }
            for t in &tables {
                children.push(Box::new(t.iter()));
            }
            let inner = Box::new(MergingIterator::new(children, order.clone()));
            Box::new(DbIterator::new(
                inner,
                Arc::clone(&range_dels),
                opts.clone(),
            )) as BoxedIterator
        }
    }

    fn max_seq(&self) -> SequenceNumber {
        self.writes.len() as u64
    }
}

fn user_probes(keys: u8) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(), b"a".to_vec(), b"zz".to_vec(), b"\xff".to_vec()];
    for n in 0..=keys {
        let k = ukey(n);
        let mut absent = k.clone();
        absent.push(b'!');
        out.push(k[..2].to_vec());
        out.push(absent);
        out.push(k);
    }
    out
}

fn db_options(
    snapshot: SequenceNumber,
    lower: Option<&[u8]>,
    upper: Option<&[u8]>,
) -> DbIterOptions {
    DbIterOptions {
        snapshot,
        lower_bound: lower.map(<[u8]>::to_vec),
        upper_bound: upper.map(<[u8]>::to_vec),
        merge_operator: Some(Arc::new(StringAppendOperator::new(b","))),
        ..DbIterOptions::default()
    }
}

/// Checks the user iterator over `db` at several snapshots and bounds.
fn conform_db(db: &Db, keys: u8, ops: &[Op]) {
    let probes = user_probes(keys);
    let max = db.max_seq();
    let (lo, hi) = (b"ab".to_vec(), ukey(keys / 2));
    let (lo, hi) = if db.order.is_bytewise() {
        (lo, hi)
    } else {
        (hi, lo)
    };
    let bounds: [Bounds; 4] = [
        (None, None),
        (Some(ukey(keys / 4)), None),
        (None, Some(ukey(keys * 3 / 4))),
        (Some(lo), Some(hi)),
    ];
    let order = db.order.clone();
    let cmp = |a: &[u8], b: &[u8]| order.compare(a, b);
    for snapshot in [MAX_SEQUENCE, max, max / 2, max / 4, 0] {
        for (lo, hi) in &bounds {
            let (lo, hi) = (lo.as_deref(), hi.as_deref());
            let model = db.resolve(snapshot, lo, hi);
            let make = db.factory(db_options(snapshot, lo, hi));
            let name = format!("DbIterator({order:?}, snapshot {snapshot}, bounds {lo:?}..{hi:?})");
            conform(&name, &make, &model, &cmp, &probes);
            conform_ops(&name, &make, &model, &cmp, &probes, ops);
        }
    }
}

#[test]
fn db_iterator_resolves_versions() {
    use Write::*;
    let writes = vec![
        Put(0, 1),
        Put(1, 2),
        Merge(1, 3),
        Merge(2, 4),
        Delete(0),
        Put(3, 5),
        DeleteRange(2, 5),
        Merge(3, 6),
        Put(4, 7),
        SingleDelete(4),
        Merge(5, 8),
        Put(5, 9),
        Merge(5, 10),
        Put(0, 11),
    ];
    let db = Db::new(writes.clone(), KeyOrder::BYTEWISE);
    let model = db.resolve(MAX_SEQUENCE, None, None);
    let keys: Vec<Vec<u8>> = model.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(keys, [ukey(0), ukey(1), ukey(3), ukey(5)], "model sanity");
    assert_eq!(model[1].1, b"p2,m3");
    assert_eq!(model[2].1, b"m6", "merge over a range-deleted base");
    assert_eq!(model[3].1, b"p9,m10");
    let ops = [Op::SeekToLast, Op::Prev, Op::Next, Op::Next, Op::Prev];
    conform_db(&db, 6, &ops);
    // Descending: the same answers in the opposite order; the range deletion `DeleteRange(2, 5)`
    // becomes [k5, k2), which spares k2 and deletes k5's older versions instead.
    let db = Db::new(writes, KeyOrder::REVERSE_BYTEWISE);
    let model = db.resolve(MAX_SEQUENCE, None, None);
    let keys: Vec<Vec<u8>> = model.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(
        keys,
        [ukey(5), ukey(3), ukey(2), ukey(1), ukey(0)],
        "model sanity"
    );
    assert_eq!(model[0].1, b"p9,m10");
    assert_eq!(model[2].1, b"m4");
    conform_db(&db, 6, &ops);
}

#[test]
fn db_iterator_over_many_versions() {
    // Many versions per key, spread over all sources, with merges stacked on every key.
    let writes: Vec<Write> = (0..600u32)
        .map(|i| {
            let k = ((i * 37) % 23) as u8;
            match i % 9 {
                0 => Write::Delete(k),
                1 | 4 | 6 => Write::Merge(k, i as u16),
                8 if i % 5 == 0 => Write::DeleteRange(k, k.saturating_add(3).min(23)),
                _ => Write::Put(k, i as u16),
            }
        })
        .collect();
    for order in ORDERS {
        conform_db(&Db::new(writes.clone(), order), 24, &[]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn db_iterator_conforms_on_random_histories(
        writes in prop::collection::vec(write_strategy(16), 0..60),
        ops in prop::collection::vec(op_strategy(), 1..60),
        reverse: bool,
    ) {
        conform_db(&Db::new(writes, order_of(reverse)), 16, &ops);
    }
}

/// Prefix mode: after a seek, exactly the keys of the target's prefix, in both directions.
#[test]
fn db_iterator_prefix_mode() {
    let writes: Vec<Write> = (0..48u8)
        .map(|i| match i % 6 {
            5 => Write::Delete(i / 2),
            3 => Write::Merge(i / 2, u16::from(i)),
            _ => Write::Put(i / 2, u16::from(i)),
        })
        .collect();
    let db = Db::new(writes, KeyOrder::BYTEWISE);
    let model = db.resolve(MAX_SEQUENCE, None, None);
    let extractor = Arc::new(FixedPrefix::new(2));
    let opts = DbIterOptions {
        prefix_same_as_start: true,
        prefix_extractor: Some(extractor),
        ..db_options(MAX_SEQUENCE, None, None)
    };
    let make = db.factory(opts.clone());
    let mut it = make();
    for t in user_probes(24) {
        let same = |k: &[u8]| t.len() < 2 || (k.len() >= 2 && k[..2] == t[..2]);
        let forward: Vec<_> = model
            .iter()
            .filter(|(k, _)| k.as_slice() >= t.as_slice() && same(k))
            .cloned()
            .collect();
        it.seek(&t);
        let got = drain(&mut *it, true);
        assert_eq!(got, forward, "seek {t:?} in prefix mode");
        let backward: Vec<_> = model
            .iter()
            .rev()
            .filter(|(k, _)| k.as_slice() <= t.as_slice() && same(k))
            .cloned()
            .collect();
        it.seek_for_prev(&t);
        assert_eq!(
            drain(&mut *it, false),
            backward,
            "seek_for_prev {t:?} in prefix mode"
        );
        // A direction change inside the prefix stays inside it.
        it.seek(&t);
        if it.valid() {
            it.next();
            if it.valid() {
                it.prev();
                assert_eq!(it.key(), forward[0].0.as_slice());
            }
        }
    }
    it.seek_to_first();
    let first_prefix = model[0].0[..2].to_vec();
    let want: Vec<_> = model
        .iter()
        .filter(|(k, _)| k[..2] == first_prefix[..])
        .cloned()
        .collect();
    assert_eq!(
        drain(&mut *it, true),
        want,
        "seek_to_first keeps the first key's prefix"
    );

    // total_order_seek overrides prefix mode.
    let make = db.factory(DbIterOptions {
        total_order_seek: true,
        ..opts
    });
    let mut it = make();
    it.seek(b"ab");
    let want: Vec<_> = model
        .iter()
        .filter(|(k, _)| k.as_slice() >= &b"ab"[..])
        .cloned()
        .collect();
    assert_eq!(drain(&mut *it, true), want);
}

/// Collects entries until the end, forwards or backwards; asserts no error.
fn drain(it: &mut dyn InternalIterator, forward: bool) -> Model {
    let mut out = Model::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        if forward {
            it.next();
        } else {
            it.prev();
        }
    }
    it.status().expect("no error");
    out
}

#[test]
fn db_iterator_merge_without_operator_is_an_error() {
    let db = Db::new(
        vec![Write::Put(0, 1), Write::Merge(1, 2), Write::Put(2, 3)],
        KeyOrder::BYTEWISE,
    );
    let make = db.factory(DbIterOptions::default());
    let mut it = make();
    it.seek_to_first();
    assert_eq!(it.key(), ukey(0).as_slice());
    it.next();
    assert!(!it.valid());
    assert!(matches!(it.status(), Err(Error::InvalidArgument(_))));
    it.seek_to_last();
    assert_eq!(it.key(), ukey(2).as_slice());
    it.prev();
    assert!(!it.valid() && it.status().is_err(), "reverse meets it too");
    it.seek(&ukey(2));
    assert!(
        it.valid() && it.status().is_ok(),
        "positioning clears the error"
    );
}

// ---------------------------------------------------------------------------------------------
// Error injection.

/// Wraps an iterator and fails (invalid, Corruption in `status()`) from its `fail_at`-th call on.
struct Failing {
    inner: BoxedIterator,
    calls: usize,
    fail_at: usize,
}

impl Failing {
    fn tick(&mut self) {
        self.calls += 1;
    }
    fn failed(&self) -> bool {
        self.calls >= self.fail_at
    }
}

impl InternalIterator for Failing {
    fn valid(&self) -> bool {
        !self.failed() && self.inner.valid()
    }
    fn seek_to_first(&mut self) {
        self.tick();
        self.inner.seek_to_first();
    }
    fn seek_to_last(&mut self) {
        self.tick();
        self.inner.seek_to_last();
    }
    fn seek(&mut self, t: &[u8]) {
        self.tick();
        self.inner.seek(t);
    }
    fn seek_for_prev(&mut self, t: &[u8]) {
        self.tick();
        self.inner.seek_for_prev(t);
    }
    fn next(&mut self) {
        self.tick();
        self.inner.next();
    }
    fn prev(&mut self) {
        self.tick();
        self.inner.prev();
    }
    fn key(&self) -> &[u8] {
        self.inner.key()
    }
    fn value(&self) -> &[u8] {
        self.inner.value()
    }
    fn status(&self) -> cairndb::Result<()> {
        if self.failed() {
            Err(Error::corruption("/injected.sst", 42, "injected failure"))
        } else {
            self.inner.status()
        }
    }
}

/// Scans `it` in one direction: every entry returned must match the model in order, and the
/// scan must end with the injected error (never a clean end).
fn scan_until_error(it: &mut dyn InternalIterator, model: &Model, forward: bool, what: &str) {
    let expected: Vec<&(Vec<u8>, Vec<u8>)> = if forward {
        model.iter().collect()
    } else {
        model.iter().rev().collect()
    };
    let mut n = 0;
    while it.valid() {
        assert!(n < expected.len(), "{what}: extra entry");
        assert_eq!(it.key(), expected[n].0.as_slice(), "{what}: key {n}");
        assert_eq!(it.value(), expected[n].1.as_slice(), "{what}: value {n}");
        n += 1;
        if forward {
            it.next();
        } else {
            it.prev();
        }
    }
    let e = it.status().expect_err(&format!(
        "{what}: the failure must surface, saw {n} entries"
    ));
    assert!(e.is_corruption(), "{what}: {e}");
}

#[test]
fn merging_and_db_iterators_surface_a_failing_child() {
    let db = Db::new(
        (0..80u32)
            .map(|i| match i % 4 {
                3 => Write::Merge((i % 13) as u8, i as u16),
                _ => Write::Put((i % 13) as u8, i as u16),
            })
            .collect(),
        KeyOrder::BYTEWISE,
    );
    let internal = db.entries.clone();
    let user = db.resolve(MAX_SEQUENCE, None, None);
    let (mems, tables) = db.sources();
    let children = |fail_at: usize| -> Vec<BoxedIterator> {
        vec![
            Box::new(mems[0].iter()),
            Box::new(mems[1].iter()),
            Box::new(tables[0].iter()),
            Box::new(Failing {
                inner: Box::new(tables[1].iter()),
                calls: 0,
                fail_at,
            }),
        ]
    };
    // A one-way scan makes 1 + (entries) calls on the failing child: fail at each of them.
    let mut probe = tables[1].iter();
    let calls = drain(&mut probe, true).len() + 1;
    for fail_at in 1..=calls {
        for forward in [true, false] {
            let what = format!("fail at call {fail_at}, forward {forward}");
            let mut m = MergingIterator::new(children(fail_at), KeyOrder::BYTEWISE);
            if forward {
                m.seek_to_first();
            } else {
                m.seek_to_last();
            }
            scan_until_error(&mut m, &internal, forward, &format!("merging, {what}"));

            let inner = Box::new(MergingIterator::new(children(fail_at), KeyOrder::BYTEWISE));
            let mut d = DbIterator::new(
                inner,
                Arc::new(RangeDelSet::default()),
                db_options(MAX_SEQUENCE, None, None),
            );
            if forward {
                d.seek_to_first();
            } else {
                d.seek_to_last();
            }
            scan_until_error(&mut d, &user, forward, &format!("db, {what}"));
        }
    }
}

#[test]
fn corrupted_table_block_read_stops_the_db_iterator() {
    let db = Db::new(
        (0..120u32)
            .map(|i| Write::Put((i % 40) as u8, i as u16))
            .collect(),
        KeyOrder::BYTEWISE,
    );
    let user = db.resolve(MAX_SEQUENCE, None, None);
    let mem = MemFs::new();
    build_table(&mem, "/c.sst", &db.entries, &KeyOrder::BYTEWISE);
    for k in 1..6 {
        for forward in [true, false] {
            let fault = FaultFs::new(Arc::new(mem.clone()), 7);
            let table = open_table(&fault, Path::new("/c.sst"), &KeyOrder::BYTEWISE);
            // Corrupt the k-th data block read after open: the checksum must catch it.
            fault.add_rule(FaultRule::nth(OpKind::Read, k, FaultKind::CorruptRead));
            let inner = Box::new(MergingIterator::new(
                vec![Box::new(table.iter())],
                KeyOrder::BYTEWISE,
            ));
            let mut d = DbIterator::new(
                inner,
                Arc::new(RangeDelSet::default()),
                db_options(MAX_SEQUENCE, None, None),
            );
            if forward {
                d.seek_to_first();
            } else {
                d.seek_to_last();
            }
            scan_until_error(
                &mut d,
                &user,
                forward,
                &format!("corrupt read {k}, forward {forward}"),
            );
            let e = d.status().expect_err("error");
            assert_eq!(
                e.as_corruption().map(|c| c.file.clone()),
                Some(Path::new("/c.sst").to_path_buf()),
                "the error names the table"
            );
        }
    }
}

#[test]
fn level_iterator_stops_at_a_table_that_fails_to_open() {
    let model = large_internal_model(&KeyOrder::BYTEWISE);
    let (files, opener) = level_of(&model, &KeyOrder::BYTEWISE, 4, vec![3]);
    let per = model.len().div_ceil(4);
    for forward in [true, false] {
        let mut it = LevelIterator::new(Arc::clone(&files), opener.clone(), KeyOrder::BYTEWISE);
        if forward {
            it.seek_to_first();
        } else {
            it.seek_to_last();
        }
        let mut n = 0;
        while it.valid() {
            it.key();
            n += 1;
            if forward {
                it.next();
            } else {
                it.prev();
            }
        }
        let e = it.status().expect_err("open failure surfaces");
        assert!(e.is_corruption(), "{e}");
        assert_eq!(
            n,
            if forward {
                2 * per
            } else {
                model.len() - 3 * per
            }
        );
        // A seek into a readable file works again; one into the broken file fails.
        it.seek(&model[0].0);
        assert!(it.valid() && it.status().is_ok());
        it.seek(&model[2 * per].0);
        assert!(!it.valid() && it.status().is_err());
    }
}
