//! NVVM intrinsics used by the helpers, declared once. They are LLVM's own
//! (`llvm.nvvm.*`), so LLVM knows their semantics: shuffles and votes are
//! convergent, special registers have known ranges.

unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    pub fn laneid() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.lanemask.eq"]
    pub fn lanemask_eq() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.lanemask.lt"]
    pub fn lanemask_lt() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.lanemask.le"]
    pub fn lanemask_le() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.lanemask.gt"]
    pub fn lanemask_gt() -> u32;
    #[link_name = "llvm.nvvm.read.ptx.sreg.lanemask.ge"]
    pub fn lanemask_ge() -> u32;

    // shfl.sync.{down,up,bfly,idx}.b32 d, a, b, c, membermask
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    pub fn shfl_down(mask: u32, a: u32, b: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    pub fn shfl_up(mask: u32, a: u32, b: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    pub fn shfl_bfly(mask: u32, a: u32, b: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    pub fn shfl_idx(mask: u32, a: u32, b: u32, c: u32) -> u32;

    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    pub fn vote_ballot(mask: u32, pred: bool) -> u32;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    pub fn vote_all(mask: u32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    pub fn vote_any(mask: u32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.match.any.sync.i32"]
    pub fn match_any(mask: u32, value: u32) -> u32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    pub fn bar_warp_sync(mask: u32);
}
