//! A [`Subgraph`] written in the formats other tools read
//! (`docs/contracts.md#export-formats`): the subgraph JSON of `docs/contracts.md#subgraph1`
//! (schema file `assets/subgraph.schema.json`), Graphviz DOT, GraphML and Mermaid
//! `graph LR`.
//!
//! Every format carries the same nodes and edges; labels and ids are escaped by the
//! format's own rules, so quotes, angle brackets, backslashes, ampersands and any Unicode
//! survive a round trip. Control characters, which DOT, XML 1.0 and Mermaid cannot carry,
//! are written as visible escapes (`\x1b`), as in the terminal output.

use std::fmt::Write as _;

use super::graph::{Edge, Node, Relation, Subgraph};

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Subgraph JSON (`codegraph-tui/subgraph@1`, `docs/contracts.md#subgraph1`).
    Json,
    /// Graphviz DOT (`dot -Tsvg` renders it).
    Dot,
    /// GraphML 1.0 (XML).
    Graphml,
    /// Mermaid flowchart, `graph LR`.
    Mermaid,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 4] = [Format::Json, Format::Dot, Format::Graphml, Format::Mermaid];

    /// The name used on the command line (`json`, `dot`, `graphml`, `mermaid`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Dot => "dot",
            Format::Graphml => "graphml",
            Format::Mermaid => "mermaid",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Dot => "dot",
            Format::Graphml => "graphml",
            Format::Mermaid => "mmd",
        }
    }
}

/// Writes `sub` in `format`, ending with a newline.
pub fn render(sub: &Subgraph, format: Format) -> String {
    match format {
        Format::Json => to_json(sub),
        Format::Dot => to_dot(sub),
        Format::Graphml => to_graphml(sub),
        Format::Mermaid => to_mermaid(sub),
    }
}

/// The subgraph JSON, compact, byte-identical to `callers --json` for the same walk.
pub fn to_json(sub: &Subgraph) -> String {
    let mut s = serde_json::to_string(sub).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// Appends `c` as a visible escape when it is a control character; `true` if it was.
fn visible_control(out: &mut String, c: char) -> bool {
    if !c.is_control() {
        return false;
    }
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
    }
    true
}

/// A DOT double-quoted string body. In DOT only `\"` is an escape in a quoted id, and
/// labels are escString (`\\` is a backslash, `\n` a line break, `\N` the node name) with
/// HTML entities decoded, so `\` is doubled, `"` is `\"`, `&` is `&amp;`, and control
/// characters are shown (`\\x1b`). Graphviz then gives back the original text.
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '&' => out.push_str("&amp;"),
            c if c.is_control() => {
                let mut v = String::new();
                visible_control(&mut v, c);
                out.push_str(&v.replace('\\', "\\\\"));
            }
            c => out.push(c),
        }
    }
    out
}

fn node_label(n: &Node) -> (String, String) {
    (
        n.qualified_name.to_string(),
        format!("{}:{}", n.file, n.start_line),
    )
}

fn edge_label(e: &Edge) -> String {
    let tier = serde_json::to_value(e.resolution)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    format!("{} {} {}", e.relation.as_str(), tier, e.confidence)
}

