//! Fuzz target `mcp`: each input is one protocol session with the MCP server, through
//! `codegraph_tui::fuzzing::mcp` (what it checks is documented there).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        codegraph_tui::fuzzing::mcp(data);
    });
}
