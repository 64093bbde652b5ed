//! The peers' size-only functions that build.rs compiled (none when no
//! `MEMZIP_PEER_*` variable pointed at their sources).

/// Which memzip codecs a peer is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Bdi,
    Fpc,
    Cpack,
    Bpc,
    /// Per-word Huffman coding with a sampled code (SC2; E2MC).
    Huffman,
    /// No peer codes this way (adaptive).
    None,
}

/// One peer function: the compressed size of one block, in its own unit.
pub struct Peer {
    pub name: &'static str,
    pub family: Family,
    pub size: fn(&[u8]) -> usize,
}

#[cfg(memzip_peer_bdi)]
mod cmu_bdi {
    extern "C" {
        fn peer_cmu_bdi_size(block: *const u8, bytes: usize) -> usize;
        fn peer_cmu_fpc_size(block: *const u8, bytes: usize) -> usize;
    }

    pub fn bdi(block: &[u8]) -> usize {
        // SAFETY: the C function reads `bytes` bytes of `block` and keeps no pointer.
        unsafe { peer_cmu_bdi_size(block.as_ptr(), block.len()) }
    }

    pub fn fpc(block: &[u8]) -> usize {
        // SAFETY: as above.
        unsafe { peer_cmu_fpc_size(block.as_ptr(), block.len()) }
    }
}

#[cfg(memzip_peer_mpc)]
mod mpc {
    extern "C" {
        fn peer_mpc_bdi_bits(block: *const u8, bytes: usize) -> usize;
        fn peer_mpc_fpc_bits(block: *const u8, bytes: usize) -> usize;
        fn peer_mpc_cpack_bits(block: *const u8, bytes: usize) -> usize;
        fn peer_mpc_bpc_bits(block: *const u8, bytes: usize) -> usize;
        fn peer_mpc_sc2_sampling_blocks(blocks: u32);
        fn peer_mpc_sc2_bits(block: *const u8, bytes: usize) -> usize;
    }

    // SAFETY (every function below): the C++ function reads `bytes` bytes of
    // `block` and keeps no pointer to it; the peers' state is process-global
    // and only the main thread calls them.
    pub fn bdi(block: &[u8]) -> usize {
        unsafe { peer_mpc_bdi_bits(block.as_ptr(), block.len()) }
    }

    pub fn fpc(block: &[u8]) -> usize {
        unsafe { peer_mpc_fpc_bits(block.as_ptr(), block.len()) }
    }

    pub fn cpack(block: &[u8]) -> usize {
        unsafe { peer_mpc_cpack_bits(block.as_ptr(), block.len()) }
    }

    pub fn bpc(block: &[u8]) -> usize {
        unsafe { peer_mpc_bpc_bits(block.as_ptr(), block.len()) }
    }

    pub fn sc2(block: &[u8]) -> usize {
        unsafe { peer_mpc_sc2_bits(block.as_ptr(), block.len()) }
    }

    /// SC2 counts the symbols of every block once, then builds its Huffman
    /// code (as E2MC's sampling phase before it is timed).
    pub fn train_sc2(blocks: &[Vec<u8>]) {
        unsafe { peer_mpc_sc2_sampling_blocks(blocks.len() as u32) };
        for block in blocks {
            sc2(block);
        }
        // This call builds the code; later ones code with it.
        sc2(&blocks[0]);
    }
}

/// The compiled peers (SC2 trained on `blocks`); one SKIP line per missing one.
pub fn available_peers(blocks: &[Vec<u8>]) -> Vec<Peer> {
    #[cfg_attr(not(any(memzip_peer_bdi, memzip_peer_mpc)), allow(unused_mut))]
    let mut peers = Vec::new();
    #[cfg(memzip_peer_bdi)]
    {
        println!("peer CMU-SAFARI/BDICompression at {}", env!("MEMZIP_PEER_BDI_COMMIT"));
        peers.push(Peer { name: "CMU BDICompress", family: Family::Bdi, size: cmu_bdi::bdi });
        peers.push(Peer { name: "CMU FPCCompress", family: Family::Fpc, size: cmu_bdi::fpc });
    }
    #[cfg(not(memzip_peer_bdi))]
    println!("SKIP peer CMU-SAFARI/BDICompression: MEMZIP_PEER_BDI_REPO was not set when this was built");
    #[cfg(memzip_peer_mpc)]
    {
        println!("peer xyz123479/CAL_22-MPC_gpgpu-sim at {}", env!("MEMZIP_PEER_MPC_COMMIT"));
        mpc::train_sc2(blocks);
        peers.push(Peer { name: "MPC-fork BDICompressor", family: Family::Bdi, size: mpc::bdi });
        peers.push(Peer { name: "MPC-fork FPCompressor", family: Family::Fpc, size: mpc::fpc });
        peers.push(Peer { name: "MPC-fork CachePacker", family: Family::Cpack, size: mpc::cpack });
        peers.push(Peer { name: "MPC-fork BPCompressor", family: Family::Bpc, size: mpc::bpc });
        peers.push(Peer { name: "MPC-fork SC2Compressor", family: Family::Huffman, size: mpc::sc2 });
    }
    #[cfg(not(memzip_peer_mpc))]
    {
        let _ = blocks;
        println!("SKIP peer xyz123479/CAL_22-MPC_gpgpu-sim: MEMZIP_PEER_MPC_REPO was not set when this was built");
    }
    peers
}
