//! Arbitrary bytes as an encoded version edit: decoding never panics; whatever decodes is valid,
//! re-encodes, and decodes again to the same edit.
#![no_main]

use cairndb::version::VersionEdit;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(edit) = VersionEdit::decode(data) {
        assert!(edit.validate().is_ok());
        let again = VersionEdit::decode(&edit.encoded()).expect("a re-encoded edit decodes");
        assert_eq!(again, edit);
    }
});
