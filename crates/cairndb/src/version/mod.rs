//! Version edits, the MANIFEST log and the CURRENT protocol. See docs/format/manifest.md.
