//! Tests of the file-system implementations: the same behaviour from RealFs and MemFs, and the
//! fault and crash semantics of FaultFs and CrashFs.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::*;

fn exercise(fs: &dyn FileSystem, dir: &Path) {
    fs.create_dir_all(dir).expect("mkdir");
    let a = dir.join("a");
    let mut w = fs.create(&a).expect("create");
    w.append(b"hello ").expect("append");
    w.append(&vec![7u8; 100_000]).expect("append large");
    w.append(b"world").expect("append");
    assert_eq!(w.len(), 6 + 100_000 + 5);
    w.sync().expect("sync");
    drop(w);
    assert_eq!(fs.size(&a).expect("size"), 100_011);
    let r = fs.open_read(&a).expect("open");
    let mut buf = [0u8; 5];
    r.read_exact_at(100_006, &mut buf).expect("read");
    assert_eq!(&buf, b"world");
    assert!(
        r.read_exact_at(100_008, &mut buf).is_err(),
        "read past end fails"
    );
    r.advise(AccessPattern::Sequential).expect("advise");

    let mut w = fs.open_append(&a).expect("reopen");
    assert_eq!(w.len(), 100_011);
    w.append(b"!").expect("append");
    w.flush().expect("flush");
    drop(w);
    assert_eq!(fs.size(&a).expect("size"), 100_012);

    let b = dir.join("b");
    fs.rename(&a, &b).expect("rename");
    assert!(!fs.exists(&a).expect("exists"));
    assert!(fs.exists(&b).expect("exists"));
    fs.sync_dir(dir).expect("sync dir");
    fs.truncate(&b, 5).expect("truncate");
    assert_eq!(read_all(fs, &b).expect("read all"), b"hello");
    write_atomic(fs, &dir.join("CURRENT"), b"MANIFEST-000001\n").expect("atomic write");
    let mut names = fs.list(dir).expect("list");
    names.sort();
    assert_eq!(names, vec!["CURRENT".to_string(), "b".to_string()]);

    let lock = fs.lock(&dir.join("LOCK")).expect("lock");
    assert!(
        fs.lock(&dir.join("LOCK")).is_err_and(|e| e.is_lock_held()),
        "second lock fails"
    );
    drop(lock);
    drop(fs.lock(&dir.join("LOCK")).expect("relock after release"));
    fs.remove(&b).expect("remove");
    assert!(fs.open_read(&b).is_err());
}

#[test]
fn real_fs_behaves() {
    let tmp = tempfile::tempdir().expect("tempdir");
    exercise(&RealFs, &tmp.path().join("db"));
}

#[test]
fn mem_fs_behaves_like_real() {
    exercise(&MemFs::new(), Path::new("/db"));
}

#[test]
fn crash_keeps_only_synced_bytes_and_entries() {
    let fs = MemFs::new();
    let dir = PathBuf::from("/db");
    fs.create_dir_all(&dir).expect("mkdir");
    let mut f = fs.create(&dir.join("synced")).expect("create");
    f.append(b"durable").expect("append");
    f.sync().expect("sync");
    f.append(b" lost").expect("append");
    fs.sync_dir(&dir).expect("sync dir");
    let mut g = fs.create(&dir.join("unnamed")).expect("create");
    g.append(b"data").expect("append");
    g.sync().expect("sync data but not the name");

    let after = fs.crash_clone(CrashOptions::synced_only());
    assert_eq!(
        read_all(&after, &dir.join("synced")).expect("read"),
        b"durable"
    );
    assert!(
        !after.exists(&dir.join("unnamed")).expect("exists"),
        "entry never made durable"
    );

    // A rename that was not followed by sync_dir is undone by the crash.
    fs.rename(&dir.join("synced"), &dir.join("renamed"))
        .expect("rename");
    let after = fs.crash_clone(CrashOptions::synced_only());
    assert!(after.exists(&dir.join("synced")).expect("exists"));
    assert!(!after.exists(&dir.join("renamed")).expect("exists"));
    fs.sync_dir(&dir).expect("sync dir");
    let after = fs.crash_clone(CrashOptions::synced_only());
    assert!(!after.exists(&dir.join("synced")).expect("exists"));
    assert_eq!(
        read_all(&after, &dir.join("renamed")).expect("read"),
        b"durable"
    );
}

#[test]
fn random_crash_keeps_a_prefix_of_unsynced_data() {
    let fs = MemFs::new();
    let p = PathBuf::from("/f");
    let mut f = fs.create(&p).expect("create");
    f.append(b"0123456789").expect("append");
    f.sync().expect("sync");
    fs.sync_dir(Path::new("/")).expect("sync dir");
    f.append(b"abcdefghijklmnopqrstuvwxyz").expect("append");
    let mut saw_longer = false;
    for seed in 0..200 {
        let opts = CrashOptions {
            torn_tail_probability: 0.0,
            ..CrashOptions::random(seed)
        };
        let data = read_all(&fs.crash_clone(opts), &p).expect("read");
        assert!(data.len() >= 10 && b"0123456789abcdefghijklmnopqrstuvwxyz".starts_with(&data));
        saw_longer |= data.len() > 10;
    }
    assert!(saw_longer, "some clones keep unsynced bytes");
    // With torn tails the synced prefix still survives intact.
    for seed in 0..200 {
        let data = read_all(&fs.crash_clone(CrashOptions::random(seed)), &p).expect("read");
        assert_eq!(&data[..10], b"0123456789");
    }
}