/// Graphviz DOT. Node names are `n0`, `n1`, ... in id order: a DOT quoted id keeps
/// backslashes as written, so an id ending in `\` could not be quoted faithfully. The node
/// id is in `tooltip` and `cg_id` (escString, like the label); labels are the qualified
/// name and `file:line`; the root is bold; `references` edges are dashed.
pub fn to_dot(sub: &Subgraph) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "digraph \"codegraph\" {{\n  graph [rankdir=LR, label=\"{} of {} (depth {}{}{})\", labelloc=t];",
        sub.direction,
        dot_escape(&sub.root),
        sub.depth,
        if sub.truncated { ", truncated" } else { "" },
        if sub.unresolved > 0 {
            format!(", {} unresolved", sub.unresolved)
        } else {
            String::new()
        }
    );
    o.push_str("  node [shape=box, fontname=\"monospace\"];\n");
    let index: std::collections::HashMap<&str, usize> = sub
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (&*n.id, i))
        .collect();
    for (i, n) in sub.nodes.iter().enumerate() {
        let (a, b) = node_label(n);
        let bold = if *n.id == *sub.root {
            ", style=bold, penwidth=2"
        } else {
            ""
        };
        let id = dot_escape(&n.id);
        let _ = writeln!(
            o,
            "  n{i} [label=\"{}\\n{}\", tooltip=\"{id}\", cg_id=\"{id}\", kind=\"{}\"{bold}];",
            dot_escape(&a),
            dot_escape(&b),
            n.kind.as_str()
        );
    }
    for e in &sub.edges {
        let (Some(s), Some(t)) = (index.get(e.source.as_str()), index.get(e.target.as_str()))
        else {
            continue;
        };
        let style = if e.relation == Relation::References {
            ", style=dashed"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "  n{s} -> n{t} [label=\"{}\"{style}];",
            dot_escape(&edge_label(e))
        );
    }
    o.push_str("}\n");
    o
}

/// XML 1.0 text or attribute value: `& < > " '` as entities; control characters other
/// than tab, line feed and carriage return are not allowed in XML 1.0 even as character
/// references, so they are shown (`\x1b`); tab, LF and CR become character references so
/// attribute normalisation keeps them.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c if visible_control(&mut out, c) => {}
            c => out.push(c),
        }
    }
    out
}

/// GraphML keys: (id, for, attr.name, attr.type).
const GRAPHML_KEYS: &[(&str, &str, &str, &str)] = &[
    ("g_schema", "graph", "schema", "string"),
    ("g_root", "graph", "root", "string"),
    ("g_direction", "graph", "direction", "string"),
    ("g_depth", "graph", "depth", "int"),
    ("g_truncated", "graph", "truncated", "boolean"),
    ("g_unresolved", "graph", "unresolved", "int"),
    ("n_kind", "node", "kind", "string"),
    ("n_name", "node", "name", "string"),
    ("n_qualified_name", "node", "qualified_name", "string"),
    ("n_file", "node", "file", "string"),
    ("n_start_line", "node", "start_line", "int"),
    ("n_end_line", "node", "end_line", "int"),
    ("n_language", "node", "language", "string"),
    ("e_relation", "edge", "relation", "string"),
    ("e_resolution", "edge", "resolution", "string"),
    ("e_confidence", "edge", "confidence", "double"),
    ("e_sites", "edge", "sites", "string"),
];

/// GraphML 1.0: node ids are the graph's node ids; every node and edge field is a typed
/// `<data>` (`sites` is the JSON array of `docs/contracts.md#subgraph1`, as text).
pub fn to_graphml(sub: &Subgraph) -> String {
    let mut o = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns \
         http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n",
    );
    for (id, for_, name, ty) in GRAPHML_KEYS {
        let _ = writeln!(
            o,
            "  <key id=\"{id}\" for=\"{for_}\" attr.name=\"{name}\" attr.type=\"{ty}\"/>"
        );
    }
    o.push_str("  <graph id=\"G\" edgedefault=\"directed\">\n");
    let data = |o: &mut String, indent: &str, key: &str, v: &str| {
        let _ = writeln!(o, "{indent}<data key=\"{key}\">{}</data>", xml_escape(v));
    };
    data(&mut o, "    ", "g_schema", sub.schema);
    data(&mut o, "    ", "g_root", &sub.root);
    data(&mut o, "    ", "g_direction", &sub.direction);
    data(&mut o, "    ", "g_depth", &sub.depth.to_string());
    data(&mut o, "    ", "g_truncated", &sub.truncated.to_string());
    data(&mut o, "    ", "g_unresolved", &sub.unresolved.to_string());
    for n in &sub.nodes {
        let _ = writeln!(o, "    <node id=\"{}\">", xml_escape(&n.id));
        let i = "      ";
        data(&mut o, i, "n_kind", n.kind.as_str());
        data(&mut o, i, "n_name", &n.name);
        data(&mut o, i, "n_qualified_name", &n.qualified_name);
        data(&mut o, i, "n_file", &n.file);
        data(&mut o, i, "n_start_line", &n.start_line.to_string());
        data(&mut o, i, "n_end_line", &n.end_line.to_string());
        data(&mut o, i, "n_language", &n.language);
        o.push_str("    </node>\n");
    }
    for (k, e) in sub.edges.iter().enumerate() {
        let _ = writeln!(
            o,
            "    <edge id=\"e{k}\" source=\"{}\" target=\"{}\">",
            xml_escape(&e.source),
            xml_escape(&e.target)
        );
        let i = "      ";
        let tier = serde_json::to_value(e.resolution).unwrap_or_default();
        data(&mut o, i, "e_relation", e.relation.as_str());
        data(&mut o, i, "e_resolution", tier.as_str().unwrap_or(""));
        data(&mut o, i, "e_confidence", &e.confidence.to_string());
        let sites = serde_json::to_string(&e.sites).unwrap_or_else(|_| "[]".into());
        data(&mut o, i, "e_sites", &sites);
        o.push_str("    </edge>\n");
    }
    o.push_str("  </graph>\n</graphml>\n");
    o
}

