//! The 2 KiB proof configurations, taken from filecoin-proofs-api's registered proofs as Lotus
//! and Curio take them (sizes, partition and challenge counts, porep id, API versions), so that
//! this check proves exactly what they would ask for.

use filecoin_proofs::{PoRepConfig, PoStConfig};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};

/// Go's `abi.RegisteredSealProof_StackedDrg2KiBV1_1` (porep id 5, API 1.1.0).
pub const SEAL: RegisteredSealProof = RegisteredSealProof::StackedDrg2KiBV1_1;

pub fn seal() -> PoRepConfig {
    SEAL.as_v1_config()
}

/// SnapDeals' circuit is configured from the sector's PoRep configuration.
pub fn update() -> PoRepConfig {
    RegisteredUpdateProof::StackedDrg2KiBV1.as_v1_config()
}

/// Window PoSt as the chain asks for it since network version 19 (the `V1_2` challenges).
pub fn window_post() -> PoStConfig {
    RegisteredPoStProof::StackedDrgWindow2KiBV1_2.as_v1_config()
}

pub fn winning_post() -> PoStConfig {
    RegisteredPoStProof::StackedDrgWinning2KiBV1.as_v1_config()
}
