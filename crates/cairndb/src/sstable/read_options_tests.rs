//! Table tests of the per-read options `fill_cache` and `verify_checksums` (reader invariant
//! 5), split out of `tests.rs` (whose helpers they use).

use super::*;

/// Unverified reads (which never fill the cache, whatever `fill_cache` says).
const NO_VERIFY: BlockReadOptions = BlockReadOptions {
    fill_cache: true,
    verify_checksums: false,
};

/// `n` entries `k000000..` with values `value-<i>-...` (40 bytes), at sequence 1.
fn valued_model(n: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let mut v = format!("value-{i:06}-").into_bytes();
            v.resize(40, b'x');
            (
                make_internal_key(format!("k{i:06}").as_bytes(), 1, ValueKind::Put),
                v,
            )
        })
        .collect()
}

/// The whole file at `path`.
fn file_bytes(fs: &MemFs, path: &Path) -> Vec<u8> {
    let f = fs.open_read(path).expect("open");
    let mut buf = vec![0; f.size().expect("size") as usize];
    f.read_exact_at(0, &mut buf).expect("read");
    buf
}

#[test]
fn unverified_reads_return_value_damage_that_verified_reads_refuse() {
    let fs = MemFs::new();
    let path = Path::new("/v.sst");
    let model = valued_model(20);
    let opts = TableOptions {
        compression: CompressionType::None,
        ..TableOptions::default()
    };
    build_table(&fs, path, &model, &opts);
    let at = file_bytes(&fs, path)
        .windows(12)
        .position(|w| w == b"value-000007")
        .expect("value stored as is") as u64;
    fs.corrupt_byte(path, at + 6, |b| b ^ 0x01).expect("flip");
    let t = open_table(&fs, path, &opts).expect("open reads no data block");
    let key = user_key(&model[7].0);
    let e = t.get_pinned(key, MAX_SEQUENCE).expect_err("checksum");
    assert!(e.is_corruption(), "{e}");
    let got = t
        .get_pinned_with(key, MAX_SEQUENCE, NO_VERIFY)
        .expect("no checksum, valid structure")
        .expect("found");
    assert_eq!(
        &got.value()[..12],
        b"value-100007",
        "the flipped byte is returned"
    );
    let batch = t.multi_get_with(&[key], MAX_SEQUENCE, NO_VERIFY);
    let got = batch[0]
        .as_ref()
        .expect("multi_get")
        .as_ref()
        .expect("found");
    assert_eq!(&got.value()[..12], b"value-100007");
    assert!(t.multi_get(&[key], MAX_SEQUENCE)[0].is_err());
    let mut it = t.iter_with(NO_VERIFY);
    it.seek_to_first();
    assert!(it.valid());
    it.status().expect("no checksum error");
    let mut it = t.iter();
    it.seek_to_first();
    assert!(it.status().expect_err("verified").is_corruption());
}

#[test]
fn unverified_reads_never_panic_on_a_flip_anywhere_in_the_data_blocks() {
    let model = valued_model(60);
    for compression in [CompressionType::None, CompressionType::Lz4] {
        let fs = MemFs::new();
        let path = Path::new("/f.sst");
        let opts = TableOptions {
            compression,
            block_size: 512,
            ..TableOptions::default()
        };
        let built = build_table(&fs, path, &model, &opts);
        let data_end = built.properties.data_bytes;
        let keys: Vec<&[u8]> = model.iter().map(|(k, _)| user_key(k)).collect();
        let (mut corruption, mut wrong, mut right) = (0u64, 0u64, 0u64);
        for at in 0..data_end {
            fs.corrupt_byte(path, at, |b| b ^ 0x10).expect("flip");
            let t = open_table(&fs, path, &opts).expect("open reads no data block");
            for (i, k) in keys.iter().enumerate() {
                match t.get_pinned_with(k, MAX_SEQUENCE, NO_VERIFY) {
                    Err(e) => {
                        assert!(e.is_corruption(), "{compression:?} flip at {at}: {e}");
                        corruption += 1;
                    }
                    Ok(Some(g)) if g.value() == &model[i].1[..] => right += 1,
                    Ok(_) => wrong += 1,
                }
            }
            for r in t.multi_get_with(&keys, MAX_SEQUENCE, NO_VERIFY) {
                if let Err(e) = r {
                    assert!(e.is_corruption(), "{compression:?} flip at {at}: {e}");
                }
            }
            let mut it = t.iter_with(NO_VERIFY);
            it.seek_to_first();
            while it.valid() {
                it.next();
            }
            if let Err(e) = it.status() {
                assert!(e.is_corruption(), "{compression:?} flip at {at}: {e}");
            }
            fs.corrupt_byte(path, at, |b| b ^ 0x10).expect("restore");
        }
        println!("{compression:?}: {corruption} corruption, {wrong} wrong, {right} right");
        assert!(corruption > 0, "structural damage is reported");
        if compression == CompressionType::None {
            assert!(
                wrong > 0,
                "damage inside values reaches the reader unverified"
            );
        }
    }
}

#[test]
fn unverified_blocks_stay_out_of_the_cache() {
    let fs = MemFs::new();
    let path = Path::new("/c.sst");
    let model = valued_model(200);
    let (cache, opts) = cached_options(false);
    build_table(&fs, path, &model, &opts);
    let t = open_table(&fs, path, &opts).expect("open");
    let key = user_key(&model[5].0);
    let before = cache.stats();
    t.get_pinned_with(key, MAX_SEQUENCE, NO_VERIFY)
        .expect("get")
        .expect("found");
    assert_eq!(
        cache.stats().inserts,
        before.inserts,
        "not verified, not cached"
    );
    t.get_pinned(key, MAX_SEQUENCE)
        .expect("get")
        .expect("found");
    assert_eq!(
        cache.stats().inserts,
        before.inserts + 1,
        "verified, cached"
    );
}

#[test]
fn fill_cache_false_leaves_the_cache_alone_on_every_read_path() {
    let fs = MemFs::new();
    let path = Path::new("/n.sst");
    let model = valued_model(400);
    let (cache, opts) = cached_options(true);
    build_table(&fs, path, &model, &opts);
    let t = open_table(&fs, path, &opts).expect("open");
    // Opening put the index and filter in the cache; reads find them there.
    let keys: Vec<&[u8]> = model.iter().map(|(k, _)| user_key(k)).collect();
    let usage = cache.usage();
    let inserts = cache.stats().inserts;
    t.get_pinned_with(keys[3], MAX_SEQUENCE, BlockReadOptions::NO_FILL)
        .expect("get")
        .expect("found");
    for r in t.multi_get_with(&keys, MAX_SEQUENCE, BlockReadOptions::NO_FILL) {
        r.expect("multi_get").expect("found");
    }
    let mut it = t.iter_with(BlockReadOptions::NO_FILL);
    it.seek_to_first();
    while it.valid() {
        it.next();
    }
    it.status().expect("scan");
    assert_eq!(cache.stats().inserts, inserts, "nothing inserted");
    assert_eq!(cache.usage(), usage);
    t.get_pinned(keys[3], MAX_SEQUENCE)
        .expect("get")
        .expect("found");
    assert_eq!(
        cache.stats().inserts,
        inserts + 1,
        "a filling get inserts its block"
    );
}
