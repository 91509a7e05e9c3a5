//! Golden bytes: the worked example of docs/format/sstable.md, section "Worked example", built
//! today must be byte-identical to the spec (all but the properties block, whose creation time
//! varies), and must read back.

use std::path::Path;
use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{Table, TableBuilder, TableEntry, TableOptions};
use cairndb::types::{
    make_internal_key, range_deletion_sentinel, RangeTombstone, ValueKind, MAX_SEQUENCE,
};
use cairndb::CompressionType;

/// Bytes 0..111: data block, index block and range-deletion block with trailers.
const DATA_INDEX_RANGE_DEL: &str = "00 0d 03 61 70 70 6c 65 02 07 00 00 00 00 00 00 72 65 64 \
    02 0d 00 72 69 63 6f 74 01 09 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 54 79 7a 39 \
    00 09 02 62 ff ff ff ff ff ff ff ff 00 2b 00 00 00 00 01 00 00 00 00 4c b2 2d 64 \
    00 0e 06 62 61 6e 61 6e 61 05 08 00 00 00 00 00 00 63 68 65 72 72 79 \
    00 00 00 00 01 00 00 00 00 0d 4c 17 5b";

/// Bytes 892..1012: metaindex block and footer.
const META_AND_FOOTER: &str = "00 12 03 72 6f 63 6b 73 64 62 2e 70 72 6f 70 65 72 74 69 65 73 6f 88 06 \
    00 11 02 72 6f 63 6b 73 64 62 2e 72 61 6e 67 65 5f 64 65 6c 4b 1f \
    00 00 00 00 18 00 00 00 02 00 00 00 00 0a d6 55 a6 \
    fc 06 3a 30 16 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
    02 02 00 00 00 f5 b9 a7 11 43 41 49 52 4e 53 53 54";

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("hex"))
        .collect()
}

#[test]
fn worked_example_matches_spec() {
    let fs = MemFs::new();
    let path = Path::new("/example.sst");
    let opts = TableOptions {
        compression: CompressionType::None,
        bloom_bits_per_key: 0.0,
        ..TableOptions::default()
    };
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, &opts).expect("builder");
    let apple = make_internal_key(b"apple", 7, ValueKind::Put);
    let apricot = make_internal_key(b"apricot", 9, ValueKind::Delete);
    b.add(&apple, b"red").expect("add");
    b.add_range_deletion(b"banana", b"cherry", 8)
        .expect("range deletion");
    b.add(&apricot, b"").expect("add");
    let built = b.finish().expect("finish");
    assert_eq!(built.file_size, 1012);
    assert_eq!(built.smallest(), Some(&apple[..]));
    assert_eq!(
        built.largest(),
        Some(&range_deletion_sentinel(b"cherry")[..])
    );
    let bytes = cairndb::fs::read_all(&fs, path).expect("read");
    assert_eq!(bytes[..111], hex(DATA_INDEX_RANGE_DEL)[..]);
    assert_eq!(bytes[892..], hex(META_AND_FOOTER)[..]);

    let file = fs.open_read(path).expect("open");
    let table = Arc::new(Table::open(file, path, 1012, &opts).expect("table"));
    table.verify_checksums().expect("verify");
    assert_eq!(
        table.get(&apple).expect("get"),
        Some(TableEntry {
            key: apple.clone(),
            value: b"red".to_vec()
        })
    );
    let found = table
        .get_pinned(b"apple", MAX_SEQUENCE)
        .expect("get_pinned")
        .expect("found");
    assert_eq!((found.key(), found.value()), (&apple[..], &b"red"[..]));
    assert_eq!(
        &table.range_deletions()[..],
        &[RangeTombstone::new(b"banana", b"cherry", 8)]
    );
    let mut it = table.iter();
    it.seek_to_last();
    assert_eq!(it.key(), &apricot[..], "the tombstone is not a point entry");
}
