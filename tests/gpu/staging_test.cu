// The staged launch's row copies (harness/staging.hpp): rows of any width between sides of any
// alignment, as unaligned 16-bit problems need them (2-byte aligned rows into 16-byte aligned
// padded ones, and back), each copied exactly and nothing outside the rows written. Every pair of
// source and destination units (1 to 16 bytes) is exercised, at widths below, at and past a
// warp's 512-byte segment. The launches that use the copies end to end are shapes_test's and
// runtime_fused_matmul_test's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_raii.hpp"
#include "harness/splitk.hpp"
#include "harness/staging.hpp"

namespace {

using namespace coalesce;

struct Case {
  std::size_t src_offset, src_pitch, dst_offset, dst_pitch, width, rows;
};

std::string describe(const Case& c) {
  return "src +" + std::to_string(c.src_offset) + " pitch " + std::to_string(c.src_pitch) + ", dst +" +
         std::to_string(c.dst_offset) + " pitch " + std::to_string(c.dst_pitch) + ", width " +
         std::to_string(c.width) + " x " + std::to_string(c.rows) + " rows";
}

TEST(StagingCopy, EveryRowIsCopiedExactlyAndNothingElseIsWritten) {
  COALESCE_REQUIRE_GPU();
  const std::vector<Case> cases = {
      // An unaligned bf16 problem's A (K = 4100 -> 4104) and C (N = 4097 -> 4104), in and out.
      {0, 4100 * 2, 0, 4104 * 2, 4100 * 2, 37},
      {0, 4104 * 2, 0, 4097 * 2, 4097 * 2, 37},
      {0, 4097 * 2, 0, 4104 * 2, 4097 * 2, 37},
      // The LM head's C rows (N = 50257 -> 50264).
      {0, 50264 * 2, 0, 50257 * 2, 50257 * 2, 5},
      // Row slices: a source whose rows are further apart than their width, at an offset.
      {6, 300 * 2, 16, 256 * 2, 250 * 2, 9},
      // Widths around a warp's segment, and narrow rows.
      {2, 514, 0, 528, 514, 7},
      {0, 512, 0, 512, 512, 3},
      {0, 510, 0, 512, 510, 3},
      {2, 14, 0, 16, 14, 11},
      {0, 2, 0, 16, 2, 4},
      // Every unit on each side: 1, 2, 4, 8 and 16 bytes.
      {1, 1001, 3, 1003, 999, 5},
      {4, 1004, 8, 1032, 1000, 5},
      {8, 1032, 4, 1004, 1000, 5},
      {16, 1040, 16, 1024, 1024, 5},
      {0, 4, 0, 4, 4, 1},
      // One row, a multiple of 16 bytes on both sides (the plain copy).
      {0, 65536, 0, 65536, 65536, 1},
  };
  std::mt19937 rng(7);
  const int blocks = elementwise_grid_cap();
  constexpr unsigned char kPoison = 0xAB;
  for (const Case& c : cases) {
    const std::size_t src_bytes = c.src_offset + c.rows * c.src_pitch;
    const std::size_t dst_bytes = c.dst_offset + c.rows * c.dst_pitch;
    std::vector<unsigned char> src(src_bytes), want(dst_bytes, kPoison), got(dst_bytes);
    // Never the poison, so a byte left uncopied cannot pass for a copied one.
    for (unsigned char& b : src) {
      const unsigned v = rng() % 255;
      b = static_cast<unsigned char>(v >= kPoison ? v + 1 : v);
    }
    for (std::size_t r = 0; r < c.rows; ++r)
      for (std::size_t i = 0; i < c.width; ++i)
        want[c.dst_offset + r * c.dst_pitch + i] = src[c.src_offset + r * c.src_pitch + i];
    DeviceBuffer<unsigned char> d_src(src_bytes), d_dst(dst_bytes);
    COALESCE_CUDA(cudaMemcpy(d_src.get(), src.data(), src_bytes, cudaMemcpyHostToDevice));
    COALESCE_CUDA(cudaMemset(d_dst.get(), kPoison, dst_bytes));
    launch_copy_rows(d_dst.get() + c.dst_offset, c.dst_pitch, d_src.get() + c.src_offset, c.src_pitch, c.width,
                     c.rows, blocks, nullptr);
    COALESCE_CUDA(cudaDeviceSynchronize());
    COALESCE_CUDA(cudaMemcpy(got.data(), d_dst.get(), dst_bytes, cudaMemcpyDeviceToHost));
    std::size_t wrong = 0, first = dst_bytes;
    for (std::size_t i = 0; i < dst_bytes; ++i)
      if (got[i] != want[i]) {
        ++wrong;
        first = std::min(first, i);
      }
    EXPECT_EQ(wrong, 0u) << describe(c) << ": " << wrong << " bytes differ, the first at " << first;
  }
  // A grid of one block copies what a full one does (the blocks stride over the segments).
  const Case c{2, 8194, 0, 8208, 8194, 64};
  std::vector<unsigned char> src(c.src_offset + c.rows * c.src_pitch);
  for (unsigned char& b : src) b = static_cast<unsigned char>(rng());
  DeviceBuffer<unsigned char> d_src(src.size()), d_one(c.rows * c.dst_pitch), d_full(c.rows * c.dst_pitch);
  COALESCE_CUDA(cudaMemcpy(d_src.get(), src.data(), src.size(), cudaMemcpyHostToDevice));
  COALESCE_CUDA(cudaMemset(d_one.get(), 0, c.rows * c.dst_pitch));
  COALESCE_CUDA(cudaMemset(d_full.get(), 0, c.rows * c.dst_pitch));
  launch_copy_rows(d_one.get(), c.dst_pitch, d_src.get() + c.src_offset, c.src_pitch, c.width, c.rows, 1, nullptr);
  launch_copy_rows(d_full.get(), c.dst_pitch, d_src.get() + c.src_offset, c.src_pitch, c.width, c.rows, blocks, nullptr);
  COALESCE_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned char> one(c.rows * c.dst_pitch), full(c.rows * c.dst_pitch);
  COALESCE_CUDA(cudaMemcpy(one.data(), d_one.get(), one.size(), cudaMemcpyDeviceToHost));
  COALESCE_CUDA(cudaMemcpy(full.data(), d_full.get(), full.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(one, full) << describe(c) << " with one block";
  for (std::size_t r = 0; r < c.rows; ++r)
    ASSERT_EQ(std::memcmp(full.data() + r * c.dst_pitch, src.data() + c.src_offset + r * c.src_pitch, c.width), 0)
        << describe(c) << ", row " << r;
}

}  // namespace
