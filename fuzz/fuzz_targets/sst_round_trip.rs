//! Arbitrary sorted entries, built into a table under options chosen by the input, read back
//! equal: full scans both ways and a lookup of every key.
#![no_main]

use std::path::Path;
use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{Table, TableBuilder, TableEntry, TableOptions};
use cairndb::types::{compare_internal, make_internal_key, ValueKind};
use cairndb::util::checksum::ChecksumType;
use cairndb::CompressionType;
use libfuzzer_sys::fuzz_target;

/// Options from the first 4 bytes, entries from the rest: `[key_len, key.., value_len, value..,
/// seq, kind]` repeated.
fn decode(data: &[u8]) -> Option<(TableOptions, Vec<(Vec<u8>, Vec<u8>)>)> {
    let (head, mut rest) = data.split_first_chunk::<4>()?;
    let opts = TableOptions {
        block_size: 16 << (head[0] % 10),
        block_restart_interval: usize::from(head[1] % 32) + 1,
        index_block_restart_interval: usize::from(head[1] / 32 % 4) + 1,
        compression: [
            CompressionType::None,
            CompressionType::Lz4,
            CompressionType::Zstd,
        ][usize::from(head[2] % 3)],
        checksum: if head[2] & 4 == 0 {
            ChecksumType::Xxh3
        } else {
            ChecksumType::Crc32c
        },
        bloom_bits_per_key: f64::from(head[3] % 20),
        ..TableOptions::default()
    };
    let mut entries = Vec::new();
    while let Some((&klen, r)) = rest.split_first() {
        let (key, r) = r.split_at_checked(usize::from(klen % 24))?;
        let (&vlen, r) = r.split_first()?;
        let (value, r) = r.split_at_checked(usize::from(vlen))?;
        let (&[seq, kind], r) = r.split_first_chunk::<2>()?;
        let kind = [
            ValueKind::Put,
            ValueKind::Delete,
            ValueKind::Merge,
            ValueKind::SingleDelete,
        ][usize::from(kind % 4)];
        entries.push((make_internal_key(key, u64::from(seq), kind), value.to_vec()));
        rest = r;
    }
    entries.sort_by(|a, b| compare_internal(&a.0, &b.0));
    entries.dedup_by(|a, b| a.0 == b.0);
    Some((opts, entries))
}

fuzz_target!(|data: &[u8]| {
    let Some((opts, entries)) = decode(data) else {
        return;
    };
    let fs = MemFs::new();
    let path = Path::new("/rt.sst");
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, &opts).expect("builder");
    for (k, v) in &entries {
        b.add(k, v).expect("add");
    }
    let built = b.finish().expect("finish");
    let file = fs.open_read(path).expect("open");
    let table = Arc::new(Table::open(file, path, built.file_size, &opts).expect("table"));
    table.verify_checksums().expect("verify");
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
    for (k, v) in &entries {
        let got = table.get(k).expect("get");
        assert_eq!(
            got,
            Some(TableEntry {
                key: k.clone(),
                value: v.clone()
            })
        );
    }
});
