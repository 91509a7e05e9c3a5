//! Arbitrary bytes as an uncompressed entries block: parsing and iterating both ways and seeking
//! must never panic or hang, as plain bytes and as internal keys in both built-in orders.
#![no_main]

use cairndb::comparator::{EntryOrder, KeyOrder};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{Block, BlockIter, BlockKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let cmp = match selector % 3 {
        0 => EntryOrder::Bytewise,
        1 => EntryOrder::Internal(KeyOrder::BYTEWISE),
        _ => EntryOrder::Internal(KeyOrder::REVERSE_BYTEWISE),
    };
    // The seek target is the first few bytes after the selector; the block is the rest.
    let split = usize::from(selector / 3).min(rest.len()).min(16);
    let (target, block) = rest.split_at(split);
    let Ok(block) = Block::parse(block.to_vec(), BlockKind::Data) else {
        return;
    };
    let Ok(mut it) = BlockIter::new(block.into(), cmp) else {
        return;
    };
    // Crafted restart arrays may make the two directions see different entries; what matters is
    // that both end (every step advances) without a panic.
    it.seek_to_first();
    while it.valid() {
        it.next();
    }
    it.seek_to_last();
    while it.valid() {
        it.prev();
    }
    it.seek(target);
    if it.valid() {
        it.prev();
    }
    it.seek_for_prev(target);
    if it.valid() {
        it.next();
    }
    let _ = it.status();
});
