//! The library's error type: every failure a host can see, with a message it can act on.

use std::path::PathBuf;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong between a host's call and its proofs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A pointer argument of a C function was NULL.
    #[error("null pointer passed as `{0}`")]
    NullArgument(&'static str),

    /// Arguments that cannot describe a valid request (sizes that disagree, empty batches, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// One circuit of a batch does not fit the SRS or its siblings.
    #[error("circuit {index}: {reason}")]
    Circuit { index: usize, reason: String },

    /// The params file could not be opened or mapped.
    #[error("cannot read params file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The params file is not a well-formed bellperson Groth16 parameters file.
    #[error("params file {path} is malformed: {reason}")]
    MalformedParams { path: PathBuf, reason: String },

    /// A point in the params file is not a valid curve point.
    #[error("params file {path}: point {index} of section `{section}` {problem}")]
    BadPoint {
        path: PathBuf,
        section: &'static str,
        index: usize,
        problem: &'static str,
    },

    /// The proving key would let a prover forge proofs (identity delta).
    #[error("the SRS is unusable: {0}")]
    UnusableSrs(&'static str),

    /// A handle was used after it was consumed (finalize twice, ...).
    #[error("{0}")]
    InvalidHandle(&'static str),

    /// A proof failed verification.
    #[error("the proof does not verify against the SRS's verifying key and these public inputs")]
    InvalidProof,

    /// A CUDA call failed.
    #[error("CUDA error in {call}: {message} (code {code})")]
    Cuda {
        call: &'static str,
        code: i32,
        message: String,
    },

    /// A Rust panic was caught at the C boundary.
    #[error("internal error (panic): {0}")]
    Panic(String),
}

impl Error {
    /// The numeric code returned through the C ABI. Zero means success, so every variant is non-zero.
    pub fn code(&self) -> i32 {
        match self {
            Error::NullArgument(_) => 1,
            Error::InvalidArgument(_) => 2,
            Error::Circuit { .. } => 3,
            Error::Io { .. } => 4,
            Error::MalformedParams { .. } => 5,
            Error::BadPoint { .. } => 6,
            Error::UnusableSrs(_) => 7,
            Error::InvalidHandle(_) => 8,
            Error::Panic(_) => 9,
            Error::InvalidProof => 10,
            Error::Cuda { .. } => 11,
        }
    }

    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }

    pub(crate) fn circuit(index: usize, reason: impl Into<String>) -> Self {
        Error::Circuit {
            index,
            reason: reason.into(),
        }
    }
}
