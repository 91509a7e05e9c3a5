//! The block cache: sharded, charged in bytes, with pinning handles.
