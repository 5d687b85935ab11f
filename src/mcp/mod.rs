//! `codegraph-tui mcp`: the engine as a resident Model Context Protocol server over stdio
//! (`docs/contracts.md#mcp`), on the official Rust SDK (`rmcp`).
//!
//! The server starts the worker (the TUI's: cached snapshot first, reconciled in the
//! background, kept current by the watcher; `state`) and then speaks the protocol at
//! once, so `initialize` and `tools/list` never wait for an index. Each `tools/call` runs
//! its handler (`tools`, `files`) on the runtime's blocking pool against the newest
//! published snapshot and answers with the CLI's JSON document in `structuredContent` and a
//! compact text rendering (`render`); the tools' schemas are in `schema`.
//!
//! stdout carries protocol messages only (logs go to the log file). The server ends when
//! stdin closes or on SIGTERM, SIGINT or SIGHUP: the worker is stopped, which lets a run's
//! save finish (saves are atomic: a new snapshot folder, then `CURRENT` renamed).

mod files;
mod render;
pub mod schema;
#[doc(hidden)]
pub mod session;
mod state;
mod stdio;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

use crate::index::search::embed::openai::OpenAiConfig;
use crate::index::IndexOptions;
use crate::worker::Setup;
pub use state::rfc3339;
use state::Resident;

/// What the server needs to start.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// The repository root (canonical).
    pub root: PathBuf,
    /// Indexing options (from the configuration).
    pub index: IndexOptions,
    /// Cache folder and watching, as for the TUI.
    pub setup: Setup,
    /// The embeddings endpoint for semantic and hybrid search, when configured.
    pub embedding: Option<OpenAiConfig>,
}

/// The protocol handler: the shared state and the tool list.
#[derive(Clone)]
struct Server {
    state: Arc<Resident>,
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("codegraph-tui", env!("CARGO_PKG_VERSION"))
                    .with_title("codegraph-tui")
                    .with_description("Call graph, impact and code search of one repository"),
            )
            .with_instructions(schema::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let state = self.state.clone();
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let t = std::time::Instant::now();
        let (name, outcome) = tokio::task::spawn_blocking(move || {
            let o = call(&state, &name, args).map(|o| finish(&state, o));
            (name, o)
        })
        .await
        .map_err(|e| ErrorData::internal_error(format!("the tool call failed: {e}"), None))?;
        tracing::debug!(tool = %name, us = t.elapsed().as_micros() as u64, "mcp: call");
        match outcome {
            Some(r) => Ok(r.into()),
            None => Err(ErrorData::invalid_params(
                format!("unknown tool {name:?}; tools/list names them"),
                None,
            )),
        }
    }
}

/// The protocol result of a tool's outcome: `structuredContent` is the envelope
/// (`result`, `snapshot`, `truncated`, `omitted`), the text content the rendering plus a
/// line that names the snapshot.
fn finish(state: &Resident, outcome: tools::Outcome) -> CallToolResult {
    match outcome {
        Ok(a) => {
            let mut structured = json!({"result": a.result, "truncated": a.truncated});
            let mut text = a.text.clone();
            if let Some(s) = tools::snapshot_json(&a, state) {
                text.push_str(&format!(
                    "(snapshot {} of {}{})\n",
                    s["generation"],
                    s["indexed_at"].as_str().unwrap_or(""),
                    if a.stale {
                        "; stale: an update is running"
                    } else {
                        ""
                    }
                ));
                structured["snapshot"] = s;
            }
            if !a.omitted.is_empty() {
                structured["omitted"] = json!(a.omitted);
            }
            let mut r = CallToolResult::structured(structured);
            r.content = vec![ContentBlock::text(text)];
            r
        }
        Err(e) => {
            let mut r = CallToolResult::error(vec![ContentBlock::text(e.text)]);
            r.structured_content = Some(e.structured);
            r
        }
    }
}

/// Serves MCP on stdin/stdout until stdin closes or a terminating signal arrives.
///
/// Errors: the worker thread or the runtime cannot start, or the transport fails before
/// the handshake.
pub fn serve(options: McpOptions) -> anyhow::Result<()> {
    let state = Resident::start(
        options.root.clone(),
        options.index,
        options.setup,
        options.embedding,
    )?;
    tracing::info!(root = %options.root.display(), "mcp: serving on stdio");
    let server = Server {
        state: state.clone(),
        tools: Arc::new(schema::tools()),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("codegraph-mcp")
        .build()?;
    let r: anyhow::Result<()> = rt.block_on(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let mut hup = signal(SignalKind::hangup())?;
        let run = async {
            let transport = stdio::filtered(tokio::io::stdin(), tokio::io::stdout());
            let running = server.serve(transport).await?;
            let reason = running.waiting().await?;
            tracing::info!(?reason, "mcp: the client went away");
            anyhow::Ok(())
        };
        tokio::select! {
            r = run => r,
            _ = term.recv() => { tracing::info!("mcp: SIGTERM"); Ok(()) }
            _ = int.recv() => { tracing::info!("mcp: SIGINT"); Ok(()) }
            _ = hup.recv() => { tracing::info!("mcp: SIGHUP"); Ok(()) }
        }
    });
    // A read of stdin under way cannot be cancelled: do not wait for it.
    rt.shutdown_background();
    state.shutdown();
    tracing::info!("mcp: stopped");
    r
}

/// Runs tool `name`; `None` for a name that is no tool (a protocol error for the caller).
fn call(
    state: &Arc<Resident>,
    name: &str,
    args: rmcp::model::JsonObject,
) -> Option<tools::Outcome> {
    Some(match name {
        "search" => tools::parse(name, args).and_then(|a| tools::search(state, a)),
        "symbols" => tools::parse(name, args).and_then(|a| tools::symbols(state, a)),
        "callers" => tools::parse(name, args)
            .and_then(|a| tools::walk(state, a, crate::index::Walk::Callers)),
        "callees" => tools::parse(name, args)
            .and_then(|a| tools::walk(state, a, crate::index::Walk::Callees)),
        "impact" => tools::parse(name, args).and_then(|a| tools::impact_tool(state, a)),
        "path" => tools::parse(name, args).and_then(|a| tools::path(state, a)),
        "source" => tools::parse(name, args).and_then(|a| files::source(state, a)),
        "outline" => tools::parse(name, args).and_then(|a| files::outline(state, a)),
        "status" => tools::parse::<schema::StatusArgs>(name, args).map(|_| files::status(state)),
        _ => return None,
    })
}
