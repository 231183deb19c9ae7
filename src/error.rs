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

    /// A proof the prover made failed its check against the verifying key, so it was not
    /// returned (a hardware or memory fault, or a witness that does not satisfy the circuit).
    #[error("circuit {index}: its proof failed verification against the params file's verifying key and the circuit's public inputs; no proof was returned (a witness that does not satisfy the circuit, or a hardware fault)")]
    ProofCheckFailed { index: usize },

    /// The device could not provide the memory a proof needs.
    #[error("{0}")]
    OutOfDeviceMemory(String),

    /// A CUDA call failed.
    #[error("CUDA error in {call}: {message} (code {code})")]
    Cuda {
        call: &'static str,
        code: i32,
        message: String,
    },

    /// A GPU this build has no code for (its architecture is missing from the build).
    #[error("{0}")]
    UnsupportedGpu(String),

    /// A Rust panic was caught at the C boundary.
    #[error("internal error (panic): {0}")]
    Panic(String),
}

/// The codes in `Error.code` (C ABI), one per kind of failure; 0 is success.
pub mod codes {
    pub const GROTH16_C2_OK: i32 = 0;
    pub const GROTH16_C2_ERR_NULL_ARGUMENT: i32 = 1;
    pub const GROTH16_C2_ERR_INVALID_ARGUMENT: i32 = 2;
    pub const GROTH16_C2_ERR_CIRCUIT: i32 = 3;
    pub const GROTH16_C2_ERR_IO: i32 = 4;
    pub const GROTH16_C2_ERR_MALFORMED_PARAMS: i32 = 5;
    pub const GROTH16_C2_ERR_BAD_POINT: i32 = 6;
    pub const GROTH16_C2_ERR_UNUSABLE_SRS: i32 = 7;
    pub const GROTH16_C2_ERR_INVALID_HANDLE: i32 = 8;
    pub const GROTH16_C2_ERR_PANIC: i32 = 9;
    pub const GROTH16_C2_ERR_INVALID_PROOF: i32 = 10;
    pub const GROTH16_C2_ERR_CUDA: i32 = 11;
    pub const GROTH16_C2_ERR_OUT_OF_DEVICE_MEMORY: i32 = 12;
    pub const GROTH16_C2_ERR_UNSUPPORTED_GPU: i32 = 13;
}

impl Error {
    /// The numeric code returned through the C ABI ([`codes`]); never 0.
    pub fn code(&self) -> i32 {
        use codes::*;
        match self {
            Error::NullArgument(_) => GROTH16_C2_ERR_NULL_ARGUMENT,
            Error::InvalidArgument(_) => GROTH16_C2_ERR_INVALID_ARGUMENT,
            Error::Circuit { .. } => GROTH16_C2_ERR_CIRCUIT,
            Error::Io { .. } => GROTH16_C2_ERR_IO,
            Error::MalformedParams { .. } => GROTH16_C2_ERR_MALFORMED_PARAMS,
            Error::BadPoint { .. } => GROTH16_C2_ERR_BAD_POINT,
            Error::UnusableSrs(_) => GROTH16_C2_ERR_UNUSABLE_SRS,
            Error::InvalidHandle(_) => GROTH16_C2_ERR_INVALID_HANDLE,
            Error::Panic(_) => GROTH16_C2_ERR_PANIC,
            Error::InvalidProof | Error::ProofCheckFailed { .. } => GROTH16_C2_ERR_INVALID_PROOF,
            Error::OutOfDeviceMemory(_) => GROTH16_C2_ERR_OUT_OF_DEVICE_MEMORY,
            Error::Cuda { .. } => GROTH16_C2_ERR_CUDA,
            Error::UnsupportedGpu(_) => GROTH16_C2_ERR_UNSUPPORTED_GPU,
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

/// The text of a caught panic (for [`Error::Panic`]), wherever in the library it was caught.
pub(crate) fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}
