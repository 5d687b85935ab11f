//! The tools' contract (`docs/contracts.md#mcp`): their names, descriptions, argument types
//! (whose JSON Schemas, derived by schemars, are the `inputSchema`s) and `outputSchema`s.
//!
//! Every result's `structuredContent` is the same envelope: `result`, the CLI's `--json`
//! document for the same question (subgraph@1, impact@1, paths@1, the `search` and
//! `symbols` objects) or the tool's own object (`source`, `outline`, `status`); `snapshot`,
//! which snapshot answered and whether it is current; and `truncated` / `omitted`, what the
//! tool's `limit` cut. The CLI's documents stay exactly as documented, so one parser reads
//! both.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Value};

/// Default `limit` of `search` and `symbols` (hits): about 60 tokens a hit.
pub const DEFAULT_HITS: usize = 50;
/// Default `limit` of `callers` and `callees` (nodes of the subgraph): a node with its
/// edge and site is about 100 tokens of JSON, so 150 keep an answer under ~20k tokens.
pub const DEFAULT_NODES: usize = 150;
/// Default `limit` of `impact`: most ids in each list (`by_depth` counts as one list).
pub const DEFAULT_IMPACT_IDS: usize = 200;
/// Default `limit` of `outline`: most definitions of a file, or most entries of a
/// folder.
pub const DEFAULT_OUTLINE: usize = 300;
/// Most lines `source` returns (about 12 tokens a line of code).
pub const MAX_SOURCE_LINES: usize = 1500;
/// Largest `limit` accepted by any tool; more would not fit an agent's context anyway.
pub const MAX_LIMIT: usize = 5000;

/// Ranking of `search`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum SearchMode {
    /// BM25 over chunk text.
    Text,
    /// Embedding similarity.
    Semantic,
    /// Both, fused by reciprocal rank; exact names first.
    #[default]
    Hybrid,
}

/// Arguments of `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words and "quoted phrases"; `path:`, `lang:` and `kind:` filters may be written
    /// inline too.
    pub query: String,
    /// Ranking (default hybrid).
    #[serde(default)]
    pub mode: SearchMode,
    /// Most hits (default 50).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<usize>,
    /// Only hits whose path contains this (repo-relative, `/`-separated).
    pub path: Option<String>,
    /// Only hits in this language (`rust`, `python`, ...).
    pub lang: Option<String>,
    /// Only hits of this kind (`function`, `method`, `class`, ..., `window`).
    pub kind: Option<String>,
}

/// Arguments of `symbols`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct SymbolsArgs {
    /// Fuzzy query over names and qualified names (smart case).
    pub query: String,
    /// Most hits (default 50).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<usize>,
}

/// Arguments of `callers` and `callees`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct WalkArgs {
    /// Node id, qualified name or bare name; exactly one definition must match.
    pub symbol: String,
    /// Hops to follow (default 1: direct callers or callees only).
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    /// Most nodes in the answer, the symbol included (default 150).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<usize>,
}

/// Arguments of `impact`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ImpactArgs {
    /// Node id, qualified name or bare name (exactly one match). Give this or `diff`.
    pub symbol: Option<String>,
    /// A git revision: the impact of the working tree's changes against it; `""` means
    /// the working tree against HEAD.
    pub diff: Option<String>,
    /// Caller hops to follow (default 5).
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    /// Most ids in each list of the answer (default 200).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<usize>,
}

/// Arguments of `path`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// The caller end: node id, qualified name or bare name (exactly one match).
    pub from: String,
    /// The callee end: node id, qualified name or bare name (exactly one match).
    pub to: String,
    /// Longest path searched, in call hops (default 10).
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    /// Most shortest paths listed, 1 to 100 (default 5).
    #[schemars(range(min = 1, max = 100))]
    pub max: Option<usize>,
}

/// Arguments of `source`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct SourceArgs {
    /// Node id, qualified name or bare name (exactly one match).
    pub symbol: String,
    /// Lines shown before and after the definition (default 0).
    pub context: Option<u32>,
}