#[test]
fn fault_fs_fails_the_nth_operation_and_counts() {
    let mem = MemFs::new();
    let fs = FaultFs::new(mem.shared(), 1);
    fs.add_rule(FaultRule::nth(OpKind::Sync, 2, FaultKind::Enospc));
    let mut f = fs.create(Path::new("/x")).expect("create");
    f.append(b"a").expect("append");
    f.sync().expect("first sync");
    let e = f.sync().expect_err("second sync fails");
    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    f.sync().expect("third sync");
    assert_eq!(fs.injected(), 1);
}

#[test]
fn fault_fs_path_filter_and_sticky_halt() {
    let mem = MemFs::new();
    let fs = FaultFs::new(mem.shared(), 1);
    fs.add_rule(FaultRule::random(&[OpKind::Create], 1.0, FaultKind::Eio).on_paths(".sst"));
    assert!(fs.create(Path::new("/1.sst")).is_err());
    assert!(fs.create(Path::new("/1.log")).is_ok());
    fs.clear_rules();
    fs.add_rule(FaultRule::halt_at_mutating(3));
    let mut f = fs.create(Path::new("/2.log")).expect("op 1");
    f.append(b"x").expect("op 2");
    assert!(f.sync().is_err(), "op 3 halts");
    assert!(f.append(b"y").is_err(), "everything after fails");
    assert!(fs.rename(Path::new("/2.log"), Path::new("/3.log")).is_err());
    assert!(
        fs.open_read(Path::new("/2.log")).is_ok(),
        "reads are not mutating"
    );
}

#[test]
fn fault_fs_corrupts_reads_silently() {
    let mem = MemFs::new();
    let fs = FaultFs::new(mem.shared(), 1);
    let mut f = fs.create(Path::new("/x")).expect("create");
    f.append(&[0u8; 64]).expect("append");
    drop(f);
    fs.add_rule(FaultRule::nth(OpKind::Read, 1, FaultKind::CorruptRead));
    let r = fs.open_read(Path::new("/x")).expect("open");
    let mut buf = [0u8; 64];
    r.read_exact_at(0, &mut buf).expect("read succeeds");
    assert_eq!(
        buf.iter().map(|b| b.count_ones()).sum::<u32>(),
        1,
        "one bit flipped"
    );
    r.read_exact_at(0, &mut buf).expect("read");
    assert_eq!(buf, [0u8; 64], "only the chosen read is damaged");
}

#[test]
fn shared_handles_work_across_threads() {
    let mem = MemFs::new();
    let fs: Arc<dyn FileSystem> = mem.shared();
    let mut f = fs.create(Path::new("/t")).expect("create");
    f.append(&[1u8; 4096]).expect("append");
    let r = fs.open_read(Path::new("/t")).expect("open");
    std::thread::scope(|s| {
        for _ in 0..4 {
            let r = r.clone();
            s.spawn(move || {
                let mut b = [0u8; 16];
                for off in 0..100 {
                    r.read_exact_at(off, &mut b).expect("read");
                    assert_eq!(b, [1u8; 16]);
                }
            });
        }
    });
}

/// A child process forked while a database is open holds copies of the parent's descriptors
/// until it execs. The directory lock must not travel with them: after the parent releases
/// it, the parent (or anyone) can take it again at once, even while the child still sits
/// between fork and exec. A `flock(2)` lock would still be held by the child's copy here.
#[test]
fn a_forked_child_does_not_hold_a_released_lock() {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("LOCK");
    let fs = RealFs::new();
    let lock = fs.lock(&path).expect("lock");

    // Two pipes: the child says "forked" on the first, then waits for "go" on the second
    // before it execs.
    let mut forked = [0; 2];
    let mut go = [0; 2];
    // SAFETY: each array has room for the two descriptors pipe writes.
    assert_eq!(unsafe { libc::pipe(forked.as_mut_ptr()) }, 0);
    // SAFETY: as above.
    assert_eq!(unsafe { libc::pipe(go.as_mut_ptr()) }, 0);
    let (forked_rd, forked_wr, go_rd, go_wr) = (forked[0], forked[1], go[0], go[1]);
    let mut command = std::process::Command::new("true");
    // SAFETY: the hook runs in the forked child before exec and calls only write and read,
    // which are async-signal-safe, on descriptors the child inherited.
    unsafe {
        command.pre_exec(move || {
            let byte = 1u8;
            libc::write(forked_wr, (&byte as *const u8).cast(), 1);
            let mut b = 0u8;
            libc::read(go_rd, (&mut b as *mut u8).cast(), 1);
            Ok(())
        });
    }
    // spawn returns only once the child has exec'd, so it runs on its own thread.
    let spawner = std::thread::spawn(move || command.spawn().expect("spawn").wait());
    // SAFETY: the read end is this test's own descriptor, owned by the File from here on.
    let mut signal = unsafe { std::fs::File::from_raw_fd(forked_rd) };
    let mut b = [0u8; 1];
    signal.read_exact(&mut b).expect("the child forked");

    drop(lock);
    let relocked = fs.lock(&path);
    // Let the child exec whatever happened, then check.
    // SAFETY: go_wr is this test's own open descriptor.
    unsafe {
        libc::write(go_wr, (&b[0] as *const u8).cast(), 1);
    }
    let status = spawner.join().expect("spawner").expect("wait");
    assert!(status.success());
    // SAFETY: the remaining pipe ends are this test's own and closed once.
    unsafe {
        libc::close(forked_wr);
        libc::close(go_rd);
        libc::close(go_wr);
    }
    let relocked = relocked.expect("the lock is free although a forked child has its descriptor");
    assert!(
        fs.lock(&path).is_err_and(|e| e.is_lock_held()),
        "a second lock in this process still fails"
    );
    drop(relocked);
}
