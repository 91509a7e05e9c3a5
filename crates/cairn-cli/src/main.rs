//! The `cairn` command-line tool.

fn main() {
    println!("cairn: nothing here yet");
}
