//! Arbitrary bytes as a write batch (a WAL record payload): decoding must never panic or allocate
//! without bound, and a batch that decodes must re-encode to exactly the same bytes when rebuilt
//! through the public API from its entries and its two-phase-commit marker (the encoding is
//! canonical, `docs/format/write_batch.md`).
#![no_main]

use cairndb::batch::WriteBatch;
use cairndb::ValueKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(batch) = WriteBatch::from_bytes(data.to_vec()) else {
        return;
    };
    let mut rebuilt = WriteBatch::new();
    for entry in batch.iter() {
        let e = entry.expect("a validated batch iterates without errors");
        let r = match e.kind {
            ValueKind::Put => rebuilt.put_cf(e.cf, e.key, e.value),
            ValueKind::Delete => rebuilt.delete_cf(e.cf, e.key),
            ValueKind::SingleDelete => rebuilt.single_delete_cf(e.cf, e.key),
            ValueKind::Merge => rebuilt.merge_cf(e.cf, e.key, e.value),
            ValueKind::RangeDelete => rebuilt.delete_range_cf(e.cf, e.key, e.value),
        };
        r.expect("a decoded entry is within the writing limits");
    }
    assert_eq!(rebuilt.count(), batch.count());
    if let Some((kind, xid)) = batch.marker() {
        rebuilt = WriteBatch::with_marker(kind, xid, &rebuilt).expect("a decoded marker is valid");
    }
    rebuilt.set_sequence(batch.sequence());
    assert_eq!(rebuilt.data(), data);
});
