// Floors: kernels that time a physical bound of a problem instead of computing it, measured by
// the same cold harness as the baselines (issue 12: "within 1.5× of the time it takes to read B
// once at the measured copy bandwidth"). They are methods of MethodRole::floor: timed, never
// checked, since they write no C.
#pragma once

#include <cstddef>

#include "method.hpp"
#include "workspace.hpp"

namespace coalesce {

/// `read_b`: one kernel that reads the problem's B (K×N in its storage type) exactly once, in
/// 16-byte vector loads over a grid that fills every SM at full occupancy, and writes one word
/// per block (the XOR of what it read) so the loads cannot be dropped. Its time is the floor of
/// a GEMM whose traffic B dominates (M ≤ 8 at N = K = 4096: B is 32 or 64 MiB, A and C a few
/// KiB), at the bandwidth this GPU reaches on this buffer. The method holds its own scratch of
/// one word per block; keep it alive while it is used.
Method read_b(Workspace& ws);

/// The bytes read_b reads: K × N elements of B's storage type.
std::size_t read_b_bytes(const Problem& p);

/// What read_b's kernel reports after one launch on ws.stream(), folded on the host: the XOR of
/// every 32-bit word of B's whole 16-byte vectors, with each byte of the tail beyond them XORed
/// in. It equals the same fold of B computed on the host exactly when every word was read once
/// (a word read twice cancels, one skipped is missing): the GPU test's proof that the floor
/// reads all of B. Synchronizes the stream.
unsigned read_b_fold(Workspace& ws);

}  // namespace coalesce