/// Arguments of `outline`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct OutlineArgs {
    /// A file or folder, repo-relative (`""` or `.` for the root).
    pub path: String,
    /// Most definitions (file) or entries (folder) listed (default 300).
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    pub limit: Option<usize>,
}

/// Arguments of `status` (none).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

/// What `initialize` tells the agent about the tools.
pub const INSTRUCTIONS: &str = "codegraph: the call graph and code search of one repository, \
kept current while files change. Start with `outline` (a folder or file: what is there and \
what is most called) or `symbols` (find a definition by name; gives ids). For who calls a \
function use `callers`; what it calls, `callees`; what a change breaks, `impact` (a symbol, \
or `diff` for the uncommitted changes); how A reaches B, `path`. `search` finds code by words \
or meaning when you do not know the name. `source` prints a definition's code. Pass an id \
from an earlier answer when a name is ambiguous. Every answer says which snapshot it used \
(`stale: true` while an update runs); `status` shows counts and indexing progress.";

/// The input schema of `T`, as schemars derives it (an object schema).
fn input<T: JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).unwrap_or_else(|_| json!({}));
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.insert("type".into(), json!("object"));
    }
    Arc::new(into_object(v))
}

fn into_object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

/// The subgraph@1 schema shipped in `assets/`.
const SUBGRAPH_SCHEMA: &str = include_str!("../../assets/subgraph.schema.json");

/// The envelope around `result`, whose `$defs` (referred to as `#/$defs/...`) move to the
/// root so references resolve in the tool's schema.
fn envelope(mut result: Value) -> Arc<JsonObject> {
    let defs = result
        .as_object_mut()
        .and_then(|o| {
            o.remove("$schema");
            o.remove("$id");
            o.remove("$defs")
        })
        .unwrap_or_else(|| json!({}));
    Arc::new(into_object(json!({
        "type": "object",
        "required": ["result", "truncated"],
        "properties": {
            "result": result,
            "snapshot": {
                "type": "object",
                "description": "The snapshot that answered; absent only from `status` before \
                                the first snapshot.",
                "required": ["generation", "indexed_at", "stale"],
                "properties": {
                    "generation": {"type": "integer", "minimum": 1,
                                   "description": "Run number of the snapshot, from 1."},
                    "indexed_at": {"type": "string",
                                   "description": "When it was published, RFC 3339 UTC."},
                    "stale": {"type": "boolean",
                              "description": "An update is running: newer answers may differ."},
                    "indexing": {"$ref": "#/$defs/indexing"}
                }
            },
            "truncated": {"type": "boolean",
                          "description": "The tool's limit cut the result."},
            "omitted": {"type": "object", "additionalProperties": {"type": "integer"},
                        "description": "Per list, how many entries the limit left out."}
        },
        "$defs": merge(defs, json!({
            "indexing": {
                "type": "object",
                "required": ["phase", "done", "total"],
                "properties": {
                    "phase": {"enum": ["walking", "parsing", "resolving"]},
                    "done": {"type": "integer"}, "total": {"type": "integer"}
                }
            }
        }))
    })))
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

fn subgraph() -> Value {
    serde_json::from_str(SUBGRAPH_SCHEMA).unwrap_or_else(|_| json!({"type": "object"}))
}

fn ids() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn impact_schema() -> Value {
    json!({
        "type": "object",
        "required": ["schema", "roots", "depth", "direct_callers", "by_depth", "files",
                     "tests", "entry_points", "risk", "risk_rule", "lower_bound",
                     "lower_bound_reasons", "truncated"],
        "properties": {
            "schema": {"const": "codegraph-tui/impact@1"},
            "root": {"type": ["string", "null"]},
            "roots": ids(), "depth": {"type": "integer"},
            "direct_callers": ids(),
            "by_depth": {"type": "array", "items": ids()},
            "files": ids(), "tests": ids(), "entry_points": ids(),
            "risk": {"enum": ["low", "medium", "high"]},
            "risk_rule": {"type": "string"},
            "lower_bound": {"type": "boolean"}, "lower_bound_reasons": ids(),
            "truncated": {"type": "boolean"}
        }
    })
}

fn impact_output() -> Value {
    json!({
        "description": "impact@1 for `symbol`, impact-diff@1 for `diff`.",
        "oneOf": [
            {"$ref": "#/$defs/impact"},
            {
                "type": "object",
                "required": ["schema", "rev", "changed", "outside", "impacts", "removed", "union"],
                "properties": {
                    "schema": {"const": "codegraph-tui/impact-diff@1"},
                    "rev": {"type": "string"},
                    "changed": {"type": "array"}, "outside": {"type": "array"},
                    "impacts": {"type": "array", "items": {"$ref": "#/$defs/impact"}},
                    "removed": {"type": "array"},
                    "union": {"$ref": "#/$defs/impact"}
                }
            }
        ],
        "$defs": {"impact": impact_schema()}
    })
}

fn node_hit(extra: Value) -> Value {
    let mut props = json!({
        "id": {"type": "string"}, "kind": {"type": "string"}, "name": {"type": "string"},
        "qualified_name": {"type": "string"}, "file": {"type": "string"},
        "start_line": {"type": "integer"}, "end_line": {"type": "integer"},
        "language": {"type": "string"}
    });
    props = merge(props, extra);
    json!({"type": "object", "required": ["id", "kind", "file", "start_line"], "properties": props})
}

fn search_output() -> Value {
    json!({
        "type": "object",
        "required": ["query", "mode", "hits"],
        "properties": {
            "query": {"type": "string"},
            "mode": {"enum": ["text", "semantic", "hybrid"]},
            "hits": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "path", "start_line", "end_line", "kind", "score"],
                "properties": {
                    "id": {"type": "string"}, "path": {"type": "string"},
                    "start_line": {"type": "integer"}, "end_line": {"type": "integer"},
                    "kind": {"type": "string"}, "score": {"type": "number"},
                    "text_rank": {"type": ["integer", "null"]},
                    "semantic_rank": {"type": ["integer", "null"]}
                }
            }}
        }
    })
}

