//! Embedding providers behind one trait, [`Embedder`].
//!
//! * [`offline::OfflineEmbedder`]: the built-in default. Runs offline, downloads
//!   nothing: feature-hashed, stemmed, name-weighted TF-IDF vectors with document
//!   frequencies learned from the repository's own chunks. See its module docs.
//! * [`openai::OpenAiEmbedder`]: any OpenAI-compatible `/embeddings` endpoint (OpenAI,
//!   Ollama, vLLM, llama.cpp), switched on by `OPENAI_BASE_URL` or the config file
//!   (`docs/contracts.md#environment-variables`, `#configuration-file`). Source code leaves the machine only through this provider.

pub mod offline;
pub mod openai;
pub mod wordvec;

/// Errors of an embedding provider. Every variant says what went wrong in words a user
/// can act on; none carries the API key.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The endpoint answered with an HTTP error status that is not retried (4xx other
    /// than 429), or a retried one on the last attempt.
    #[error("{url} answered HTTP {status}: {body}")]
    Status {
        /// Endpoint URL.
        url: String,
        /// HTTP status code.
        status: u16,
        /// Start of the response body (at most 300 chars).
        body: String,
    },
    /// No answer within the per-request timeout.
    #[error("{url} did not answer within {secs} s")]
    Timeout {
        /// Endpoint URL.
        url: String,
        /// The timeout, seconds.
        secs: f64,
    },
    /// Connection or protocol failure.
    #[error("cannot reach {url}: {message}")]
    Transport {
        /// Endpoint URL.
        url: String,
        /// The transport's message.
        message: String,
    },
    /// The answer is not the JSON of the embeddings API.
    #[error("{url} answered malformed JSON: {message}")]
    Malformed {
        /// Endpoint URL.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// The answer is longer than any honest answer for the inputs sent
    /// ([`openai::body_limit`]): the endpoint is not an embeddings API, or is broken.
    /// Not retried.
    #[error("{url} answered more than {limit_bytes} bytes for {inputs} inputs")]
    TooLarge {
        /// Endpoint URL.
        url: String,
        /// The limit that was reached, bytes.
        limit_bytes: u64,
        /// Inputs sent.
        inputs: usize,
    },
    /// The answer has a different number of vectors than inputs sent.
    #[error("{url} returned {got} vectors for {expected} inputs")]
    Count {
        /// Endpoint URL.
        url: String,
        /// Inputs sent.
        expected: usize,
        /// Vectors received.
        got: usize,
    },
    /// A vector has the wrong number of dimensions.
    #[error("{url} returned a vector of {got} dimensions, expected {expected}")]
    Dimension {
        /// Endpoint URL.
        url: String,
        /// Dimensions configured or seen first.
        expected: usize,
        /// Dimensions of the offending vector.
        got: usize,
    },
    /// Retryable failures (429, 5xx, transport, timeout) on every attempt.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// Attempts made (1 + retries).
        attempts: u32,
        /// The last failure.
        last: Box<EmbedError>,
    },
    /// The provider is misconfigured (a malformed environment variable, say).
    #[error("embedding configuration: {0}")]
    Config(String),
}

/// A provider that maps texts to vectors of one fixed dimension.
pub trait Embedder: Send + Sync {
    /// Stable identity of the provider, model and dimensions; part of the vector cache
    /// key, so vectors of different models never mix.
    fn id(&self) -> String;

    /// Name of the vector cache file this provider writes. Defaults to [`Embedder::id`];
    /// a provider whose id changes with every fit (the offline model) returns a stable
    /// name so its older vectors are replaced instead of piling up.
    fn cache_slot(&self) -> String {
        self.id()
    }

    /// Embeds chunk texts (embedding inputs of [`super::SearchChunk`]), one vector per
    /// text in order, each of the same length.
    ///
    /// Errors: any [`EmbedError`]; then no vector of this call is returned.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// Embeds a search query. Defaults to [`Embedder::embed`] of the one text.
    ///
    /// Errors: as [`Embedder::embed`].
    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.embed(&[query.to_string()])?;
        v.pop()
            .ok_or_else(|| EmbedError::Config("no vector for the query".into()))
    }
}

/// Scales `v` to unit length in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}
