//! An error an iterator keeps after it stopped, so that every later `status()` call can return
//! it again (contract 5 of [`crate::iter`]): [`Error`] is not `Clone` because `std::io::Error`
//! is not.
//!
//! Used by the iterators of this module from their own thread only. Invariant: the copy has the
//! same variant, context chain, corruption details, I/O operation, path and OS error code (or
//! kind and message) as the original, so `is_corruption`, `is_io` and `raw_os_error` answer the
//! same for both.

use crate::error::Error;

/// An error that can be handed out any number of times.
#[derive(Debug)]
pub(crate) struct StoredError(Error);

impl StoredError {
    pub(crate) fn new(e: Error) -> Self {
        StoredError(e)
    }

    /// A copy of the stored error.
    pub(crate) fn get(&self) -> Error {
        copy(&self.0)
    }
}

/// Rebuilds `e` variant by variant. The match is exhaustive (the enum is ours), so a new variant
/// cannot be forgotten here.
fn copy(e: &Error) -> Error {
    match e {
        Error::Io { op, path, source } => {
            let source = match source.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(source.kind(), source.to_string()),
            };
            Error::Io {
                op,
                path: path.clone(),
                source,
            }
        }
        Error::Corruption(c) => Error::Corruption(c.clone()),
        Error::InvalidArgument(s) => Error::InvalidArgument(s.clone()),
        Error::NotSupported(s) => Error::NotSupported(s.clone()),
        Error::NotFound(s) => Error::NotFound(s.clone()),
        Error::Busy(s) => Error::Busy(s.clone()),
        Error::Poisoned(s) => Error::Poisoned(s.clone()),
        Error::Closed => Error::Closed,
        Error::Context { context, source } => copy(source).context(context.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_keep_their_kind() {
        let io = Error::io(
            "read",
            "/x.sst",
            std::io::Error::from_raw_os_error(libc::EIO),
        )
        .context("iterating");
        let s = StoredError::new(io);
        assert!(s.get().is_io());
        assert_eq!(s.get().raw_os_error(), Some(libc::EIO));
        let c = StoredError::new(Error::corruption("/x.sst", 9, "bad"));
        assert_eq!(c.get().as_corruption().map(|c| c.offset), Some(9));
    }
}
