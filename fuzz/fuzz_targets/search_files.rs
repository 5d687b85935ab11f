//! Fuzz target `search_files`: each input goes to `codegraph_tui::fuzzing::search_files` (what it
//! exercises and how the input is laid out is documented there).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        codegraph_tui::fuzzing::search_files(data);
    });
}
