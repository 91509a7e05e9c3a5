//! openraft's own storage test suite (`openraft::testing::Suite::test_all`, openraft 0.9.25),
//! run unchanged against CairnDB's log store and state machine.

use cairn_raft::{LogStore, NodeId, StateMachine, TypeConfig};
use openraft::testing::{StoreBuilder, Suite};
use openraft::StorageError;
use tempfile::TempDir;

struct Builder;

impl StoreBuilder<TypeConfig, LogStore, StateMachine, TempDir> for Builder {
    async fn build(&self) -> Result<(TempDir, LogStore, StateMachine), StorageError<NodeId>> {
        let dir = TempDir::new().expect("temp dir");
        let (log, sm) = cairn_raft::open(dir.path(), cairndb::options::Options::default())
            .expect("open the raft storage");
        Ok((dir, log, sm))
    }
}

#[test]
#[allow(clippy::result_large_err)]
fn openraft_storage_suite() -> Result<(), StorageError<NodeId>> {
    // Suite::test_all starts a runtime per case, so this is a plain #[test].
    Suite::test_all(Builder)
}
