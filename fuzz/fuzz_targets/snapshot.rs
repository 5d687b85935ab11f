//! Fuzz target `snapshot`: each input goes to `codegraph_tui::fuzzing::snapshot` (what it
//! exercises and how the input is laid out is documented there).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = codegraph_tui::fuzzing::snapshot(data);
    });
}