/// Text inside a Mermaid `["..."]` label. Mermaid has no backslash escapes; it decodes
/// `#name;` and `#NNN;` entity codes, so `"` is `#quot;`, `#` is `#35;`, `&` `#amp;`,
/// `<` `#lt;`, `>` `#gt;` and a backquote `#96;` (it would start a markdown string);
/// control characters are shown (`\x1b`).
pub fn mermaid_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '`' => out.push_str("#96;"),
            c if visible_control(&mut out, c) => {}
            c => out.push(c),
        }
    }
    out
}

/// Mermaid `graph LR`: nodes are `n0`, `n1`, ... in id order (a `%% nK = id` comment
/// maps them back), labels are the qualified name and `file:line`, edge labels are the
/// relation, resolution and confidence (plain words, no escaping needed), the root has
/// class `root`, `references` edges are dotted.
pub fn to_mermaid(sub: &Subgraph) -> String {
    let mut o = String::from("graph LR\n");
    let _ = writeln!(
        o,
        "  %% {} {} of {}, depth {}{}",
        sub.schema,
        sub.direction,
        mermaid_escape(&sub.root),
        sub.depth,
        if sub.truncated { ", truncated" } else { "" }
    );
    let index: std::collections::HashMap<&str, usize> = sub
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (&*n.id, i))
        .collect();
    for (i, n) in sub.nodes.iter().enumerate() {
        let (a, b) = node_label(n);
        let _ = writeln!(o, "  %% n{i} = {}", mermaid_escape(&n.id));
        let _ = writeln!(
            o,
            "  n{i}[\"{}<br/>{}\"]",
            mermaid_escape(&a),
            mermaid_escape(&b)
        );
    }
    for e in &sub.edges {
        let (Some(s), Some(t)) = (index.get(e.source.as_str()), index.get(e.target.as_str()))
        else {
            continue;
        };
        let arrow = if e.relation == Relation::References {
            "-.->"
        } else {
            "-->"
        };
        let _ = writeln!(o, "  n{s} {arrow}|{}| n{t}", mermaid_escape(&edge_label(e)));
    }
    if let Some(r) = index.get(sub.root.as_str()) {
        let _ = writeln!(o, "  classDef root stroke-width:3px\n  class n{r} root");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_format() {
        let s = "a\"b<c>&d\\e`#f\u{1b}é";
        assert_eq!(dot_escape(s), "a\\\"b<c>&amp;d\\\\e`#f\\\\x1bé");
        assert_eq!(xml_escape(s), "a&quot;b&lt;c&gt;&amp;d\\e`#f\\x1bé");
        assert_eq!(
            mermaid_escape(s),
            "a#quot;b#lt;c#gt;#amp;d\\e#96;#35;f\\x1bé"
        );
    }
}
