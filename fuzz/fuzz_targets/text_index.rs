//! Fuzz target `text_index`: each input goes to `codegraph_tui::fuzzing::text_index` (what it
//! exercises and how the input is laid out is documented there).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        codegraph_tui::fuzzing::text_index(data);
    });
}
