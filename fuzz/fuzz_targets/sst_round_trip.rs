//! Arbitrary sorted entries and range tombstones, built into a table under options chosen by the
//! input, read back equal: full scans both ways, the tombstones (sorted, merged, empty ranges
//! dropped), the key range, a lookup of every key through `get`, `get_pinned` and `multi_get`.
#![no_main]

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{Table, TableBuilder, TableEntry, TableOptions};
use cairndb::types::{
    make_internal_key, range_deletion_sentinel, seek_key, user_key, RangeTombstone, ValueKind,
    MAX_SEQUENCE,
};
use cairndb::util::checksum::ChecksumType;
use cairndb::CompressionType;
use libfuzzer_sys::fuzz_target;

type Entries = Vec<(Vec<u8>, Vec<u8>)>;
/// `(begin, end, seq)` in the order the input gives them; `begin > end` ones are rejected.
type Tombs = Vec<(Vec<u8>, Vec<u8>, u64)>;

/// Options from the first 4 bytes, entries from the rest: `[key_len, key.., value_len, value..,
/// seq, kind]` repeated. Kind 4 (mod 5) is a range tombstone `[key, value)`.
fn decode(data: &[u8]) -> Option<(TableOptions, Entries, Tombs)> {
    let (head, mut rest) = data.split_first_chunk::<4>()?;
    let opts = TableOptions {
        block_size: 16 << (head[0] % 10),
        block_restart_interval: usize::from(head[1] % 32) + 1,
        index_block_restart_interval: usize::from(head[1] / 32 % 4) + 1,
        compression: [
            CompressionType::None,
            CompressionType::Lz4,
            CompressionType::Zstd,
            CompressionType::Snappy,
        ][usize::from(head[2] % 4)],
        checksum: if head[2] & 4 == 0 {
            ChecksumType::Xxh3
        } else {
            ChecksumType::Crc32c
        },
        bloom_bits_per_key: f64::from(head[3] % 20),
        ..TableOptions::default()
    };
    let mut entries = Vec::new();
    let mut tombs = Vec::new();
    while let Some((&klen, r)) = rest.split_first() {
        let (key, r) = r.split_at_checked(usize::from(klen % 24))?;
        let (&vlen, r) = r.split_first()?;
        let (value, r) = r.split_at_checked(usize::from(vlen))?;
        let (&[seq, kind], r) = r.split_first_chunk::<2>()?;
        let seq = u64::from(seq);
        match kind % 5 {
            4 => tombs.push((key.to_vec(), value.to_vec(), seq)),
            k => {
                let kind = [
                    ValueKind::Put,
                    ValueKind::Delete,
                    ValueKind::Merge,
                    ValueKind::SingleDelete,
                ][usize::from(k)];
                entries.push((make_internal_key(key, seq, kind), value.to_vec()));
            }
        }
        rest = r;
    }
    entries.sort_by(|a, b| cairndb::KeyOrder::BYTEWISE.compare_internal(&a.0, &b.0));
    entries.dedup_by(|a, b| a.0 == b.0);
    Some((opts, entries, tombs))
}