fn symbols_output() -> Value {
    json!({
        "type": "object",
        "required": ["query", "hits"],
        "properties": {
            "query": {"type": "string"},
            "hits": {"type": "array", "items": node_hit(json!({"score": {"type": "integer"}}))}
        }
    })
}

fn paths_output() -> Value {
    json!({
        "type": "object",
        "required": ["schema", "from", "to", "depth", "length", "paths", "more", "truncated"],
        "properties": {
            "schema": {"const": "codegraph-tui/paths@1"},
            "from": {"type": "string"}, "to": {"type": "string"},
            "depth": {"type": "integer"},
            "length": {"type": ["integer", "null"]},
            "paths": {"type": "array", "items": ids()},
            "more": {"type": "boolean"}, "truncated": {"type": "boolean"}
        }
    })
}

fn source_output() -> Value {
    json!({
        "type": "object",
        "required": ["id", "kind", "file", "start_line", "end_line", "lines", "text"],
        "properties": {
            "id": {"type": "string"}, "kind": {"type": "string"},
            "qualified_name": {"type": "string"},
            "file": {"type": "string", "description": "Repo-relative."},
            "start_line": {"type": "integer", "description": "The definition's first line, 1-based."},
            "end_line": {"type": "integer", "description": "Its last line, inclusive."},
            "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                      "description": "[first, last] lines of `text` (the definition plus context)."},
            "text": {"type": "string", "description": "The lines, as in the file."},
            "changed_on_disk": {"type": "boolean",
                                "description": "The file differs from the snapshot: lines may have moved."}
        }
    })
}

fn outline_output() -> Value {
    let counts = json!({"type": "object", "required": ["callers", "callees"],
        "properties": {"callers": {"type": "integer"}, "callees": {"type": "integer"}}});
    json!({
        "type": "object",
        "required": ["path", "type"],
        "properties": {
            "path": {"type": "string"},
            "type": {"enum": ["file", "folder"]},
            "language": {"type": "string"},
            "lines": {"type": "integer"},
            "definitions": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "kind", "name", "depth", "start_line", "end_line", "callers", "callees"],
                "properties": merge(json!({
                    "id": {"type": "string"}, "kind": {"type": "string"},
                    "name": {"type": "string"},
                    "depth": {"type": "integer", "description": "Nesting: 0 top level."},
                    "start_line": {"type": "integer"}, "end_line": {"type": "integer"},
                    "signature": {"type": "string"}
                }), counts["properties"].clone())
            }},
            "files": {"type": "integer"}, "definitions_total": {"type": "integer"},
            "entries": {"type": "array", "items": {
                "type": "object",
                "required": ["path", "type", "files", "definitions"],
                "properties": {
                    "path": {"type": "string"}, "type": {"enum": ["file", "folder"]},
                    "files": {"type": "integer"}, "definitions": {"type": "integer"},
                    "top": {"type": "array", "items": {
                        "type": "object", "required": ["id", "kind", "callers"],
                        "properties": {"id": {"type": "string"}, "kind": {"type": "string"},
                                       "callers": {"type": "integer"}}
                    }}
                }
            }}
        }
    })
}

fn status_output() -> Value {
    json!({
        "type": "object",
        "required": ["root", "state", "watching", "cache"],
        "properties": {
            "root": {"type": "string"},
            "state": {"enum": ["indexing", "ready", "updating", "failed"]},
            "counts": {"type": "object"},
            "languages": {"type": "object", "additionalProperties": {"type": "integer"}},
            "unresolved": {"type": "object", "additionalProperties": {"type": "integer"}},
            "cache": {"type": "object"},
            "watching": {"type": "object"},
            "last_update": {"type": ["string", "null"]},
            "indexing": {"$ref": "#/$defs/indexing"},
            "error": {"type": "string"}
        }
    })
}

/// Every tool, in the order `tools/list` gives them.
pub fn tools() -> Vec<Tool> {
    let read = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    let tool = |name: &'static str, description: &'static str, input, output: Value| {
        Tool::new(name, description, input)
            .with_raw_output_schema(envelope(output))
            .with_annotations(read.clone())
    };
    vec![
        tool(
            "search",
            "Find code by words or meaning (BM25 text, embedding similarity, or both fused). \
             Hits are definitions or line windows with file and lines, as `search --json`.",
            input::<SearchArgs>(),
            search_output(),
        ),
        tool(
            "symbols",
            "Fuzzy-find definitions by name or qualified name: ids, kinds, files, lines.",
            input::<SymbolsArgs>(),
            symbols_output(),
        ),
        tool(
            "callers",
            "Who calls SYMBOL, up to `depth` hops: a subgraph@1 (nodes, edges with call \
             sites and resolution tier, `truncated`, `unresolved` = call sites that could add \
             callers).",
            input::<WalkArgs>(),
            subgraph(),
        ),
        tool(
            "callees",
            "What SYMBOL calls, up to `depth` hops: a subgraph@1, as `callers`.",
            input::<WalkArgs>(),
            subgraph(),
        ),
        tool(
            "impact",
            "What a change to SYMBOL (or, with `diff`, the working tree's changes) would \
             affect: callers by depth, files, tests, entry points, risk; impact@1.",
            input::<ImpactArgs>(),
            impact_output(),
        ),
        tool(
            "path",
            "The shortest call paths from one symbol to another (paths@1).",
            input::<PathArgs>(),
            paths_output(),
        ),
        tool(
            "source",
            "The code of a definition with its file and 1-based lines, plus `context` lines \
             around it.",
            input::<SourceArgs>(),
            source_output(),
        ),
        tool(
            "outline",
            "A file: its definitions in order (kind, name, lines, signature, caller and callee \
             counts). A folder: its files and sub-folders with counts and their most-called \
             definitions. Use it to decide what to read.",
            input::<OutlineArgs>(),
            outline_output(),
        ),
        tool(
            "status",
            "The index: root, counts, languages, unresolved calls by reason, cache state, \
             last update, whether watching works, indexing progress.",
            input::<StatusArgs>(),
            status_output(),
        ),
    ]
}