/// The tombstones a table must return: valid ones, sorted by (begin, newest first), empty ranges
/// dropped, equal (begin, seq) merged to the larger end.
fn expected_tombstones(tombs: &Tombs) -> Vec<RangeTombstone> {
    let mut m: BTreeMap<(Vec<u8>, Reverse<u64>), Vec<u8>> = BTreeMap::new();
    for (b, e, s) in tombs.iter().filter(|(b, e, _)| b < e) {
        let end = m.entry((b.clone(), Reverse(*s))).or_default();
        if e > end {
            *end = e.clone();
        }
    }
    m.into_iter()
        .map(|((begin, Reverse(seq)), end)| RangeTombstone { begin, end, seq })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((opts, entries, tombs)) = decode(data) else {
        return;
    };
    let fs = MemFs::new();
    let path = Path::new("/rt.sst");
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, &opts).expect("builder");
    // Tombstone j goes in after point entry j (any interleaving is allowed).
    let mut pending = tombs.iter().enumerate().peekable();
    for i in 0..=entries.len() {
        while let Some((_, (begin, end, seq))) = pending.next_if(|(j, _)| *j <= i) {
            let r = b.add_range_deletion(begin, end, *seq);
            assert_eq!(r.is_ok(), begin <= end, "{r:?}");
        }
        if let Some((k, v)) = entries.get(i) {
            b.add(k, v).expect("add");
        }
    }
    for (_, (begin, end, seq)) in pending {
        let r = b.add_range_deletion(begin, end, *seq);
        assert_eq!(r.is_ok(), begin <= end, "{r:?}");
    }
    let built = b.finish().expect("finish");
    let want_tombs = expected_tombstones(&tombs);
    assert_eq!(
        built.properties.num_entries,
        (entries.len() + want_tombs.len()) as u64
    );
    // The key range covers every point key and every tombstone from begin key to end sentinel.
    let mut all: Vec<Vec<u8>> = entries.iter().map(|(k, _)| k.clone()).collect();
    for t in &want_tombs {
        all.push(t.begin_key());
        all.push(range_deletion_sentinel(&t.end));
    }
    all.sort_by(|a, b| cairndb::KeyOrder::BYTEWISE.compare_internal(a, b));
    assert_eq!(built.smallest(), all.first().map(Vec::as_slice));
    assert_eq!(built.largest(), all.last().map(Vec::as_slice));

    let file = fs.open_read(path).expect("open");
    let table = Arc::new(Table::open(file, path, built.file_size, &opts).expect("table"));
    table.verify_checksums().expect("verify");
    assert_eq!(&table.range_deletions()[..], &want_tombs[..]);
    let mut it = table.iter();
    let mut i = 0;
    it.seek_to_first();
    while it.valid() {
        assert_eq!(
            (it.key(), it.value()),
            (&entries[i].0[..], &entries[i].1[..])
        );
        i += 1;
        it.next();
    }
    assert_eq!(i, entries.len());
    it.seek_to_last();
    while it.valid() {
        i -= 1;
        assert_eq!(it.key(), &entries[i].0[..]);
        it.prev();
    }
    assert_eq!(i, 0);
    // The model's answer to a lookup of `user_key` at `snapshot`: the first entry at or after
    // the seek key, if it has that user key (with equal sequence numbers, the larger kind).
    let model_get = |k: &[u8], snapshot: u64| {
        let target = seek_key(k, snapshot);
        entries
            .iter()
            .find(|(e, _)| {
                cairndb::KeyOrder::BYTEWISE
                    .compare_internal(e, &target)
                    .is_ge()
            })
            .filter(|(e, _)| user_key(e) == k)
            .cloned()
    };
    let view = |g: &Option<cairndb::sstable::TableGet>| {
        g.as_ref().map(|g| (g.key().to_vec(), g.value().to_vec()))
    };
    for (k, v) in &entries {
        let got = table.get(k).expect("get");
        assert_eq!(
            got,
            Some(TableEntry {
                key: k.clone(),
                value: v.clone()
            })
        );
        let seq = cairndb::types::trailer(k) >> 8;
        let pinned = table.get_pinned(user_key(k), seq).expect("get_pinned");
        assert!(pinned.is_some());
        assert_eq!(view(&pinned), model_get(user_key(k), seq));
    }
    // Every user key (and a few absent ones) at two snapshots, batched and one by one.
    let mut keys: Vec<&[u8]> = entries.iter().map(|(k, _)| user_key(k)).collect();
    keys.extend(tombs.iter().map(|(b, _, _)| b.as_slice()));
    for snapshot in [MAX_SEQUENCE, u64::from(data[0])] {
        let batch = table.multi_get(&keys, snapshot);
        for (k, got) in keys.iter().zip(batch) {
            let got = got.expect("multi_get");
            let single = table.get_pinned(k, snapshot).expect("get_pinned");
            assert_eq!(view(&got), view(&single));
            assert_eq!(view(&single), model_get(k, snapshot));
        }
    }
});
